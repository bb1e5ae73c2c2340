//! The auth record kept in the server-side session, and the check every page and server
//! function makes: signed in, not past the absolute expiry, token still accepted.

use std::time::Duration;

use kubernikus_policy::{Creds, Permission, Policy};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use tower_sessions::Session;

use crate::error::AppError;
use crate::model::SessionInfo;
use crate::ssr::AppState;

/// The catalog's service type of the Kubernikus API.
pub const KUBERNIKUS: &str = "kubernikus";

/// Session key of the [`AuthRecord`].
pub const AUTH_KEY: &str = "auth";

/// What the session knows about the signed-in user. Stored server-side only.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AuthRecord {
    /// The project-scoped Keystone token (redacted in `Debug`).
    pub token: keystone::TokenSecret,
    /// The password token this one was rescoped from, if any: revoking it at sign-out
    /// revokes the whole chain (Keystone revokes rescoped children with their parent).
    #[serde(default)]
    pub root_token: Option<keystone::TokenSecret>,
    /// Keystone user id.
    pub user_id: String,
    /// Keystone user name.
    pub user_name: String,
    /// Name of the user's domain.
    pub user_domain: String,
    /// Scoped project id.
    pub project_id: String,
    /// Scoped project name.
    pub project_name: String,
    /// Roles on the project.
    pub roles: Vec<String>,
    /// What the controller's policy grants in the project ([`AuthRecord::ask_grants`]);
    /// `None` in a record written before the dashboard asked (asked at its next check).
    #[serde(default)]
    pub granted: Option<Vec<Permission>>,
    /// `granted` is the default policy's guess while the controller did not answer: asked
    /// again with the next token re-check.
    #[serde(default)]
    pub grants_provisional: bool,
    /// The regions whose Kubernikus API the token's catalog lists (with `controller_url =
    /// "catalog"`; empty otherwise), sorted by name.
    #[serde(default)]
    pub regions: Vec<keystone::RegionalEndpoint>,
    /// The region the session works in: one of `regions` (`None` without them).
    #[serde(default)]
    pub region: Option<String>,
    /// The session ends at this time at the latest (token expiry or max lifetime).
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
    /// Last time Keystone confirmed the token.
    #[serde(with = "time::serde::rfc3339")]
    pub checked_at: OffsetDateTime,
}

impl AuthRecord {
    /// Builds the record for a fresh project-scoped token at `now`; `max_lifetime` caps the
    /// expiry.
    pub fn from_token(
        token: keystone::Token,
        max_lifetime: Duration,
        now: OffsetDateTime,
    ) -> Result<Self, AppError> {
        let cap = now + max_lifetime;
        let project = token.project.ok_or_else(|| {
            AppError::BadInput("Keystone returned a token without a project scope.".into())
        })?;
        Ok(Self {
            token: token.secret,
            root_token: None,
            user_id: token.user.id,
            user_name: token.user.name,
            user_domain: token.user_domain.name,
            project_id: project.id,
            project_name: project.name,
            roles: token.roles,
            granted: None,
            grants_provisional: false,
            regions: Vec::new(),
            region: None,
            expires_at: token.expires_at.min(cap),
            checked_at: now,
        })
    }

    /// Whether the controller's policy grants this session `permission`.
    pub fn may(&self, permission: Permission) -> bool {
        self.granted
            .as_ref()
            .is_some_and(|g| g.contains(&permission))
    }

    /// Asks the controller what its policy grants this token (`GET /api/v1/access`). A
    /// Kubernikus without that extension (404) leaves the default Kubernikus policy's answer
    /// for the token's roles; a controller that does not answer leaves the same answer for
    /// now, asked again with the next token re-check. The API still decides every call: this only
    /// chooses what the pages offer.
    pub async fn ask_grants(&mut self, st: &AppState) {
        self.grants_provisional = false;
        let access = match st.controller_for(self) {
            Ok(c) => c.access(&self.token).await.map_err(Some),
            Err(_) => Err(None), // no region: the pages say so; the default policy guesses
        };
        let granted = match access {
            Ok(a) => a
                .granted
                .iter()
                .filter_map(|name| Permission::from_rule(name))
                .collect(),
            Err(e) => {
                if let Some(e) = e.filter(|e| e.status() != Some(404)) {
                    self.grants_provisional = true;
                    tracing::warn!(error = %e, "the controller did not say what the session may do; the default policy decides what the pages offer");
                }
                Policy::kubernikus().granted(&Creds {
                    user_id: self.user_id.clone(),
                    project_id: self.project_id.clone(),
                    project_name: self.project_name.clone(),
                    domain_name: self.user_domain.clone(),
                    roles: self.roles.clone(),
                })
            }
        };
        self.granted = Some(granted);
    }

