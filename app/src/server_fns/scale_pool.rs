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
    crate::ssr::kluster_form(&name, async {
        let rec = require(&session().await?, &st).await?;
        let invalid = |message: String| {
            AppError::Invalid(vec![kluster::FieldError {
                field: "size".into(),
                message,
            }])
        };
        let size: i64 = size
            .trim()
            .parse()
            .map_err(|_| invalid("The size is a whole number of nodes (0 to 127).".into()))?;
        kluster::validate::pool_size(size).map_err(invalid)?;
        crate::ssr::kluster_name(&name)?;
        let c = st.controller_for(&rec)?;
        crate::ssr::controller::update_spec(&c, &rec.token, &name, version.as_deref(), |spec| {
            let Some(p) = spec.node_pools.iter_mut().find(|p| p.name == pool) else {
                return Err(AppError::NotFound(format!(
                    "Kluster {name} has no node pool {pool}."
                )));
            };
            p.size = size;
            Ok(())
        })
        .await?;
        tracing::info!(
            kluster = name,
            pool,
            size,
            project = rec.project_id,
            user = rec.user_name,
            "pool scaled"
        );
        Ok(())
    })
    .await?;
    leptos_axum::redirect(&format!("/klusters/{name}"));
    Ok(())
}
