//! The authenticated caller as an extractor, the one place a request is allowed or refused
//! by the policy ([`Caller::allow`], [`denied`]: the one 403 sentence), `GET /api/v1/access`
//! (what the caller may do); the caller's user and project go into the request's slot and span
//! ([`super::request_context`]).

use axum::{
    extract::FromRequestParts, extract::State, http::request::Parts, http::StatusCode, Json,
};
use serde::Serialize;

use super::request_context::{CallerSlot, RequestSpan};
use super::{ApiError, ApiState};
use crate::auth::{Permission, Principal};

/// A request with a valid project-scoped Keystone token.
#[derive(Clone, Debug)]
pub struct Caller(pub Principal);

impl FromRequestParts<ApiState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, st: &ApiState) -> Result<Self, ApiError> {
        let token = parts
            .headers
            .get("x-auth-token")
            .and_then(|v| v.to_str().ok());
        let who = st.validator.principal(token).await?;
        if let Some(slot) = parts.extensions.get::<CallerSlot>() {
            let _ = slot.0.set((who.id.clone(), who.account.clone()));
        }
        if let Some(span) = parts.extensions.get::<RequestSpan>() {
            span.0
                .record("user", format!("{}@{}", who.name, who.domain));
            span.0.record("project", who.account.as_str());
        }
        Ok(Caller(who))
    }
}

impl Caller {
    /// The principal, if the policy grants it `permission`; else 403 saying why.
    pub fn allow(self, st: &ApiState, permission: Permission) -> Result<Principal, ApiError> {
        self.allow_to(st, permission, "This")
    }

    /// [`Caller::allow`], naming `subject` ("The simulator API") in the refusal of a group.
    pub fn allow_to(
        self,
        st: &ApiState,
        permission: Permission,
        subject: &str,
    ) -> Result<Principal, ApiError> {
        if st.permits(&self.0, permission) {
            return Ok(self.0);
        }
        Err(denied(&self.0, &[permission], subject))
    }
}

impl ApiState {
    /// Whether the policy grants `who` `permission`.
    pub fn permits(&self, who: &Principal, permission: Permission) -> bool {
        self.policy.permits(permission, &who.creds())
    }
}

/// The one 403 of the API: the operation the caller may not do, or who `subject` is for
/// (any of `needs`), with the caller's project and roles.
pub fn denied(who: &Principal, needs: &[Permission], subject: &str) -> ApiError {
    let roles = if who.roles.is_empty() {
        "none".to_string()
    } else {
        who.roles.join(", ")
    };
    let groups: Vec<&str> = needs.iter().filter_map(|p| p.group()).collect();
    let message = match (needs.first(), groups.is_empty()) {
        (Some(op), true) => format!(
            "You are not allowed to do {} in project {} (your roles: {roles})",
            op.rule(),
            who.account_name
        ),
        _ => format!(
            "{subject} is for {}; you are signed in to project {} (your roles: {roles})",
            groups.join(" and "),
            who.account_name
        ),
    };
    ApiError::new(StatusCode::FORBIDDEN, message)
}

/// What `GET /api/v1/access` answers (a Mission Control extension).
#[derive(Debug, Serialize)]
pub struct Access {
    /// The project the token is scoped to.
    pub project: String,
    /// The policy rules the caller passes, by their names in the policy file.
    pub granted: Vec<&'static str>,
}

/// `GET /api/v1/access`: which of the policy's rules the caller passes, so a dashboard shows
/// what the API allows without deciding it itself.
pub async fn access(State(st): State<ApiState>, Caller(who): Caller) -> Json<Access> {
    let granted = st.policy.granted(&who.creds());
    Json(Access {
        project: who.account,
        granted: granted.into_iter().map(Permission::rule).collect(),
    })
}
