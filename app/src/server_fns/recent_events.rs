//! The project's most recent events, for the timeline's first paint.

use leptos::prelude::*;

use crate::error::AppError;

/// The newest 200 events of the session's project (controller extension
/// `GET /api/v1/events?last=200`), oldest first; empty against a controller without it.
#[server(endpoint = "recent_events")]
pub async fn recent_events() -> Result<Vec<kluster::ProjectEvent>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    match st
        .controller
        .get(&rec.token, "/api/v1/events?last=200")
        .await
    {
        Ok(list) => Ok(list),
        Err(AppError::NotFound(_)) => Ok(Vec::new()),
        Err(e) => Err(fail(e)),
    }
}