    /// With regions from the catalog (`st.regional`): reads the token's catalog for the
    /// Kubernikus API of each region, and works in `prefer` if it is one of them, else in
    /// the first. Call it before [`AuthRecord::ask_grants`]: the region's controller answers.
    pub async fn find_regions(
        &mut self,
        st: &AppState,
        prefer: Option<&str>,
    ) -> Result<(), AppError> {
        let Some(interface) = &st.regional else {
            return Ok(());
        };
        let catalog = st
            .keystone
            .auth_catalog(&self.token)
            .await
            .map_err(crate::ssr::keystone_error)?;
        self.regions = keystone::regional_endpoints(&catalog, KUBERNIKUS, interface);
        let keep = prefer.filter(|p| self.regions.iter().any(|r| r.region == *p));
        self.region = keep
            .map(str::to_string)
            .or_else(|| self.regions.first().map(|r| r.region.clone()));
        Ok(())
    }

    /// Works in region `name` from now on, or says which regions there are.
    pub fn choose_region(&mut self, name: &str) -> Result<(), AppError> {
        if self.regions.iter().any(|r| r.region == name) {
            self.region = Some(name.to_string());
            return Ok(());
        }
        let known: Vec<&str> = self.regions.iter().map(|r| r.region.as_str()).collect();
        let shown: String = name.chars().take(64).filter(|c| !c.is_control()).collect();
        Err(AppError::BadInput(if known.is_empty() {
            format!("There is no region {shown:?}: your catalog lists no Kubernikus service.")
        } else {
            format!(
                "There is no region {shown:?} with a Kubernikus service in your catalog; yours: {}.",
                known.join(", ")
            )
        }))
    }

    /// The Kubernikus API of the session's region: `Ok(None)` without regions from the
    /// catalog (the one configured controller answers).
    pub fn region_url(&self, st: &AppState) -> Result<Option<&str>, AppError> {
        if st.regional.is_none() {
            return Ok(None);
        }
        self.region_endpoint()
            .map(|r| Some(r.url.as_str()))
            .ok_or_else(|| {
                AppError::NotFound(
                    "Your project's catalog lists no Kubernikus service (type kubernikus) in any \
                     region: ask your cloud's operators to register one."
                        .into(),
                )
            })
    }

    /// The session's region and its Kubernikus API, if it has one.
    pub fn region_endpoint(&self) -> Option<&keystone::RegionalEndpoint> {
        let name = self.region.as_deref()?;
        self.regions.iter().find(|r| r.region == name)
    }

    /// What the UI may see of this record (no token).
    pub fn info(&self) -> SessionInfo {
        SessionInfo {
            user_name: self.user_name.clone(),
            user_domain: self.user_domain.clone(),
            project_id: self.project_id.clone(),
            project_name: self.project_name.clone(),
            roles: self.roles.clone(),
            granted: self.granted.clone().unwrap_or_default(),
            region: self.region.clone(),
            regions: self.regions.iter().map(|r| r.region.clone()).collect(),
            expires_at: self
                .expires_at
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
        }
    }
}

/// The request's session (inserted by the tower-sessions layer).
pub async fn session() -> Result<Session, AppError> {
    leptos_axum::extract::<Session>().await.map_err(|e| {
        tracing::error!(error = %e, "no session layer on this request");
        AppError::Internal
    })
}

/// The signed-in user's record, or `None` when nobody is signed in. Ends the session (and
/// answers [`AppError::SessionExpired`]) when it is past its expiry or Keystone no longer
/// accepts the token; re-checks with Keystone at most every `revalidate_after`.
/// (`st` is passed in: Leptos context is not reachable after an `.await` during SSR.)
pub async fn current(session: &Session, st: &AppState) -> Result<Option<AuthRecord>, AppError> {
    check(session, st, true).await
}

