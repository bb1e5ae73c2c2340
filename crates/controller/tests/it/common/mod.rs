//! Shared helpers of the controller's integration tests: the real router over a fresh SQLite
//! store, tokens from the real local Keystone, and request helpers.

pub mod dying;
pub mod openstack;
pub mod pg;
pub mod world;

use std::sync::Arc;
use std::time::Duration;

use axum::{body::Body, http::Request, Router};
use controller::api::{router, ApiSettings, ApiState};
use controller::auth::{Policy, ServiceCredentials, TokenValidator};
use controller::store::Store;
use serde_json::{json, Value};
use tower::ServiceExt;

/// The Keystone under test.
pub fn url() -> String {
    std::env::var("MC_TEST_KEYSTONE_URL")
        .expect("MC_TEST_KEYSTONE_URL is not set: run the suite with scripts/test")
}

/// The settings the tests run with: the defaults, with the simulator API on.
pub fn test_settings() -> ApiSettings {
    ApiSettings {
        simulator_api: true,
        ..ApiSettings::default()
    }
}

pub async fn app_with(keystone_url: &str) -> (Router, Store) {
    app_with_settings(keystone_url, test_settings()).await
}

pub async fn app_with_settings(keystone_url: &str, settings: ApiSettings) -> (Router, Store) {
    app_custom(keystone_url, settings, Duration::from_secs(60)).await
}

/// The router with `settings`, trusting validated tokens for `token_cache`.
pub async fn app_custom(
    keystone_url: &str,
    settings: ApiSettings,
    token_cache: Duration,
) -> (Router, Store) {
    app_with_policy(keystone_url, settings, token_cache, Policy::kubernikus()).await
}

/// [`app_custom`] enforcing `policy`.
pub async fn app_with_policy(
    keystone_url: &str,
    settings: ApiSettings,
    token_cache: Duration,
    policy: Policy,
) -> (Router, Store) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("mc-api-{}-{n}.db", std::process::id()));
    for s in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", path.display()));
    }
    let store = Store::open(&path).await.unwrap();
    let validator = TokenValidator::new(
        keystone::Client::new(keystone_url).unwrap(),
        service("mission-control-secret"),
        token_cache,
    );
    let sim = controller::cloud::sim::SimCloud::new(
        controller::cloud::sim::SimConfig::scaled(Duration::from_secs(1)),
        controller::cloud::sim::Clock::real(),
    );
    let state = ApiState {
        store: store.clone(),
        validator: Arc::new(validator),
        policy: Arc::new(policy),
        settings: Arc::new(settings),
        sealer: Arc::new(controller::pki::Sealer::new(&[42u8; 32])),
        cloud: Arc::new(sim.clone()),
        simulator: Some(sim),
        stop: controller::run::Shutdown::new(std::future::pending()),
        metrics: Default::default(),
    };
    (router(state), store)
}

pub async fn app() -> Router {
    app_with(&url()).await.0
}

/// A controller on a free loopback port with its store in `dir`, the seeded service user,
/// the Keystone at `keystone_url`, and a fast simulation (control planes take `phase`,
/// passes every 100 ms).
pub fn fast_controller(
    keystone_url: &str,
    dir: &std::path::Path,
    phase: Duration,
) -> controller::run::ControllerConfig {
    controller::run::ControllerConfig {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        keystone_url: keystone_url.to_string(),
        service: service("mission-control-secret"),
        database: controller::store::Database::Sqlite(dir.join("controller.db")),
        policy_file: None,
        token_cache: Duration::from_secs(60),
        settings: test_settings(),
        ca_key: controller::pki::SealKey([9; 32]),
        cloud: Default::default(),
        tuning: controller::run::Tuning {
            reconcile_every: Duration::from_millis(100),
            resync_every: Duration::from_millis(100) * controller::reconcile::FULL_RESYNC_POLLS,
            ..controller::run::Tuning::scaled(phase)
        },
    }
}

