//! Change a node pool's size.

use leptos::prelude::*;

use crate::error::AppError;

/// Sets pool `pool` of kluster `name` to `size` nodes (`PUT /api/v1/clusters/{name}` with
/// the kluster as it is, but that size), only while the kluster is at the resource
/// `version` the page showed (someone else's change in between: [`AppError::Stale`]; no
/// version: as Kubernikus clients, last write wins). Goes back to the kluster's page.
#[server(endpoint = "scale_pool")]
pub async fn scale_pool(
    name: String,
    pool: String,
    size: String,
    version: Option<String>,
) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::state;
    let st = state();
    let fail = crate::ssr::kluster_form_failure(&name);
    let rec = require(&session().await?, &st)
        .await
        .map_err(fail.clone())?;
    let field = "size".to_string();
    let size: i64 = size.trim().parse().map_err(|_| {
        fail.clone()(AppError::Invalid(vec![kluster::FieldError {
            field: field.clone(),
            message: "The size is a whole number of nodes (0 to 127).".into(),
        }]))
    })?;
    if let Err(message) = kluster::validate::pool_size(size) {
        return Err(fail.clone()(AppError::Invalid(vec![kluster::FieldError {
            field,
            message,
        }])));
    }
    crate::ssr::kluster_name(&name).map_err(fail.clone())?;
    let shown = version.as_deref();
    let c = st.controller_for(&rec).map_err(fail.clone())?;
    crate::ssr::controller::update_spec(&c, &rec.token, &name, shown, |spec| {
        let Some(p) = spec.node_pools.iter_mut().find(|p| p.name == pool) else {
            return Err(AppError::NotFound(format!(
                "Kluster {name} has no node pool {pool}."
            )));
        };
        p.size = size;
        Ok(())
    })
    .await
    .map_err(fail.clone())?;
    tracing::info!(
        kluster = name,
        pool,
        size,
        project = rec.project_id,
        user = rec.user_name,
        "pool scaled"
    );
    leptos_axum::redirect(&format!("/klusters/{name}"));
    Ok(())
}
