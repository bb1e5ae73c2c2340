//! The real test OpenStack (`scripts/openstack.sh`) for the tests that use it: its settings
//! from `MC_TEST_OS_*`, a controller on it, Nova and Neutron seen directly, and a kluster's
//! read and scale.

use std::future::Future;
use std::time::Duration;

use controller::cloud::choice::CloudChoice;
use controller::cloud::openstack::OpenStackConfig;
use serde_json::{json, Value};

/// `MC_TEST_OS_<name>`; `None` when unset.
pub fn env(name: &str) -> Option<String> {
    std::env::var(format!("MC_TEST_OS_{name}")).ok()
}

/// The test cloud's settings, or why the test is skipped.
pub fn cloud_env() -> Option<String> {
    let auth = env("AUTH_URL");
    if auth.is_none() {
        eprintln!(
            "skipped: MC_TEST_OS_AUTH_URL is unset (run scripts/openstack.sh start, then \
             eval \"$(scripts/openstack.sh env)\"; scripts/test does both)"
        );
    }
    auth
}

/// The controller's OpenStack settings: its service user, whose admin role on demo
/// `scripts/openstack.sh` granted.
pub fn openstack(auth_url: &str, password: &str, region: &str) -> CloudChoice {
    let mut c = OpenStackConfig::new(auth_url, "mission-control", password, "Default", "service");
    c.region = region.into();
    c.timeout = Duration::from_secs(20);
    CloudChoice::OpenStack(Box::new(c))
}

/// A controller on the real cloud, its store in a fresh temporary directory.
pub async fn start(auth_url: &str, cloud: CloudChoice, tag: &str) -> controller::run::Running {
    start_tuned(auth_url, cloud, tag, |_| {}).await
}

