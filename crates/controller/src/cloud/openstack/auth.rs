//! Tokens, one per target project: the service user signs in with its password scoped to
//! that project (through the project's [`keystone::Client`]), the token's catalog is read,
//! and the session is renewed — with the same scope — shortly before the token expires or
//! when a service answers 401. (gophercloud's re-authentication once dropped the scope, and
//! every call failed after the first token expired: here the scope is part of every
//! sign-in and is checked in Keystone's answer.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use keystone::{PasswordAuth, ProjectRef, TokenSecret};
use time::OffsetDateTime;

use super::catalog::Catalog;
use super::config::OpenStackConfig;
use super::failure::{answer_error, prefixed, secret_header, timed_out, transport};
use crate::cloud::CloudError;

/// Whom a session is scoped to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// A kluster's project, by id.
    Project(String),
    /// The service user's own project, by name in its domain (for
    /// [`super::OpenStackCloud::verify`] and Keystone's identity calls).
    Service,
    /// A kluster's own user in the kluster's project (by id).
    User {
        /// The project id.
        project: String,
        /// The user and its password.
        user: crate::cloud::KlusterUser,
    },
}

/// A signed-in token and what it may call. `Debug` does not show the token.
#[derive(Clone, Debug)]
pub struct Session {
    /// The token (sent as `X-Auth-Token`).
    pub token: TokenSecret,
    /// The project id Keystone scoped it to.
    pub project: String,
    /// When it is renewed (before it expires).
    pub renew_at: OffsetDateTime,
    /// When Keystone says it expires: until then a failed renewal keeps it in use.
    pub expires_at: OffsetDateTime,
    /// Its service catalog.
    pub catalog: Catalog,
}

/// A scope's current session; the async lock makes concurrent callers wait for one sign-in.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Session>>>>;

/// The sessions of every scope used so far.
pub struct Sessions {
    keystone: keystone::Client,
    http: reqwest::Client,
    config: Arc<OpenStackConfig>,
    slots: Mutex<HashMap<Scope, Slot>>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scopes: Vec<Scope> = match self.slots.lock() {
            Ok(slots) => slots.keys().cloned().collect(),
            Err(poisoned) => poisoned.into_inner().keys().cloned().collect(),
        };
        f.debug_struct("Sessions")
            .field("keystone", &self.keystone.base_url().as_str())
            .field("scopes", &scopes)
            .finish()
    }
}

impl Sessions {
    /// Sessions signing in at `config.auth_url`; `http` fetches catalogs.
    pub fn new(config: Arc<OpenStackConfig>, http: reqwest::Client) -> Result<Self, CloudError> {
        // A second longer than the call timeout that wraps each sign-in, whose words win.
        let mut options = config.client_options();
        options.timeout += std::time::Duration::from_secs(1);
        let keystone = keystone::Client::with_options(&config.auth_url, &options)
            .map_err(|e| CloudError::new(format!("OpenStack settings: {e}")))?;
        Ok(Sessions {
            keystone,
            http,
            config,
            slots: Mutex::default(),
        })
    }

    fn slot(&self, scope: &Scope) -> Slot {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        slots.entry(scope.clone()).or_default().clone()
    }

    /// The scope's session, signing in when there is none or it is due for renewal.
    pub async fn get(&self, scope: &Scope) -> Result<Arc<Session>, CloudError> {
        let slot = self.slot(scope);
        let mut current = slot.lock().await;
        let now = OffsetDateTime::now_utc();
        if let Some(s) = current.as_ref() {
            if now < s.renew_at {
                return Ok(s.clone());
            }
        }
        match self.sign_in(scope).await {
            Ok(fresh) => {
                let fresh = Arc::new(fresh);
                *current = Some(fresh.clone());
                Ok(fresh)
            }
            // Keystone failed at renewal while the token is still good: keep using it, and
            // try again after a while (a tenth of what is left, at least 1 s).
            Err(e) => match current.as_ref() {
                Some(s) if now < s.expires_at => {
                    let left = s.expires_at - now;
                    let again = (left / 10_i32).max(time::Duration::SECOND).min(left);
                    tracing::warn!(
                        scope = ?scope,
                        error = %e,
                        valid_for_s = left.whole_seconds(),
                        "renewing the OpenStack token failed; the current one stays in use"
                    );
                    let kept = Arc::new(Session {
                        renew_at: now + again,
                        ..Session::clone(s)
                    });
                    *current = Some(kept.clone());
                    Ok(kept)
                }
                _ => Err(e),
            },
        }
    }

