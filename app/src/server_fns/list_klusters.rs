//! The klusters of the session's project.

use leptos::prelude::*;

use crate::error::AppError;

/// Lists the project's klusters (`GET /api/v1/clusters` on the controller, with the
/// session's token).
#[server(endpoint = "list_klusters")]
pub async fn list_klusters() -> Result<Vec<crate::model::KlusterRow>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    let list = st
        .controller
        .list(&rec.token)
        .await
        .map_err(|e| fail(e.into()))?;
    Ok(list.into_iter().map(Into::into).collect())
}
