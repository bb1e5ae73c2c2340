//! Who is signed in: what the header shows.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::SessionInfo;

/// The signed-in user, project and roles, or `None` when nobody is signed in. Answers
/// [`AppError::SessionExpired`] when the token expired or was revoked.
#[server(endpoint = "current_session")]
pub async fn current_session() -> Result<Option<SessionInfo>, AppError> {
    use crate::ssr::auth::{current, session};
    let st = crate::ssr::state();
    let session = session().await?;
    let rec = current(&session, &st).await.map_err(crate::ssr::fail)?;
    Ok(rec.map(|r| r.info()))
}