    /// A new session for the scope after a service refused `stale` (401): signs in again
    /// with the same scope, unless another caller already replaced `stale`.
    pub async fn renew(
        &self,
        scope: &Scope,
        stale: &Arc<Session>,
    ) -> Result<Arc<Session>, CloudError> {
        let slot = self.slot(scope);
        let mut current = slot.lock().await;
        if let Some(s) = current.as_ref() {
            if !Arc::ptr_eq(s, stale) && OffsetDateTime::now_utc() < s.renew_at {
                return Ok(s.clone());
            }
        }
        tracing::info!(scope = ?scope, "OpenStack refused the token; signing in again");
        let fresh = Arc::new(self.sign_in(scope).await?);
        *current = Some(fresh.clone());
        Ok(fresh)
    }

    /// Password sign-in scoped to `scope`, then the token's catalog.
    async fn sign_in(&self, scope: &Scope) -> Result<Session, CloudError> {
        let c = &self.config;
        let project = match scope {
            Scope::Project(id) | Scope::User { project: id, .. } => ProjectRef::Id(id),
            Scope::Service => ProjectRef::Name {
                name: &c.project,
                domain: &c.project_domain,
            },
        };
        let (user_name, password, user_domain) = match scope {
            Scope::User { user, .. } => (&user.name, &user.password, &user.domain),
            _ => (&c.user_name, &c.password, &c.user_domain),
        };
        let auth = PasswordAuth {
            user_name,
            password,
            user_domain,
            project,
        };
        let started = OffsetDateTime::now_utc();
        let token = tokio::time::timeout(c.timeout, self.keystone.password_auth(&auth))
            .await
            .map_err(|_| timed_out("Keystone", c.timeout))?
            .map_err(|e| {
                let at = format!(" (Keystone at {})", c.auth_url);
                let hint = match (&e, scope) {
                    (keystone::Error::Unreachable(_), _) => at.as_str(),
                    (_, Scope::User { .. }) => "",
                    (keystone::Error::Unauthorized, _) => super::config::CREDENTIAL_KEYS,
                    _ => "",
                };
                let mut err = CloudError::new(format!(
                    "Signing in as {user_name} (domain {user_domain}) to project {} failed: {e}{hint}",
                    scope_name(scope, c)
                ));
                if matches!((&e, scope), (keystone::Error::Unauthorized, Scope::User { .. })) {
                    err.kind = crate::cloud::CloudErrorKind::UserRefused;
                }
                err
            })?;
        let scoped = token.project.as_ref().map(|p| p.id.clone());
        let project = match (scope, scoped) {
            (Scope::Project(want) | Scope::User { project: want, .. }, Some(got))
                if *want == got =>
            {
                got
            }
            (Scope::Service, Some(got)) => got,
            (_, got) => {
                return Err(CloudError::new(format!(
                    "Keystone scoped the token to {} instead of project {}",
                    got.as_deref().unwrap_or("no project"),
                    scope_name(scope, c)
                )))
            }
        };
        let catalog = self.catalog(&token.secret).await?;
        let lifetime = (token.expires_at - started).max(time::Duration::ZERO);
        let margin = time::Duration::try_from(c.renew_before)
            .unwrap_or(time::Duration::MAX)
            .min(lifetime / 2);
        let expires_at = token.expires_at;
        tracing::debug!(project = %project, %expires_at, "OpenStack token issued");
        Ok(Session {
            token: token.secret,
            project,
            renew_at: token.expires_at - margin,
            expires_at,
            catalog,
        })
    }

    /// The token's catalog (`GET /v3/auth/catalog`; the Keystone client asks for tokens
    /// without one).
    async fn catalog(&self, token: &TokenSecret) -> Result<Catalog, CloudError> {
        let url = self
            .keystone
            .base_url()
            .join("auth/catalog")
            .map_err(|e| CloudError::new(format!("Keystone URL: {e}")))?;
        let resp = self
            .http
            .get(url)
            .header("X-Auth-Token", secret_header(token)?)
            .send()
            .await
            .map_err(|e| transport("Keystone", &e, self.config.timeout))?;
        let status = resp.status();
        let body = resp
            .bytes()
            .await
            .map_err(|e| transport("Keystone", &e, self.config.timeout))?;
        if !status.is_success() {
            return Err(prefixed(
                answer_error(status.as_u16(), &body),
                "Reading the service catalog failed: ",
            ));
        }
        serde_json::from_slice(&body).map_err(|e| {
            CloudError::new(format!(
                "Keystone sent a catalog this provider cannot read: {e}"
            ))
        })
    }
}

fn scope_name(scope: &Scope, c: &OpenStackConfig) -> String {
    match scope {
        Scope::Project(id) | Scope::User { project: id, .. } => id.clone(),
        Scope::Service => format!("{} (domain {})", c.project, c.project_domain),
    }
}
