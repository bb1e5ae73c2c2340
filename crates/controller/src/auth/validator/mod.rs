//! `X-Auth-Token` validation against Keystone with the controller's own service
//! credentials, like keystonemiddleware: valid results are cached (keyed by a SHA-256 of
//! the token, never the token itself) for at most the configured time and never past the
//! token's expiry; Keystone unreachable fails closed; the service token renews itself when
//! it nears expiry or Keystone rejects it. Concurrent requests with the same token that
//! miss the cache share one Keystone call (a reconnecting crowd of one user's browsers
//! would otherwise ask Keystone once each, at once).

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use sha2::{Digest, Sha256};
use tokio::sync::Mutex;

use keystone::{PasswordAuth, ProjectRef, TokenSecret};

use crate::auth::Creds;
use crate::single_flight::SingleFlight;

/// The authenticated caller, as Kubernikus sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// Keystone user id.
    pub id: String,
    /// User name.
    pub name: String,
    /// The user's domain name.
    pub domain: String,
    /// Project id (the account klusters belong to).
    pub account: String,
    /// Project name.
    pub account_name: String,
    /// Roles on the project.
    pub roles: Vec<String>,
}

impl Principal {
    /// The attributes policy rules test.
    pub fn creds(&self) -> Creds {
        Creds {
            user_id: self.id.clone(),
            project_id: self.account.clone(),
            project_name: self.account_name.clone(),
            domain_name: self.domain.clone(),
            roles: self.roles.clone(),
        }
    }
}

/// Why a request is not authenticated.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum AuthError {
    /// No `X-Auth-Token` header.
    #[error("Authentication required: send a Keystone token in X-Auth-Token")]
    Missing,
    /// Keystone does not accept the token (expired, revoked or unknown).
    #[error("The token is invalid or expired")]
    Invalid,
    /// The token is not scoped to a project.
    #[error("The token is not scoped to a project: request a project-scoped token")]
    Unscoped,
    /// Keystone cannot be reached or the service credentials do not work: fail closed.
    #[error("Authentication is unavailable right now (Keystone unreachable); try again shortly")]
    Unavailable,
}

impl AuthError {
    /// The HTTP status for this error.
    pub fn status(&self) -> u16 {
        match self {
            AuthError::Unavailable => 503,
            _ => 401,
        }
    }
}

/// The controller's own Keystone user, allowed to validate other users' tokens.
/// `Debug` hides the password.
#[derive(Clone)]
pub struct ServiceCredentials {
    /// User name.
    pub user_name: String,
    /// Password (never logged: `Debug` of the validator does not show it).
    pub password: String,
    /// The user's domain name.
    pub user_domain: String,
    /// Project to scope the service token to.
    pub project: String,
    /// That project's domain name.
    pub project_domain: String,
}

impl std::fmt::Debug for ServiceCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceCredentials")
            .field("user_name", &self.user_name)
            .field("password", &"<redacted>")
            .field("user_domain", &self.user_domain)
            .field("project", &self.project)
            .finish()
    }
}

struct Cached {
    principal: Principal,
    until: Instant,
}

/// Validates user tokens; cheap to share behind an `Arc`.
pub struct TokenValidator {
    keystone: keystone::Client,
    service: ServiceCredentials,
    ttl: Duration,
    service_token: Mutex<Option<(TokenSecret, Instant)>>,
    cache: Mutex<HashMap<[u8; 32], Cached>>,
    /// Validations under way, by token key: callers with the same token wait on one.
    inflight: SingleFlight<[u8; 32], Result<Principal, AuthError>>,
}

impl std::fmt::Debug for TokenValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenValidator")
            .field("keystone", self.keystone.base_url())
            .field("service_user", &self.service.user_name)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// A service token this close to expiry is renewed before use.
const RENEW_MARGIN: Duration = Duration::from_secs(30);
/// Upper bound of the cache size; past it, expired entries are dropped (then everything).
const MAX_CACHE: usize = 50_000;

impl TokenValidator {
    /// A validator caching valid results for `ttl` (capped at 5 minutes).
    pub fn new(keystone: keystone::Client, service: ServiceCredentials, ttl: Duration) -> Self {
        Self {
            keystone,
            service,
            ttl: ttl.min(Duration::from_secs(300)),
            service_token: Mutex::new(None),
            cache: Mutex::new(HashMap::new()),
            inflight: SingleFlight::default(),
        }
    }