/// [`start`], its configuration changed by `tune` last.
pub async fn start_tuned(
    auth_url: &str,
    cloud: CloudChoice,
    tag: &str,
    tune: impl FnOnce(&mut controller::run::ControllerConfig),
) -> controller::run::Running {
    let dir = std::env::temp_dir().join(format!("mc-os-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut config = super::fast_controller(auth_url, &dir, Duration::from_secs(2));
    config.cloud = cloud;
    config.tuning.reconcile_every = Duration::from_millis(500);
    config.tuning.call_timeout = Duration::from_secs(20);
    config.tuning.project_budget = Duration::from_secs(60);
    // A pool whose servers fail waits 3 s, doubling up to 12 s (30 s to 5 min in use).
    config.tuning.timing.create_retry = Duration::from_secs(3);
    config.tuning.timing.create_retry_cap = Duration::from_secs(12);
    tune(&mut config);
    controller::run::start(config, std::future::pending())
        .await
        .expect("controller starts")
}

/// The tests on the real cloud run one at a time in this binary, as they did when each file
/// was a binary of its own: they share the projects' quota, and some kill the cloud's
/// services. Each holds the guard for its whole run.
pub static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Polls `probe` until it answers `Some` (testkit's pauses), failing after `limit` with
/// `what`.
pub async fn until<T, F, Fut>(limit: Duration, what: &str, probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    testkit::eventually(limit, what, probe).await
}

/// Nova and Neutron as alice (member of demo) sees them, straight, not through the
/// controller.
pub struct Direct {
    /// The client.
    pub http: reqwest::Client,
    /// A token of the user, scoped to the project.
    pub token: String,
    /// Nova's endpoint.
    pub compute: String,
    /// Neutron's endpoint.
    pub network: String,
}

impl Direct {
    /// `GET url` with the token: the status and the JSON body (`Null` if none).
    pub async fn get(&self, url: String) -> (u16, Value) {
        let r = self
            .http
            .get(url)
            .header("X-Auth-Token", &self.token)
            .header("OpenStack-API-Version", "compute 2.67")
            .header("Connection", "close")
            .send()
            .await
            .expect("OpenStack answers");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// The servers of kluster `k` that are not being deleted.
    pub async fn servers(&self, k: &str) -> Vec<Value> {
        let (status, v) = self
            .get(format!("{}/servers/detail?tags=kluster={k}", self.compute))
            .await;
        assert_eq!(status, 200, "{v}");
        let all = v["servers"].as_array().cloned().unwrap_or_default();
        all.into_iter()
            .filter(|s| s["OS-EXT-STS:task_state"] != "deleting")
            .collect()
    }

    /// Stops a server behind the controller's back (`os-stop`; Nova answers 202).
    pub async fn stop_server(&self, id: &str) {
        let r = self
            .http
            .post(format!("{}/servers/{id}/action", self.compute))
            .header("X-Auth-Token", &self.token)
            .header("Connection", "close")
            .json(&serde_json::json!({ "os-stop": null }))
            .send()
            .await
            .expect("Nova answers");
        assert_eq!(r.status().as_u16(), 202);
    }

    /// Deletes a server behind the controller's back.
    pub async fn delete_server(&self, id: &str) {
        let r = self
            .http
            .delete(format!("{}/servers/{id}", self.compute))
            .header("X-Auth-Token", &self.token)
            .header("Connection", "close")
            .send()
            .await
            .expect("Nova answers");
        assert_eq!(r.status().as_u16(), 204);
    }
}

/// Kluster `name` as the controller's API answers it (200 asserted).
pub async fn kluster(app: &axum::Router, tok: &str, name: &str) -> Value {
    let (status, k) = super::call(
        app,
        "GET",
        &format!("/api/v1/clusters/{name}"),
        Some(tok),
        None,
    )
    .await;
    assert_eq!(status, 200, "{k}");
    k
}

/// Sets the size of kluster `name`'s first pool to `size` through the API.
pub async fn scale(app: &axum::Router, tok: &str, name: &str, size: i64) {
    let mut k = kluster(app, tok, name).await;
    k["spec"]["nodePools"][0]["size"] = json!(size);
    let path = format!("/api/v1/clusters/{name}");
    let (status, v) = super::call(app, "PUT", &path, Some(tok), Some(k.to_string())).await;
    assert_eq!(status, 200, "{v}");
}

/// A lock between the test processes that share the test cloud: the tests that kill or
/// restart one of its services hold it exclusively until the cloud is whole again; a test
/// running beside them (the token soak) holds it shared around each step that needs the
/// cloud whole. Released when the file is dropped.
pub async fn cloud_lock(exclusive: bool) -> std::fs::File {
    let path = std::env::temp_dir().join("mc-test-openstack-services.lock");
    tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .expect("the lock file opens");
        match exclusive {
            true => file.lock(),
            false => file.lock_shared(),
        }
        .expect("the lock is taken");
        file
    })
    .await
    .expect("the lock's thread")
}

/// Keystone's API as the test cloud's admin sees it (the test's own view, not the
/// controller's); tests add the calls they need in `impl Admin` blocks of their own.
pub struct Admin {
    http: reqwest::Client,
    keystone: String,
    token: String,
}

impl Admin {
    /// Signs the cloud admin (`MC_TEST_OS_ADMIN_*`, else admin / admin-secret in project
    /// admin) in at `keystone` (its v3 URL).
    pub async fn sign_in(keystone: &str) -> Admin {
        let password = env("ADMIN_PASSWORD").unwrap_or("admin-secret".into());
        let user = env("ADMIN_USER").unwrap_or("admin".into());
        let project = env("ADMIN_PROJECT").unwrap_or("admin".into());
        let token = keystone::Client::new(keystone)
            .expect("Keystone URL")
            .password_auth(&keystone::PasswordAuth {
                user_name: &user,
                password: &password,
                user_domain: "Default",
                project: keystone::ProjectRef::Name {
                    name: &project,
                    domain: "Default",
                },
            })
            .await
            .expect("the cloud admin signs in");
        Admin {
            http: reqwest::Client::new(),
            keystone: keystone.trim_end_matches('/').to_string(),
            token: token.secret.expose().to_string(),
        }
    }

    /// `method path` (relative to the v3 URL) with `body`: the status and the JSON answer
    /// (`Null` if none).
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        self.call_at(method, format!("{}/{path}", self.keystone), body)
            .await
    }

    /// [`Admin::call`] to any of the cloud's endpoints (`url` in full) with the admin's
    /// token.
    pub async fn call_at(
        &self,
        method: reqwest::Method,
        url: String,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = self
            .http
            .request(method, url)
            .header("X-Auth-Token", &self.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let r = req.send().await.expect("the cloud answers");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }
}
