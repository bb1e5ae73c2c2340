//! One kluster with its events and setup command.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::KlusterDetail;

/// The kluster `name` of the session's project, its events (newest first) and the
/// `kubernikusctl` setup command, in one round trip from the browser; with `retry`, also
/// what the last rejected plain post of a pool's settings left for this kluster.
#[server(endpoint = "get_kluster_detail")]
pub async fn get_kluster_detail(
    name: String,
    retry: Option<bool>,
) -> Result<KlusterDetail, AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::{fail, state};
    let st = state();
    let session = session().await?;
    let rec = require(&session, &st).await.map_err(fail)?;
    crate::ssr::kluster_name(&name).map_err(fail)?;
    // Read, not taken: the page may render more than once; a new post replaces it.
    let edit_flash = match retry {
        Some(true) => session
            .get::<(String, crate::kluster_edit::PoolFlash)>(super::edit_kluster::EDIT_FLASH)
            .await
            .map_err(store_error)?
            .filter(|(k, ..)| *k == name)
            .map(|(_, flash)| flash),
        _ => None,
    };
    let c = &st.controller_for(&rec).map_err(fail)?;
    let (kluster, events, info) = tokio::join!(
        c.get(&rec.token, &name),
        c.events(&rec.token, &name),
        c.info(&rec.token, &name),
    );
    let mut events = events.unwrap_or_default();
    events.reverse();
    let kluster = kluster.map_err(|e| fail(e.into()))?;
    let may_update = rec.may(kubernikus_policy::Permission::UpdateCluster);
    // What an admin may change to: versions by the update rules, flavors, zones, groups.
    let (upgrades, flavors, zones, images, security_groups) = if may_update {
        let (info, meta) = tokio::join!(c.api_info(&rec.token), c.metadata(&rec.token),);
        let current = &kluster.spec.version;
        let upgrades = info
            .map(|i| i.supported_cluster_versions)
            .unwrap_or_default()
            .into_iter()
            .filter(|v| v != current && kluster::update::allowed_version(current, v).is_ok())
            .collect();
        let meta = meta.unwrap_or_default();
        let zones = meta
            .availability_zones
            .into_iter()
            .map(|z| z.name)
            .collect();
        let groups = meta.security_groups.into_iter().map(|g| g.name).collect();
        (upgrades, meta.flavors, zones, meta.images, groups)
    } else {
        Default::default()
    };
    Ok(KlusterDetail {
        ssh_fingerprint: crate::ssr::ssh_fingerprint(&kluster.spec.ssh_public_key),
        kluster,
        events,
        binaries: info
            .as_ref()
            .map(|i| web_links(&i.binaries))
            .unwrap_or_default(),
        setup_command: info.map(|i| i.setup_command).unwrap_or_default(),
        may_update,
        upgrades,
        flavors,
        zones,
        images,
        security_groups,
        edit_flash,
    })
}

/// The binaries' links that are absolute http(s) URLs (a controller's answer never puts a
/// `javascript:` link on the page); binaries left without links are dropped.
#[cfg(feature = "ssr")]
fn web_links(binaries: &[kluster::Binaries]) -> Vec<kluster::Binaries> {
    binaries
        .iter()
        .map(|b| kluster::Binaries {
            name: b.name.clone(),
            links: b
                .links
                .iter()
                .filter(|l| l.link.starts_with("https://") || l.link.starts_with("http://"))
                .cloned()
                .collect(),
        })
        .filter(|b| !b.links.is_empty())
        .collect()
}