    fn key(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    /// The caller behind `token`.
    pub async fn principal(&self, token: Option<&str>) -> Result<Principal, AuthError> {
        let token = token
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or(AuthError::Missing)?;
        let key = Self::key(token);
        let now = Instant::now();
        if let Some(hit) = self.cache.lock().await.get(&key) {
            if hit.until > now {
                return Ok(hit.principal.clone());
            }
        }
        // Join the validation of this token under way, or start it. If the caller running
        // it goes away, the next waiter runs it.
        self.inflight
            .run(key, || self.validate(token, key, now))
            .await
    }

    /// Asks Keystone about `token` (cache key `key`, asked at `now`); caches a valid answer.
    async fn validate(
        &self,
        token: &str,
        key: [u8; 32],
        now: Instant,
    ) -> Result<Principal, AuthError> {
        let subject = TokenSecret::new(token);
        let validated = match self.validate_once(&subject, false).await {
            Err(keystone::Error::Unauthorized) => self.validate_once(&subject, true).await,
            other => other,
        };
        let t = match validated {
            Ok(t) => t,
            Err(keystone::Error::NotFound) => return Err(AuthError::Invalid),
            Err(keystone::Error::Unauthorized) | Err(keystone::Error::Forbidden(_)) => {
                tracing::error!("the controller's service user cannot validate tokens");
                return Err(AuthError::Unavailable);
            }
            Err(e) => {
                tracing::warn!(error = %e, "token validation failed");
                return Err(AuthError::Unavailable);
            }
        };
        let project = t.project.ok_or(AuthError::Unscoped)?;
        let principal = Principal {
            id: t.user.id,
            name: t.user.name,
            domain: t.user_domain.name,
            account: project.id,
            account_name: project.name,
            roles: t.roles,
        };
        let left = (t.expires_at - time_now())
            .try_into()
            .unwrap_or(Duration::ZERO);
        let until = now + self.ttl.min(left);
        let mut cache = self.cache.lock().await;
        if cache.len() >= MAX_CACHE {
            cache.retain(|_, c| c.until > now);
            if cache.len() >= MAX_CACHE {
                cache.clear();
            }
        }
        cache.insert(
            key,
            Cached {
                principal: principal.clone(),
                until,
            },
        );
        Ok(principal)
    }

    /// One validation call; `renew` forces a fresh service token first.
    async fn validate_once(
        &self,
        subject: &TokenSecret,
        renew: bool,
    ) -> Result<keystone::Token, keystone::Error> {
        let service = self.service_token(renew).await?;
        self.keystone.validate(&service, subject).await
    }

    /// The service token, renewed when missing, near expiry, or when `renew` is set.
    async fn service_token(&self, renew: bool) -> Result<TokenSecret, keystone::Error> {
        let mut slot = self.service_token.lock().await;
        if let Some((tok, expires)) = slot.as_ref() {
            if !renew && *expires > Instant::now() + RENEW_MARGIN {
                return Ok(tok.clone());
            }
        }
        let s = &self.service;
        let t = self
            .keystone
            .password_auth(&PasswordAuth {
                user_name: &s.user_name,
                password: &s.password,
                user_domain: &s.user_domain,
                project: ProjectRef::Name {
                    name: &s.project,
                    domain: &s.project_domain,
                },
            })
            .await?;
        let left: Duration = (t.expires_at - time_now())
            .try_into()
            .unwrap_or(Duration::ZERO);
        tracing::info!(valid_for_secs = left.as_secs(), "service token issued");
        *slot = Some((t.secret.clone(), Instant::now() + left));
        Ok(t.secret)
    }

    /// Whether Keystone answers (readiness).
    pub async fn keystone_reachable(&self) -> Result<(), String> {
        self.keystone.probe().await.map_err(|e| e.to_string())
    }

    /// Forgets cached validations (for tests and after a policy reload).
    pub async fn clear_cache(&self) {
        self.cache.lock().await.clear();
    }
}

fn time_now() -> time::OffsetDateTime {
    time::OffsetDateTime::now_utc()
}

#[cfg(test)]
mod tests;