/// The seeded service user, with `password` (tests pass a wrong one on purpose).
pub fn service(password: &str) -> ServiceCredentials {
    ServiceCredentials {
        user_name: "mission-control".into(),
        password: password.into(),
        user_domain: "Default".into(),
        project: "service".into(),
        project_domain: "Default".into(),
    }
}

/// A token of demo user `user` (password `<user>-secret`) scoped to `project`, issued by
/// the Keystone at `keystone_url`.
pub async fn demo_token(keystone_url: &str, user: &str, project: &str) -> keystone::TokenSecret {
    let password = format!("{user}-secret");
    keystone::Client::new(keystone_url)
        .unwrap()
        .password_auth(&keystone::PasswordAuth {
            user_name: user,
            password: &password,
            user_domain: "demo",
            project: keystone::ProjectRef::Name {
                name: project,
                domain: "demo",
            },
        })
        .await
        .expect("demo user signs in")
        .secret
}

/// [`demo_token`] from the Keystone under test, as a string.
pub async fn token(user: &str, project: &str) -> String {
    demo_token(&url(), user, project).await.expose().to_string()
}

pub async fn call(
    app: &Router,
    method: &str,
    path: &str,
    tok: Option<&str>,
    body: Option<String>,
) -> (u16, Value) {
    let (status, _, v) = call_with(app, method, path, tok, &[], body).await;
    (status, v)
}

/// [`call`] with extra request headers, answering the response's headers too.
pub async fn call_with(
    app: &Router,
    method: &str,
    path: &str,
    tok: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> (u16, axum::http::HeaderMap, Value) {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json");
    if let Some(t) = tok {
        req = req.header("x-auth-token", t);
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req
        .body(body.map(Body::from).unwrap_or_else(Body::empty))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    let v = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into()))
    };
    (status, headers, v)
}

/// The project id a user token is scoped to.
pub async fn account_of(token: &str) -> String {
    let t = keystone::TokenSecret::new(token);
    let seen = keystone::Client::new(&url())
        .unwrap()
        .validate(&t, &t)
        .await
        .unwrap();
    seen.project.unwrap().id
}

/// `POST /api/v1/clusters` with `body`.
pub async fn create(app: &Router, tok: &str, body: String) -> (u16, Value) {
    call(app, "POST", "/api/v1/clusters", Some(tok), Some(body)).await
}

pub fn kluster(name: &str, cluster_cidr: Option<&str>) -> String {
    let mut k = json!({"name": name, "spec": {"nodePools": [{"name": "small", "size": 2, "flavor": "m1.small", "availabilityZone": "az-a"}]}});
    if let Some(c) = cluster_cidr {
        k["spec"]["clusterCIDR"] = json!(c);
    }
    k.to_string()
}

pub fn assert_error(v: &Value, code: u16, needle: &str) {
    assert_eq!(v["code"], json!(code), "{v}");
    let m = v["message"].as_str().unwrap_or_default();
    assert!(m.contains(needle), "message {m:?} lacks {needle:?}");
}

/// A token of Kubernikus's cloud admin: user admin scoped to project cloud_admin (Default).
pub async fn cloud_admin_token() -> String {
    keystone::Client::new(&url())
        .unwrap()
        .password_auth(&keystone::PasswordAuth {
            user_name: "admin",
            password: "admin-secret",
            user_domain: "Default",
            project: keystone::ProjectRef::Name {
                name: "cloud_admin",
                domain: "Default",
            },
        })
        .await
        .expect("the seeded cloud admin signs in")
        .secret
        .expose()
        .to_string()
}

/// Project passes the reconcile loop has finished: the pass-duration histogram's count in
/// Prometheus text `metrics`.
pub fn passes_in(metrics: &str) -> u64 {
    metrics
        .lines()
        .filter(|l| l.starts_with("mc_controller_reconcile_pass_duration_seconds_count"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// [`passes_in`] of the running controller at `base` (its `/metrics`).
pub async fn reconcile_passes(base: &str) -> u64 {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    passes_in(&text)
}
