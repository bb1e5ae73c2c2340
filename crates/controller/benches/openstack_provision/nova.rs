//! Nova, straight: the bench's one poller and the direct arm's calls, as the controller's
//! OpenStack user in project demo.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

/// The one poll interval of both arms.
pub const POLL: Duration = Duration::from_millis(100);
/// How often the controller arm's API is asked whether the kluster is gone, once Nova
/// lists none of its servers.
pub const ALSO_POLL: Duration = Duration::from_millis(10);
/// Longest wait for one arm's create or delete.
const LIMIT: Duration = Duration::from_secs(240);
/// Nova calls sent again because Nova was not there (a round with some is disturbed).
pub static RETRIES: AtomicUsize = AtomicUsize::new(0);
/// Names of everything this bench makes start with this (leftovers are deleted at start).
pub const PREFIX: &str = "osbench-";

/// Milliseconds of `d`, for printing.
pub fn ms(d: Duration) -> u128 {
    d.as_millis()
}

/// Nova as the controller's OpenStack user sees project demo, straight.
pub struct Nova {
    /// The connection pool.
    pub http: reqwest::Client,
    /// A token of the controller's user scoped to the project.
    pub token: String,
    /// Nova's endpoint (`…/v2.1`).
    pub compute: String,
    /// The project's id.
    pub project: String,
}

impl Nova {
    /// One call; a request Nova never got (a restart: others' fault tests share this
    /// cloud) is sent again for up to a minute, counted in [`RETRIES`].
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let safe = method != reqwest::Method::POST;
        for _ in 0..120 {
            let mut req = self
                .http
                .request(method.clone(), format!("{}/{path}", self.compute))
                .header("X-Auth-Token", &self.token)
                .header("OpenStack-API-Version", "compute 2.67");
            if let Some(b) = &body {
                req = req.json(b);
            }
            match req.send().await {
                Ok(r) => {
                    let status = r.status().as_u16();
                    return (status, r.json().await.unwrap_or(Value::Null));
                }
                Err(e) if safe || e.is_connect() => {
                    RETRIES.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                Err(e) => panic!("Nova: {e}"),
            }
        }
        panic!("Nova did not answer for a minute");
    }

    /// The servers tagged `kluster=<name>`, as Nova lists them (deleting ones included);
    /// `detail`: with their status (else ids and names: Nova answers that much faster and
    /// asks Neutron nothing, so watching disturbs less what is watched).
    pub async fn tagged(&self, name: &str, detail: bool) -> Vec<Value> {
        let list = if detail { "servers/detail" } else { "servers" };
        let path = format!("{list}?tags=kluster={name}");
        let (status, v) = self.call(reqwest::Method::GET, &path, None).await;
        assert_eq!(status, 200, "{v}");
        v["servers"].as_array().cloned().unwrap_or_default()
    }

    /// Deletes the servers an earlier run left (their kluster starts with [`PREFIX`]).
    pub async fn clean_up(&self) {
        let (_, all) = self
            .call(reqwest::Method::GET, "servers/detail", None)
            .await;
        for s in all["servers"].as_array().into_iter().flatten() {
            if s["metadata"]["kluster"]
                .as_str()
                .is_some_and(|k| k.starts_with(PREFIX))
            {
                let path = format!("servers/{}", s["id"].as_str().unwrap_or_default());
                self.call(reqwest::Method::DELETE, &path, None).await;
            }
        }
    }

    /// The flavor named `name` as Nova describes it.
    pub async fn flavor(&self, name: &str) -> Value {
        let (_, flavors) = self
            .call(reqwest::Method::GET, "flavors/detail", None)
            .await;
        let all = flavors["flavors"].as_array().cloned().unwrap_or_default();
        all.into_iter()
            .find(|f| f["name"] == json!(name))
            .expect("the flavor exists")
    }

    /// Free instances, cores and RAM (MiB) of the project's quota.
    async fn free(&self) -> [i64; 3] {
        let path = format!("os-quota-sets/{}/detail", self.project);
        let (_, v) = self.call(reqwest::Method::GET, &path, None).await;
        ["instances", "cores", "ram"].map(|k| {
            let d = &v["quota_set"][k];
            let limit = d["limit"].as_i64().unwrap_or(-1);
            let used = d["in_use"].as_i64().unwrap_or(0) + d["reserved"].as_i64().unwrap_or(0);
            if limit < 0 {
                i64::MAX
            } else {
                limit - used
            }
        })
    }

