//! The projects the signed-in user can switch to.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::ProjectChoice;

/// Lists the user's projects (`GET /v3/auth/projects`), sorted by name. Each token's list is
/// reused for [`PROJECT_LIST_TTL`](crate::ssr::project_lists::PROJECT_LIST_TTL): the header
/// asks for it on every page.
#[server(endpoint = "list_projects")]
pub async fn list_projects() -> Result<Vec<ProjectChoice>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, keystone_error, state, token_key};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    let key = token_key(&rec.token);
    if let Some(list) = st.project_lists.get(key, &st.clock) {
        return Ok(list);
    }
    let projects = st
        .keystone
        .auth_projects(&rec.token)
        .await
        .map_err(|e| fail(keystone_error(e)))?;
    let list: Vec<ProjectChoice> = projects
        .into_iter()
        .map(|p| ProjectChoice {
            id: p.id,
            name: p.name,
        })
        .collect();
    st.project_lists.put(key, list.clone(), &st.clock);
    Ok(list)
}
