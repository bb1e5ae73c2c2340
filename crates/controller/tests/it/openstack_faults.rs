//! The controller against the real test OpenStack (`scripts/openstack.sh`) when its services
//! fail, and what deletion leaves. Skipped, saying why, when `MC_TEST_OS_AUTH_URL` is unset
//! (`eval "$(scripts/openstack.sh env)"` sets it); the two tests that kill or restart a
//! service also need the script's state dir (`MC_TEST_OS_HOME`) and root.
//!
//! - nova-api killed (-9) right after the controller's first create and started again →
//!   the pool reaches its size (3), never more servers than that, and stays at it;
//! - RabbitMQ restarted → a scale-up still ends in ACTIVE servers, the controller ready;
//! - nova-api stopped (SIGSTOP: it accepts connections and never answers) → the
//!   controller's calls are given up after their timeout, its API answers meanwhile, and
//!   the pool reaches its size once Nova answers again (`hang.rs`);
//! - a flavor no host can place (`capacity.rs`) → Nova's "No valid host" on the timeline,
//!   one server per try, waits that grow between tries, nothing announced as created;
//! - Nova behind nginx's `limit_req` (429 with Retry-After, a region of its own:
//!   `rate_limit.rs`) → create, scale and delete all get there, no call counted an outage;
//! - Keystone and Nova behind TLS signed by a CA of the test's (`tls.rs`) → trusted with
//!   the CA file, `/readyz` naming the endpoint and the certificate problem without it;
//! - a kluster deleted beside one whose name it prefixes (`debris.rs`) → its volumes, load
//!   balancers, routes and servers gone from the real APIs, the other's and the project's
//!   look-alikes all there;
//! - a tenant's server tagged `kluster=<name>`, a load balancer `kube_service_kubernetes_…`
//!   beside kluster `kubernetes`, an earlier same-named kluster's leftovers
//!   (`lookalikes.rs`) → all left alone and said so, the kluster's own deleted;
//! - a kluster's load balancers with the floating IP and security group made for its
//!   service, a volume with a snapshot (`ccm_made.rs`) → all go, a tenant's own address
//!   and group stay;
//! - an image or a network the cloud lacks → 422 naming the field and the cloud's choices
//!   (`invalid.rs`);
//! - a static route on the project's router → no pod range may overlap it (`ranges.rs`);
//! - Nova's notifications read from the test cloud's RabbitMQ, polling all but off
//!   (`notifications.rs`) → a server deleted by hand is replaced within 5 s;
//! - a distributed (DVR) and an L3-HA router → their networks shown, a kluster placed
//!   behind each (`routers.rs`).
//!
//! They use project staging (openstack_real uses demo), run one at a time (a killed
//! nova-api would fail the others), and sweep at their start what a failed run left.

mod capacity;
mod ccm_made;
mod debris;
mod hang;
mod invalid;
mod lookalikes;
mod notifications;
mod project;
mod ranges;
mod rate_limit;
mod restarts;
mod routers;
mod tls;

use std::time::Duration;

use crate::common::openstack::{
    cloud_env, env, openstack, start_tuned, until, Direct, ONE_AT_A_TIME,
};
use project::{Project, KLUSTERS};
use serde_json::{json, Value};
use tokio::time::Instant;

/// The Keystone project these tests work in (as alice, a demo user).
const PROJECT: &str = "staging";

/// A controller on the real cloud, alice's token for its API, and the project seen
/// directly; held while the test runs, so the next test waits.
pub struct Fixture {
    _one: tokio::sync::MutexGuard<'static, ()>,
    running: controller::run::Running,
    tok: String,
    direct: Direct,
    project: Project,
    started: Instant,
}

/// The controller's service user's password (`demo.env`), as openstack_real reads it.
fn service_password() -> String {
    std::env::var("KS_SERVICE_PASSWORD").unwrap_or("mission-control-secret".into())
}

impl Fixture {
    /// Waits for the other tests, starts a controller (its store tagged `tag`) and sweeps
    /// what a failed run left; `None` (test skipped) without a test cloud.
    async fn new(tag: &str) -> Option<Fixture> {
        let auth_url = cloud_env()?;
        let one = ONE_AT_A_TIME.lock().await;
        Some(Self::with(tag, one, &auth_url, env("REGION").unwrap_or_default()).await)
    }

    /// [`Fixture::new`] with the controller's configuration changed by `tune`.
    async fn tuned(
        tag: &str,
        tune: impl FnOnce(&mut controller::run::ControllerConfig),
    ) -> Option<Fixture> {
        let auth_url = cloud_env()?;
        let one = ONE_AT_A_TIME.lock().await;
        let region = env("REGION").unwrap_or_default();
        Some(Self::with_tuned(tag, one, &auth_url, region, tune).await)
    }

    /// [`Fixture::new`] once the lock is held (`one`), with the controller in `region`.
    async fn with(
        tag: &str,
        one: tokio::sync::MutexGuard<'static, ()>,
        auth_url: &str,
        region: String,
    ) -> Fixture {
        Self::with_tuned(tag, one, auth_url, region, |_| {}).await
    }

