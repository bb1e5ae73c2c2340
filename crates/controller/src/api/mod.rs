//! The Kubernikus REST API (axum): one handler per swagger operation, authenticated with
//! Keystone and authorized by policy.

mod admin;
mod admission;
mod audit;
mod caller;
mod catalog;
mod clusters;
mod error;
mod events;
mod health;
mod meta;
mod ops;
mod protection;
mod quota;
mod request_context;
mod simulator;
mod versions;

use std::sync::Arc;

use axum::{
    extract::DefaultBodyLimit,
    http::{header, HeaderName, HeaderValue, Method, StatusCode},
    routing::{any, get, put},
    Router,
};
use tower_http::cors::{AllowOrigin, CorsLayer};

pub use audit::classify;
pub use caller::Caller;
pub use error::ApiError;
pub use request_context::{CallerSlot, RequestId};
pub use serving::request::{is_probe, new_request_id, valid_request_id, REQUEST_ID};

use crate::auth::{Policy, TokenValidator};
use crate::cloud::sim::SimCloud;
use crate::cloud::Cloud;
use crate::pki::Sealer;
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
    /// Browser origins allowed by CORS (empty: none).
    pub cors_origins: Vec<String>,
    /// Keystone URL users authenticate against (for the setup command).
    pub auth_url: String,
    /// This API's URL as users reach it (for the setup command); empty: the listen address.
    pub public_url: String,
    /// Where kubernikusctl builds are published (`<url>/<os>/amd64/kubernikusctl`), listed
    /// in a kluster's info; empty: none listed.
    pub binaries_url: String,
    /// Klusters' apiservers are `https://<name>-<project id>.<apiserver_domain>`.
    pub apiserver_domain: String,
    /// Serve `/api/v1/simulator*` (the simulated cloud's faults and limits, for cloud
    /// admins); off: those paths answer 404. Off by default: an operator turns it on.
    pub simulator_api: bool,
    /// How often an open event stream re-checks its caller's token.
    pub stream_recheck: std::time::Duration,
    /// Peers (the dashboards) whose `X-Forwarded-For` names the client in audit records;
    /// empty: the peer is the client.
    pub trusted_proxies: crate::net::TrustedProxies,
    /// A kluster Creating or Terminating this long is listed as stuck in the operator view.
    pub stuck_after: std::time::Duration,
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
            cors_origins: Vec::new(),
            auth_url: "http://127.0.0.1:5000/v3".into(),
            public_url: String::new(),
            binaries_url: String::new(),
            apiserver_domain: "kluster.mission-control.local".into(),
            simulator_api: false,
            stream_recheck: std::time::Duration::from_secs(60),
            trusted_proxies: Default::default(),
            stuck_after: std::time::Duration::from_secs(30 * 60),
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
    /// Seals and opens the klusters' CA keys.
    pub sealer: Arc<Sealer>,
    /// The cloud klusters live in.
    pub cloud: Arc<dyn Cloud>,
    /// The simulator's own handle (faults and limits) when the cloud is simulated.
    pub simulator: Option<SimCloud>,
    /// Completes on shutdown (long-lived streams end then).
    pub stop: crate::shutdown::Shutdown,
    /// Prometheus metrics (`GET /metrics`).
    pub metrics: Arc<crate::metrics::Metrics>,
}

/// Request bodies above this size are refused with 413.
pub const BODY_LIMIT: usize = 1 << 20;

/// The API router with its layers: body limit, CORS as Kubernikus (`X-Auth-Token`,
/// `Content-Type`, `Accept`; and `If-Match` in, `ETag` out), request id and access log
/// (outermost).
pub fn router(state: ApiState) -> Router {
    let origins: Vec<HeaderValue> = state
        .settings
        .cors_origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    let cors = CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([Method::GET, Method::POST, Method::PUT, Method::DELETE])
        .allow_headers([
            HeaderName::from_static("x-auth-token"),
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::IF_MATCH,
        ])
        .expose_headers([REQUEST_ID.clone(), header::ETAG]);
    Router::<ApiState>::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/", get(meta::paths))
        .route("/docs", get(meta::docs))
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
        .route("/api/v1/openstack/metadata", get(meta::openstack_metadata))
        .route("/api/v1/openstack/quota", get(quota::quota))
        .route("/api/v1/events", get(events::list))
        .route("/api/v1/access", get(caller::access))
        .route("/api/v1/audit", get(audit::list))
        .route("/api/v1/ops/events", get(ops::events))
        .route("/api/v1/ops/attention", get(ops::attention))
        .route("/api/v1/ops/quotas", get(ops::quotas))
        .route("/api/v1/events/stream", get(events::stream))
        .route("/api/v1/clusters/{name}/events", get(clusters::events))
        .route("/api/v1/clusters/{name}/bootstrap", get(admin::bootstrap))
        .route(
            "/api/v1/clusters/{name}/kubeadmsecret",
            get(admin::kubeadm_secret),
        )
        .route(
            "/api/v1/{account}/clusters/{name}/values",
            get(admin::values),
        )
        .route("/api/v1/clusters/{name}/info", get(clusters::info))
        .route(
            "/api/v1/clusters/{name}/termination-protection",
            put(protection::set),
        )
        .route(
            "/api/v1/clusters/{name}/credentials",
            get(clusters::credentials),
        )
        .route(
            "/api/v1/clusters/{name}/credentials/oidc",
            get(clusters::credentials_oidc),
        )
        .merge(simulator_routes(state.settings.simulator_api))
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "No such API path; GET / lists them")
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(cors)
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.http.clone(),
            crate::metrics::track_http,
        ))
        .layer(axum::middleware::from_fn(request_context::request_context))
        .with_state(state)
}

/// `/api/v1/simulator*`: the simulator's routes when the operator enabled them, else a 404
/// in words for every path under it.
fn simulator_routes(enabled: bool) -> Router<ApiState> {
    if enabled {
        Router::new()
            .route(
                "/api/v1/simulator",
                get(simulator::get_simulator).put(simulator::put_simulator),
            )
            .route("/api/v1/simulator/debris/{kluster}", get(simulator::debris))
    } else {
        Router::new()
            .route("/api/v1/simulator", any(simulator::simulator_disabled))
            .route(
                "/api/v1/simulator/{*rest}",
                any(simulator::simulator_disabled),
            )
    }
}
