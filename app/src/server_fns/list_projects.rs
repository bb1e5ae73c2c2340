//! The projects the signed-in user can switch to.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::ProjectChoice;

/// Lists the user's projects (`GET /v3/auth/projects`), sorted by name.
#[server(endpoint = "list_projects")]
pub async fn list_projects() -> Result<Vec<ProjectChoice>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, keystone_error, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    let projects = st
        .keystone
        .auth_projects(&rec.token)
        .await
        .map_err(|e| fail(keystone_error(e)))?;
    Ok(projects
        .into_iter()
        .map(|p| ProjectChoice {
            id: p.id,
            name: p.name,
        })
        .collect())
}