    /// Waits (up to 2 minutes) until `n` servers of `flavor` fit in the quota; prints it.
    pub async fn wait_for_room(&self, n: usize, flavor: &Value, arm: &str) {
        let need = [
            1,
            flavor["vcpus"].as_i64().unwrap_or(1),
            flavor["ram"].as_i64().unwrap_or(0),
        ];
        let start = Instant::now();
        loop {
            let free = self.free().await;
            let fits = (0..3).all(|i| free[i] >= need[i] * n as i64);
            if fits || start.elapsed() > Duration::from_secs(120) {
                println!(
                    "  {arm}: free quota instances={} cores={} ram={} MiB (needs {n}×{need:?})",
                    free[0], free[1], free[2]
                );
                assert!(fits, "no room for {n} servers in project demo's quota");
                return;
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }
}

/// When an arm's servers were seen: the first one listed, all N listed, all N ACTIVE.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    /// The first server listed.
    pub first: Duration,
    /// All N listed.
    pub listed: Duration,
    /// All N ACTIVE.
    pub active: Duration,
}

/// Polls Nova every [`POLL`] from `t0` until `n` servers of `name` (not deleting) are ACTIVE.
pub async fn watch_create(nova: &Nova, name: &str, n: usize, t0: Instant) -> Seen {
    let (mut first, mut listed) = (None, None);
    loop {
        let all = nova.tagged(name, true).await;
        let live: Vec<&Value> = all
            .iter()
            .filter(|s| s["OS-EXT-STS:task_state"] != "deleting")
            .collect();
        let now = t0.elapsed();
        if !live.is_empty() {
            first.get_or_insert(now);
        }
        if live.len() >= n {
            listed.get_or_insert(now);
        }
        if live.iter().any(|s| s["status"] == "ERROR") {
            panic!("a server of {name} went to ERROR: {live:?}");
        }
        if live.len() == n && live.iter().all(|s| s["status"] == "ACTIVE") {
            let (first, listed) = (first.unwrap_or(now), listed.unwrap_or(now));
            return Seen {
                first,
                listed,
                active: now,
            };
        }
        assert!(
            now < LIMIT,
            "{name}: {} of {n} ACTIVE after {now:?}",
            live.len()
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Polls Nova every [`POLL`] from `t0` until it lists no server of `name` (`.0`), then
/// `also` every [`ALSO_POLL`] until it answers true (`.1`; the controller's API is local,
/// so its removal is timed finely without asking Nova more often), and checks that Nova
/// still lists none.
pub async fn watch_delete<F, Fut>(
    nova: &Nova,
    name: &str,
    t0: Instant,
    also: F,
) -> (Duration, Duration)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    loop {
        let left = nova.tagged(name, false).await.len();
        if left == 0 {
            break;
        }
        assert!(t0.elapsed() < LIMIT, "{name}: {left} servers left");
        tokio::time::sleep(POLL).await;
    }
    let empty = t0.elapsed();
    while !also().await {
        assert!(t0.elapsed() < LIMIT, "{name}: not gone from the API");
        tokio::time::sleep(ALSO_POLL).await;
    }
    let gone = t0.elapsed();
    let left = nova.tagged(name, false).await.len();
    assert_eq!(left, 0, "{name}: servers back in Nova after it listed none");
    (empty, gone)
}

/// A token of `user` scoped to `project`.
pub async fn sign_in(
    auth_url: &str,
    user: &str,
    password: &str,
    domain: &str,
    project: keystone::ProjectRef<'_>,
) -> String {
    let auth = keystone::PasswordAuth {
        user_name: user,
        password,
        user_domain: domain,
        project,
    };
    let client = keystone::Client::new(auth_url).expect("Keystone URL");
    let token = client.password_auth(&auth).await.expect("signs in");
    token.secret.expose().to_string()
}

/// The kluster uid the direct arm's servers carry (a uid's length, as the controller's).
const UID: &str = "00000000-0000-4000-8000-000000000000";

/// Nova's `POST /servers` body for server `server` of kluster `kluster`, as the controller's
/// boot sends it (`create_body` in `cloud/openstack/boot.rs`): ids, network, security group,
/// metadata, tags, config drive, zone and user data.
pub fn create_body(
    server: &str,
    kluster: &str,
    flavor_id: &Value,
    image_id: &str,
    network: &str,
) -> Value {
    let user_data = format!("#cloud-config\n# Mission Control node of kluster {kluster}\n");
    json!({"server": {"name": server, "flavorRef": flavor_id, "imageRef": image_id,
        "networks": [{"uuid": network}], "security_groups": [{"name": "default"}],
        "metadata": {"kluster": kluster, "kluster_uid": UID},
        "tags": ["kubernikus", format!("kluster={kluster}"), format!("kluster_uid={UID}")],
        "config_drive": true, "availability_zone": "nova",
        "user_data": base64::engine::general_purpose::STANDARD.encode(user_data)}})
}