/// [`current`], ending the session only when `end_it`.
async fn check(
    session: &Session,
    st: &AppState,
    end_it: bool,
) -> Result<Option<AuthRecord>, AppError> {
    let Some(mut rec) = session
        .get::<AuthRecord>(AUTH_KEY)
        .await
        .map_err(store_error)?
    else {
        return Ok(None);
    };
    st.record_caller(&rec);
    let now = crate::ssr::now_utc(&st.clock);
    if now >= rec.expires_at {
        if end_it {
            end(session).await;
        }
        return Err(AppError::SessionExpired);
    }
    if rec.granted.is_none() {
        rec.ask_grants(st).await;
        session.insert(AUTH_KEY, &rec).await.map_err(store_error)?;
    }
    if now - rec.checked_at >= st.revalidate_after {
        // One question to Keystone per token and interval, however many calls need it.
        if st
            .token_checks
            .accepted(&st.keystone, &rec.token, st.revalidate_after, &st.clock)
            .await?
        {
            rec.checked_at = now;
            if rec.grants_provisional {
                rec.ask_grants(st).await; // the controller did not answer last time
            }
            session.insert(AUTH_KEY, &rec).await.map_err(store_error)?;
        } else {
            if end_it {
                end(session).await;
            }
            return Err(AppError::SessionExpired);
        }
    }
    Ok(Some(rec))
}

/// Like [`current`], but a missing session is [`AppError::NotSignedIn`], and an expired or
/// revoked one is answered [`AppError::SessionExpired`] without being ended: a page's
/// server functions run beside its frame's [`current`] (the session check that sends the
/// visitor to the login page, and ends the session), and one ending it first would make
/// that check see nobody signed in instead of an ended session.
pub async fn require(session: &Session, st: &AppState) -> Result<AuthRecord, AppError> {
    check(session, st, false)
        .await?
        .ok_or(AppError::NotSignedIn)
}

/// Deletes the session from the store and clears the cookie.
pub async fn end(session: &Session) {
    if let Err(e) = session.flush().await {
        tracing::warn!(error = %e, "could not delete session");
    }
}

/// Logs a session-store fault without its details reaching the user.
pub fn store_error(e: tower_sessions::session::Error) -> AppError {
    tracing::error!(error = %e, "session store error");
    AppError::Internal
}

#[cfg(test)]
mod tests {
    use super::AuthRecord;
    use crate::error::AppError;

    fn record(regions: &[&str]) -> AuthRecord {
        let regions: Vec<_> = regions
            .iter()
            .map(|r| serde_json::json!({"region": r, "url": format!("http://{r}.example")}))
            .collect();
        serde_json::from_value(serde_json::json!({
            "token": "t", "user_id": "u", "user_name": "alice", "user_domain": "demo",
            "project_id": "p", "project_name": "demo", "roles": [],
            "expires_at": "2030-01-01T00:00:00Z", "checked_at": "2030-01-01T00:00:00Z",
            "regions": regions, "region": regions.first().map(|r| r["region"].clone()),
        }))
        .unwrap_or_else(|e| panic!("a record: {e}"))
    }

    #[test]
    fn a_region_is_chosen_only_from_the_catalog_and_refused_in_words() {
        let mut rec = record(&["RegionOne", "RegionTwo"]);
        assert_eq!(
            rec.region_endpoint().map(|r| r.url.as_str()),
            Some("http://RegionOne.example")
        );
        rec.choose_region("RegionTwo")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            rec.region_endpoint().map(|r| r.url.as_str()),
            Some("http://RegionTwo.example")
        );
        let Err(AppError::BadInput(m)) = rec.choose_region("Atlantis") else {
            panic!("an unknown region is bad input")
        };
        assert_eq!(
            m,
            "There is no region \"Atlantis\" with a Kubernikus service in your catalog; yours: RegionOne, RegionTwo."
        );
        assert_eq!(rec.region.as_deref(), Some("RegionTwo"), "nothing changed");
        // A record written before regions (or without them) has no region to work in.
        let mut none = record(&[]);
        assert!(none.region_endpoint().is_none());
        assert!(
            matches!(none.choose_region("RegionOne"), Err(AppError::BadInput(m)) if m.contains("lists no Kubernikus"))
        );
    }
}
