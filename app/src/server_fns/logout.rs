//! Sign out: revoke the token, delete the session.

use leptos::prelude::*;

use crate::error::AppError;

/// Revokes the session's Keystone token chain (`DELETE /v3/auth/tokens`), deletes the
/// session and redirects to the login page. Signing out without a session is not an error.
#[server(endpoint = "logout")]
pub async fn logout() -> Result<(), AppError> {
    use crate::ssr::auth::{end, session, store_error, AuthRecord, AUTH_KEY};
    let st = crate::ssr::state();
    let session = session().await?;
    if let Some(rec) = session
        .get::<AuthRecord>(AUTH_KEY)
        .await
        .map_err(store_error)?
    {
        // The session goes whatever Keystone says; a revoke failure is logged, not shown.
        let root = rec.root_token.as_ref().unwrap_or(&rec.token);
        if let Err(e) = st.keystone.revoke(&rec.token, root).await {
            tracing::warn!(error = %e, user = rec.user_name, "could not revoke token on sign-out");
        }
        tracing::info!(user = rec.user_name, domain = rec.user_domain, "signed out");
    }
    end(&session).await;
    leptos_axum::redirect("/login?notice=signed_out");
    Ok(())
}
