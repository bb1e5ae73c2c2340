//! What the create form offers.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::CreateContext;

/// The cloud's catalog (flavors, zones, routers…), the project's quota (when the
/// controller reports it), the versions new klusters may use, and (when `retry`) what the
/// last rejected plain form post left for the form.
#[server(endpoint = "get_create_context")]
pub async fn get_create_context(retry: bool) -> Result<CreateContext, AppError> {
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
    let c = &st.controller;
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
    Ok(CreateContext {
        metadata: metadata.map_err(|e| fail(e.into()))?,
        // A real Kubernikus has no quota endpoint: the form then shows no quota summary.
        quota: quota.ok(),
        versions,
        flash,
    })
}
