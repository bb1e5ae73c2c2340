//! The Kubernikus REST API (axum): one handler per swagger operation, authenticated with
//! Keystone and authorized by policy.

mod clusters;
mod error;
mod meta;

use std::sync::Arc;

use axum::{extract::DefaultBodyLimit, http::HeaderMap, http::StatusCode, routing::get, Router};

pub use error::ApiError;

use crate::auth::{Policy, Principal, TokenValidator};
use crate::store::Store;

/// Versions and ranges the API works with.
#[derive(Clone, Debug)]
pub struct ApiSettings {
    /// Version of klusters created without one.
    pub default_version: String,
    /// Versions klusters may run.
    pub supported_versions: Vec<String>,
    /// Versions new klusters may be created with (empty: any valid version).
    pub available_versions: Vec<String>,
    /// The control plane's own ranges; kluster CIDRs must not overlap them.
    pub reserved_cidrs: Vec<String>,
}

impl Default for ApiSettings {
    fn default() -> Self {
        let versions = vec![
            "1.32.4".to_string(),
            "1.31.8".to_string(),
            "1.30.12".to_string(),
        ];
        Self {
            default_version: "1.32.4".into(),
            supported_versions: versions.clone(),
            available_versions: versions,
            reserved_cidrs: vec!["198.19.0.0/16".into()],
        }
    }
}

/// What every handler needs.
#[derive(Clone, Debug)]
pub struct ApiState {
    /// The database.
    pub store: Store,
    /// Keystone token validation.
    pub validator: Arc<TokenValidator>,
    /// Authorization rules.
    pub policy: Arc<Policy>,
    /// Versions and ranges.
    pub settings: Arc<ApiSettings>,
}

/// Request bodies above this size are refused with 413.
pub const BODY_LIMIT: usize = 1 << 20;

/// The API router.
pub fn router(state: ApiState) -> Router {
    Router::new()
        .route("/info", get(meta::info))
        .route("/api", get(meta::api_versions))
        .route(
            "/api/v1/clusters",
            get(clusters::list).post(clusters::create),
        )
        .route(
            "/api/v1/clusters/{name}",
            get(clusters::show)
                .put(clusters::update)
                .delete(clusters::terminate),
        )
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "No such API path") })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

/// Authenticates the caller and checks `operation` against the policy.
pub async fn authorize(
    st: &ApiState,
    headers: &HeaderMap,
    operation: &str,
) -> Result<Principal, ApiError> {
    let token = headers.get("x-auth-token").and_then(|v| v.to_str().ok());
    let who = st.validator.principal(token).await?;
    if !st.policy.allows(operation, &who.creds()) {
        let roles = if who.roles.is_empty() {
            "none".to_string()
        } else {
            who.roles.join(", ")
        };
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "You are not allowed to do {operation} in project {} (your roles: {roles})",
                who.account_name
            ),
        ));
    }
    Ok(who)
}
