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
    let q = kubernikus_client::EventsQuery {
        last: Some(200),
        ..Default::default()
    };
    match st
        .controller_for(&rec)
        .map_err(fail)?
        .project_events(&rec.token, &q)
        .await
    {
        Ok(list) => Ok(list),
        // A Kubernikus without the extension: no project timeline.
        Err(e) if e.status() == Some(404) => Ok(Vec::new()),
        Err(e) => Err(fail(e.into())),
    }
}
