//! What the benches on the real test OpenStack share: its settings from the environment, an
//! in-process controller on it, and that controller's kluster API as alice.

use std::path::Path;
use std::time::Duration;

use controller::cloud::choice::CloudChoice;
use controller::cloud::openstack::OpenStackConfig;
use serde_json::Value;

/// `MC_TEST_OS_<name>`, or `fallback`.
pub fn os(name: &str, fallback: &str) -> String {
    std::env::var(format!("MC_TEST_OS_{name}")).unwrap_or_else(|_| fallback.into())
}

/// A count from the environment, or `default`.
pub fn count(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The controller's service user's password (`demo.env`).
pub fn service_password() -> String {
    std::env::var("KS_SERVICE_PASSWORD").unwrap_or("mission-control-secret".into())
}

/// A controller's configuration on the test cloud at `auth_url` (region
/// `MC_TEST_OS_REGION`), as its service user, its store in `dir`, paced by `tuning`.
pub fn config(
    auth_url: &str,
    dir: &Path,
    tuning: controller::run::Tuning,
) -> controller::run::ControllerConfig {
    let password = service_password();
    let mut cloud =
        OpenStackConfig::new(auth_url, "mission-control", &password, "Default", "service");
    cloud.region = os("REGION", "");
    controller::run::ControllerConfig {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        keystone_url: auth_url.to_string(),
        service: controller::auth::ServiceCredentials {
            user_name: "mission-control".into(),
            password,
            user_domain: "Default".into(),
            project: "service".into(),
            project_domain: "Default".into(),
        },
        database: controller::store::Database::Sqlite(dir.join("controller.db")),
        policy_file: None,
        token_cache: Duration::from_secs(300),
        settings: Default::default(),
        ca_key: controller::pki::SealKey([7; 32]),
        cloud: CloudChoice::OpenStack(Box::new(cloud)),
        tuning,
    }
}

/// The controller's kluster API at `base`, called as alice.
pub struct Api {
    /// The connection pool.
    pub http: reqwest::Client,
    /// `http://<addr>`.
    pub base: String,
    /// Alice's token.
    pub token: String,
}

impl Api {
    /// `method /api/v1/clusters/<name>` with `body`: the status.
    pub async fn send(&self, method: reqwest::Method, name: &str, body: Option<Value>) -> u16 {
        let url = format!("{}/api/v1/clusters/{name}", self.base);
        let mut req = self
            .http
            .request(method, url.trim_end_matches('/'))
            .header("X-Auth-Token", &self.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        req.send()
            .await
            .expect("the controller answers")
            .status()
            .as_u16()
    }
}
