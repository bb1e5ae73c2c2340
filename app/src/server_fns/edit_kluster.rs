//! Change a kluster: upgrade its version, add a pool, remove an empty pool.

use leptos::prelude::*;

use crate::error::AppError;

/// One change to a kluster's spec, as a form sends it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Edit {
    /// Move to this Kubernetes version (the update rules decide which are allowed).
    Upgrade {
        /// The version.
        version: String,
    },
    /// Add a node pool.
    AddPool {
        /// Pool name.
        pool: String,
        /// Flavor name.
        flavor: String,
        /// Availability zone.
        zone: String,
        /// Nodes, as typed.
        size: String,
    },
    /// Remove a pool (only at size 0).
    RemovePool {
        /// Pool name.
        pool: String,
    },
}

/// Applies `edit` to kluster `name` (`GET`, change, `PUT`) while it is at the resource
/// `version` the page showed ([`AppError::Stale`] otherwise; none: last write wins); the
/// controller's rule violations come back per field. Goes back to the kluster's page.
#[server(endpoint = "edit_kluster")]
pub async fn edit_kluster(
    name: String,
    edit: Edit,
    version: Option<String>,
) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::state;
    let st = state();
    let fail = crate::ssr::kluster_form_failure(&name);
    let rec = require(&session().await?, &st)
        .await
        .map_err(fail.clone())?;
    crate::ssr::kluster_name(&name).map_err(fail.clone())?;
    let what = format!("{edit:?}");
    crate::ssr::controller::update_spec(
        &st.controller,
        &rec.token,
        &name,
        version.as_deref(),
        |spec| {
            match edit {
                Edit::Upgrade { version } => spec.version = version,
                Edit::AddPool {
                    pool,
                    flavor,
                    zone,
                    size,
                } => {
                    let size = size.trim().parse::<i64>().map_err(|_| {
                        AppError::Invalid(vec![kluster::FieldError {
                            field: format!("spec.nodePools[{}].size", spec.node_pools.len()),
                            message: "The size is a whole number of nodes (0 to 127).".into(),
                        }])
                    })?;
                    if spec.node_pools.iter().any(|p| p.name == pool.trim()) {
                        return Err(AppError::Invalid(vec![kluster::FieldError {
                            field: format!("spec.nodePools[{}].name", spec.node_pools.len()),
                            message: format!("There is already a pool named {:?}.", pool.trim()),
                        }]));
                    }
                    spec.node_pools.push(kluster::NodePool {
                        name: pool.trim().into(),
                        size,
                        flavor,
                        availability_zone: zone,
                        image: kluster::defaults::IMAGE.into(),
                        config: Some(kluster::NodePoolConfig {
                            allow_reboot: Some(true),
                            allow_replace: Some(true),
                        }),
                        ..Default::default()
                    });
                }
                Edit::RemovePool { pool } => spec.node_pools.retain(|p| p.name != pool),
            }
            Ok(())
        },
    )
    .await
    .map_err(fail.clone())?;
    tracing::info!(
        kluster = name,
        change = what,
        project = rec.project_id,
        user = rec.user_name,
        "kluster changed"
    );
    leptos_axum::redirect(&format!("/klusters/{name}"));
    Ok(())
}
