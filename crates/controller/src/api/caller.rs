//! The authenticated caller as an extractor, and the per-request slot the access log reads
//! the caller's user and project from.

use std::sync::{Arc, OnceLock};

use axum::{extract::FromRequestParts, http::request::Parts, http::StatusCode};

use super::{ApiError, ApiState};
use crate::auth::Principal;

/// Filled with (user id, project id) once a request is authenticated.
#[derive(Clone, Debug, Default)]
pub struct CallerSlot(pub Arc<OnceLock<(String, String)>>);

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
        if let Some(span) = parts.extensions.get::<super::hygiene::RequestSpan>() {
            span.0
                .record("user", format!("{}@{}", who.name, who.domain));
            span.0.record("project", who.account.as_str());
        }
        Ok(Caller(who))
    }
}

impl Caller {
    /// The principal, if the policy allows it `operation`; else 403 with the reason.
    pub fn allow(self, st: &ApiState, operation: &str) -> Result<Principal, ApiError> {
        let who = self.0;
        if st.policy.allows(operation, &who.creds()) {
            return Ok(who);
        }
        let roles = if who.roles.is_empty() {
            "none".to_string()
        } else {
            who.roles.join(", ")
        };
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "You are not allowed to do {operation} in project {} (your roles: {roles})",
                who.account_name
            ),
        ))
    }
}
