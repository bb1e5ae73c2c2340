//! Sign in with a Keystone application credential (id + secret), for people whose account
//! is a technical one or who keep no password: a session in the credential's project.

use leptos::prelude::*;

use crate::error::AppError;

/// Signs in with application credential `credential_id` and its `secret`
/// (`POST /v3/auth/tokens`, method `application_credential`; the token is scoped to the
/// credential's project, which cannot be switched). Counted by the sign-in limiter like a
/// password. On success redirects to the dashboard; a plain form post that fails goes back
/// to the login page's application-credential tab with the id (never the secret) kept.
#[server(endpoint = "login_app_credential")]
pub async fn login_app_credential(credential_id: String, secret: String) -> Result<(), AppError> {
    use super::login::ssr::{encode_query, start_session};
    // The longest id and secret sent to Keystone (its ids are 32 hex digits, its generated
    // secrets 86 characters).
    const MAX_ID: usize = 64;
    const MAX_SECRET: usize = 1024;
    let plain_form = crate::ssr::is_plain_form_post();
    let id = credential_id.trim();
    let result = if id.is_empty() || secret.is_empty() {
        Err(AppError::BadInput(
            "Please fill in the application credential's id and secret.".into(),
        ))
    } else if id.len() > MAX_ID || secret.len() > MAX_SECRET {
        Err(AppError::InvalidAppCredential)
    } else {
        let auth = keystone::ApplicationCredentialAuth {
            credential: keystone::CredentialRef::Id(id),
            secret: &secret,
        };
        let st = crate::ssr::state();
        let ask = st.keystone.application_credential_auth(&auth);
        start_session(&format!("application-credential/{id}"), ask)
            .await
            .map_err(|e| match e {
                AppError::InvalidCredentials => AppError::InvalidAppCredential,
                e => e,
            })
    };
    match result {
        Ok(()) => {
            leptos_axum::redirect("/");
            Ok(())
        }
        Err(err) if plain_form => {
            let id: String = id.chars().take(MAX_ID).collect();
            let query = [
                ("method", "application-credential"),
                ("error", err.code()),
                ("credential", id.as_str()),
            ];
            leptos_axum::redirect(&format!("/login?{}", encode_query(&query)));
            Err(err)
        }
        Err(err) => Err(crate::ssr::fail(err)),
    }
}
