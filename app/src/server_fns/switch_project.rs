//! Switch project: rescope the session's token.

use leptos::prelude::*;

use crate::error::AppError;

/// Rescopes the session's token to `project_id` (`POST /v3/auth/tokens`, method `token`),
/// replaces the session record under a new session id and redirects to the dashboard.
/// The old token is not revoked now (that would revoke the rescoped one too); the chain's
/// root is kept in the session so that sign-out revokes the whole chain.
#[server(endpoint = "switch_project")]
pub async fn switch_project(project_id: String) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session, store_error, AuthRecord, AUTH_KEY};
    use crate::ssr::{fail, keystone_error, state};
    let st = state();
    let session = session().await?;
    let rec = require(&session, &st).await.map_err(fail)?;
    let project_id = project_id.trim();
    if project_id.is_empty() {
        return Err(fail(AppError::BadInput("Choose a project.".into())));
    }
    let token = match st
        .keystone
        .rescope(&rec.token, keystone::ProjectRef::Id(project_id))
        .await
    {
        Ok(t) => t,
        Err(keystone::Error::Unauthorized) => {
            return Err(fail(AppError::Forbidden(
                "You have no role in that project, or it does not exist.".into(),
            )))
        }
        Err(e) => return Err(fail(keystone_error(e))),
    };
    let mut next = AuthRecord::from_token(
        token,
        st.session_max_lifetime,
        crate::ssr::now_utc(&st.clock),
    )
    .map_err(fail)?;
    // Keep the absolute expiry and the chain root of the original sign-in.
    next.expires_at = next.expires_at.min(rec.expires_at);
    next.root_token = Some(rec.root_token.unwrap_or(rec.token));
    // The other project's catalog may list other regions; the one in use stays if it is there.
    next.find_regions(&st, rec.region.as_deref())
        .await
        .map_err(fail)?;
    next.ask_grants(&st).await;
    session.cycle_id().await.map_err(|e| fail(store_error(e)))?;
    session
        .insert(AUTH_KEY, &next)
        .await
        .map_err(|e| fail(store_error(e)))?;
    tracing::info!(
        user = next.user_name,
        project = next.project_id,
        "switched project"
    );
    leptos_axum::redirect("/");
    Ok(())
}
