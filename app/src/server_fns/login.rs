//! Sign in: password auth scoped to a project, then a fresh session.

use leptos::prelude::*;

use crate::error::AppError;

/// Signs in with Keystone (`POST /v3/auth/tokens`, project scope) and starts a session with a
/// new id. An empty domain means `Default`. On success redirects to the dashboard; a plain
/// form post that fails goes back to the login page with the fields (not the password) kept.
#[server(endpoint = "login")]
pub async fn login(
    user_name: String,
    password: String,
    user_domain: String,
    project: String,
) -> Result<(), AppError> {
    use self::ssr::*;
    let plain_form = crate::ssr::is_plain_form_post();
    match sign_in(&user_name, &password, &user_domain, &project).await {
        Ok(()) => {
            leptos_axum::redirect("/");
            Ok(())
        }
        // Without JavaScript the answer is a redirect (302), so no error status is set.
        Err(err) if plain_form => {
            let query = [
                ("error", err.code()),
                ("user", user_name.trim()),
                ("domain", user_domain.trim()),
                ("project", project.trim()),
            ];
            leptos_axum::redirect(&format!("/login?{}", encode_query(&query)));
            Err(err)
        }
        Err(err) => Err(crate::ssr::fail(err)),
    }
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use crate::error::AppError;
    use crate::ssr::auth::{end, session, store_error, AuthRecord, AUTH_KEY};
    use crate::ssr::{client_addr, client_ip, client_key, state, Refused};

    /// Reserves an attempt with the limiter, asks Keystone, and writes the session.
    pub async fn sign_in(
        user_name: &str,
        password: &str,
        user_domain: &str,
        project: &str,
    ) -> Result<(), AppError> {
        let (user_name, user_domain, project) =
            (user_name.trim(), user_domain.trim(), project.trim());
        let user_domain = if user_domain.is_empty() {
            "Default"
        } else {
            user_domain
        };
        if user_name.is_empty() || password.is_empty() || project.is_empty() {
            return Err(AppError::BadInput(
                "Please fill in user name, password and project.".into(),
            ));
        }
        let auth = keystone::PasswordAuth {
            user_name,
            password,
            user_domain,
            project: keystone::ProjectRef::Name {
                name: project,
                domain: user_domain,
            },
        };
        let ks = &state().keystone;
        start_session(
            &format!("{user_domain}/{user_name}"),
            ks.password_auth(&auth),
        )
        .await
    }

    /// Reserves an attempt for `user_key` with the limiter, then (only then) awaits `ask`,
    /// Keystone's answer to the sign-in, and writes the session.
    pub async fn start_session(
        user_key: &str,
        ask: impl std::future::Future<Output = Result<keystone::Token, keystone::Error>>,
    ) -> Result<(), AppError> {
        let st = state();
        let client = client_addr();
        let client_key = client_ip().map_or_else(|| "unknown".into(), |ip| client_key(&ip));
        // Reserved before Keystone is asked, so parallel guesses count at once.
        let attempt = match st.limiter.begin(&client_key, user_key).await {
            Ok(a) => a,
            Err(Refused::Wait(secs)) => {
                tracing::warn!(client, user = user_key, "sign-in rate limited");
                return Err(AppError::RateLimited {
                    retry_after_secs: secs,
                });
            }
            Err(Refused::Unavailable(e)) => {
                tracing::error!(error = e, "the sign-in attempt log cannot be reached");
                return Err(AppError::Internal);
            }
        };
        let token = match ask.await {
            Ok(t) => {
                attempt.succeeded().await;
                t
            }
            Err(keystone::Error::Unauthorized) => {
                attempt.failed().await;
                tracing::info!(client, user = user_key, "sign-in rejected by Keystone");
                return Err(AppError::InvalidCredentials);
            }
            Err(e) if e.is_unavailable() => {
                tracing::warn!(error = %e, "Keystone unavailable during sign-in");
                return Err(AppError::KeystoneUnavailable);
            }
            Err(e) => {
                tracing::error!(error = %e, "unexpected Keystone answer during sign-in");
                return Err(AppError::Internal);
            }
        };
        let mut record = AuthRecord::from_token(
            token,
            st.session_max_lifetime,
            crate::ssr::now_utc(&st.clock),
        )?;
        record.find_regions(&st, None).await?;
        record.ask_grants(&st).await;
        let session = session().await?;
        // Signing in over a session ends that one first: its token chain is revoked.
        if let Some(old) = session
            .get::<AuthRecord>(AUTH_KEY)
            .await
            .map_err(store_error)?
        {
            let root = old.root_token.as_ref().unwrap_or(&old.token);
            if let Err(e) = st.keystone.revoke(&old.token, root).await {
                tracing::warn!(error = %e, user = old.user_name, "could not revoke the replaced session's token");
            }
            session.clear().await;
        }
        // A new id on every sign-in: a session id planted before login is worthless after it.
        session.cycle_id().await.map_err(store_error)?;
        if let Err(e) = session.insert(AUTH_KEY, &record).await {
            end(&session).await;
            return Err(store_error(e));
        }
        tracing::info!(
            client,
            user = user_key,
            project = record.project_id,
            "signed in"
        );
        Ok(())
    }

    /// `application/x-www-form-urlencoded` encoding of a few pairs.
    pub fn encode_query(pairs: &[(&str, &str)]) -> String {
        let enc = crate::ssr::percent_encode;
        pairs
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn query_values_are_percent_encoded() {
            assert_eq!(
                super::encode_query(&[("user", "a b&c"), ("domain", "dé")]),
                "user=a%20b%26c&domain=d%C3%A9"
            );
        }
    }
}
