//! What the create form offers.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::CreateContext;

/// The cloud's catalog (flavors, zones, routers…), the project's quota (when the
/// controller reports it), the versions new klusters may use, (when `retry`) what the
/// last rejected plain form post left for the form, (with `from`) the form filled
/// from that kluster of the project, and (with `draft`) the form the YAML editor at create
/// turned back into.
#[server(endpoint = "get_create_context")]
pub async fn get_create_context(
    retry: bool,
    from: Option<String>,
    #[server(default)] draft: bool,
) -> Result<CreateContext, AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::{fail, state};
    let st = state();
    let session = session().await?;
    let rec = require(&session, &st).await.map_err(fail)?;
    // Read, not taken: the page may render more than once; a new post replaces it.
    let flash = if retry {
        session
            .get::<(crate::model::KlusterForm, AppError)>(super::create_kluster::CREATE_FLASH)
            .await
            .map_err(store_error)?
    } else {
        None
    };
    let c = &st.controller_for(&rec).map_err(fail)?;
    let (metadata, quota, info) = tokio::join!(
        c.metadata(&rec.token),
        c.quota(&rec.token),
        c.api_info(&rec.token),
    );
    let info = info.map_err(|e| fail(e.into()))?;
    let mut versions = if info.available_cluster_versions.is_empty() {
        info.supported_cluster_versions
    } else {
        info.available_cluster_versions
    };
    if let Some(i) = versions
        .iter()
        .position(|v| *v == info.default_cluster_version)
    {
        let default = versions.remove(i);
        versions.insert(0, default);
    }
    let copy = match from.filter(|f| !f.is_empty()) {
        _ if draft && flash.is_none() => session
            .get::<crate::model::Copied>(super::CREATE_DRAFT)
            .await
            .map_err(|e| fail(store_error(e)))?,
        Some(source) if flash.is_none() => Some(copy_of(c, &rec.token, &source, &versions).await),
        _ => None,
    };
    Ok(CreateContext {
        metadata: metadata.map_err(|e| fail(e.into()))?,
        // A real Kubernikus has no quota endpoint: the form then shows no quota summary.
        quota: quota.ok(),
        versions,
        flash,
        copy,
    })
}

/// The form filled from kluster `source` of the token's project, or the sentence that
/// says why it starts empty (a name from the URL is repeated only when it is a valid name).
#[cfg(feature = "ssr")]
async fn copy_of(
    c: &crate::ssr::ControllerClient,
    token: &keystone::TokenSecret,
    source: &str,
    versions: &[String],
) -> crate::model::Copied {
    use crate::duplicate::{copy_name, form_from};
    use crate::model::Copied;
    let empty = " The form starts empty.";
    if kluster::validate::kluster_name(source).is_err() {
        return Copied::nothing(format!(
            "There is no kluster by that name to copy in this project.{empty}"
        ));
    }
    let k = match c.get(token, source).await.map_err(AppError::from) {
        Ok(k) => k,
        Err(AppError::NotFound(_)) => {
            return Copied::nothing(format!(
                "There is no kluster {source} to copy in this project.{empty}"
            ))
        }
        Err(AppError::Forbidden(_)) => {
            return Copied::nothing(format!(
                "You may not read kluster {source}, so it cannot be copied.{empty}"
            ))
        }
        Err(e) => {
            return Copied::nothing(format!(
                "Kluster {source} could not be read to copy it: {e}{empty}"
            ))
        }
    };
    // `<source>-copy` when no kluster has that name yet; else the user chooses one.
    let name = match copy_name(source) {
        Some(n) => match c.get(token, &n).await.map_err(AppError::from) {
            Err(AppError::NotFound(_)) => n,
            _ => String::new(),
        },
        None => String::new(),
    };
    form_from(&k, name, versions)
}