    /// [`Fixture::with`], the controller's configuration changed by `tune`.
    async fn with_tuned(
        tag: &str,
        one: tokio::sync::MutexGuard<'static, ()>,
        auth_url: &str,
        region: String,
        tune: impl FnOnce(&mut controller::run::ControllerConfig),
    ) -> Fixture {
        let auth_url = auth_url.to_string();
        let password = service_password();
        let cloud = openstack(&auth_url, &password, &region);
        let running = start_tuned(&auth_url, cloud, tag, tune).await;
        let tok = crate::common::demo_token(&auth_url, "alice", PROJECT).await;
        let tok = tok.expose().to_string();
        let admin = keystone::Client::new(&auth_url)
            .expect("Keystone URL")
            .password_auth(&keystone::PasswordAuth {
                user_name: "mission-control",
                password: &password,
                user_domain: "Default",
                project: keystone::ProjectRef::Name {
                    name: PROJECT,
                    domain: "demo",
                },
            })
            .await
            .expect("the controller's service user signs in to the project");
        let project = Project::new(
            &PROJECT.to_uppercase(),
            tok.clone(),
            admin.secret.expose().to_string(),
        );
        project.sweep().await;
        let direct = Direct {
            http: reqwest::Client::new(),
            token: tok.clone(),
            compute: env("COMPUTE_URL").expect("MC_TEST_OS_COMPUTE_URL"),
            network: env("NETWORK_URL").expect("MC_TEST_OS_NETWORK_URL"),
        };
        Fixture {
            _one: one,
            running,
            tok,
            direct,
            project,
            started: Instant::now(),
        }
    }

    /// The controller's API.
    fn app(&self) -> &axum::Router {
        &self.running.router
    }

    /// A kluster name of this run: `ft<what><pid>`.
    fn name(&self, what: &str) -> String {
        format!("{KLUSTERS}{what}{}", std::process::id() % 100_000)
    }

    /// Prints `what` with the time since the fixture was made.
    fn lap(&self, what: &str) {
        eprintln!("{what} after {:.1?}", self.started.elapsed());
    }

    /// Creates kluster `name` with one pool of `size` (the seeded flavor and image).
    async fn create(&self, name: &str, size: i64) {
        self.create_with(body(name, size)).await;
    }

    /// Creates the kluster `body` asks for.
    async fn create_with(&self, body: Value) {
        let (status, v) = crate::common::create(self.app(), &self.tok, body.to_string()).await;
        assert_eq!(status, 201, "{v}");
    }

    /// Waits until kluster `name` has `n` servers, all ACTIVE with an address.
    async fn active(&self, name: &str, n: usize, limit: Duration) -> Vec<Value> {
        let what = format!("{n} ACTIVE servers of {name}");
        testkit::eventually(limit, &what, || async {
            let s = self.direct.servers(name).await;
            let up = |s: &Value| s["status"] == "ACTIVE" && address(s).is_some();
            if s.len() == n && s.iter().all(up) {
                return Ok(s);
            }
            // What Nova showed, for the failure message: name, status, task state.
            let seen: Vec<String> = s
                .iter()
                .map(|s| {
                    format!(
                        "{} {} {}",
                        s["name"], s["status"], s["OS-EXT-STS:task_state"]
                    )
                })
                .collect();
            Err(format!("[{}]", seen.join("; ")))
        })
        .await
    }

    /// Kluster `name`'s uid, as the controller answers it.
    async fn uid(&self, name: &str) -> String {
        let path = format!("/api/v1/clusters/{name}");
        let (status, k) =
            crate::common::call(self.app(), "GET", &path, Some(&self.tok), None).await;
        assert_eq!(status, 200, "{k}");
        let uid = k["metadata"]["uid"].as_str().unwrap_or_default();
        assert!(!uid.is_empty(), "{name} has a uid: {k}");
        uid.to_string()
    }

    /// The sum of the samples of metric `name` on `/metrics` whose line contains `with`.
    async fn metric(&self, name: &str, with: &str) -> f64 {
        use tower::ServiceExt;
        let get = axum::http::Request::get("/metrics").body(axum::body::Body::empty());
        let res = self.app().clone().oneshot(get.unwrap()).await.unwrap();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| l.starts_with(name) && l.contains(with))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }

    /// The kluster's events.
    async fn events(&self, name: &str) -> Vec<Value> {
        let path = format!("/api/v1/clusters/{name}/events");
        let (_, e) = crate::common::call(self.app(), "GET", &path, Some(&self.tok), None).await;
        e.as_array().cloned().unwrap_or_default()
    }

    /// Deletes kluster `name` and waits until the controller has removed it and Nova lists
    /// none of its servers (those with its uid).
    async fn delete(&self, name: &str) {
        let uid = self.uid(name).await;
        let path = format!("/api/v1/clusters/{name}");
        let (status, v) =
            crate::common::call(self.app(), "DELETE", &path, Some(&self.tok), None).await;
        assert!(matches!(status, 200 | 202 | 204), "{status} {v}");
        until(Duration::from_secs(180), "the kluster removed", || async {
            let (status, _) =
                crate::common::call(self.app(), "GET", &path, Some(&self.tok), None).await;
            (status == 404).then_some(())
        })
        .await;
        let url = format!(
            "{}/servers/detail?tags=kluster_uid={uid}",
            self.direct.compute
        );
        until(Duration::from_secs(60), "no server of it", || async {
            let (status, v) = self.direct.get(url.clone()).await;
            (status == 200 && v["servers"].as_array().is_some_and(|a| a.is_empty())).then_some(())
        })
        .await;
    }
}

/// A create request: one pool `small` of `size` in zone nova.
fn body(name: &str, size: i64) -> Value {
    let flavor = env("FLAVOR").unwrap_or("m1.small".into());
    let image = env("IMAGE").unwrap_or("flatcar-stable".into());
    json!({"name": name, "spec": {"nodePools": [
        {"name": "small", "size": size, "flavor": flavor, "image": image, "availabilityZone": "nova"}
    ]}})
}

/// A server's first address, as Nova lists it.
pub fn address(server: &Value) -> Option<String> {
    let nets = server["addresses"].as_object()?;
    let addr = nets.values().find_map(|a| a[0]["addr"].as_str())?;
    Some(addr.to_string())
}
