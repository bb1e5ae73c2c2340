//! Nova behind a real nginx with `limit_req` (2 requests a second, a burst of 1, then 429
//! with `Retry-After: 1`), as a rate-limited production API answers: the three creates
//! sent at once meet it however slowly the machine runs (with a burst of 2, a loaded
//! machine's spread-out looks could all pass, and the test proved nothing). The front is a Keystone
//! region of its own (`RateLimited`: the test cloud's endpoints, Nova's swapped for the
//! front), so other tests keep the plain one. Create, scale and delete must all get there
//! with no event calling the cloud unavailable and no create refused.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use super::{body, Fixture};
use crate::common::openstack::{cloud_env, env, scale, Admin, ONE_AT_A_TIME};

/// The region the front is registered as.
const REGION: &str = "RateLimited";

/// nginx in front of one service; killed when dropped.
pub(super) struct Front {
    child: Child,
    dir: std::path::PathBuf,
    /// Where it listens (`127.0.0.1:port`).
    pub(super) addr: String,
}

impl Drop for Front {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Front {
    /// Starts nginx on a free port in front of `nova` (`host:port`), rate limited.
    fn start(nova: &str) -> Front {
        Front::start_with("ratelimit", nova, None, true)
    }

    /// nginx (state in a temp dir named after `tag`) in front of `upstream`, with TLS from
    /// `tls` (certificate, key) and the rate limit when `limit`.
    pub(super) fn start_with(
        tag: &str,
        upstream: &str,
        tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
        limit: bool,
    ) -> Front {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let addr = format!("127.0.0.1:{port}");
        let dir = std::env::temp_dir().join(format!("mc-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tmp")).expect("nginx dir");
        // Workers run as nobody when the master is root: let them write their temp files.
        let _ = Command::new("chmod").args(["-R", "777"]).arg(&dir).status();
        let d = dir.display();
        let listen = match &tls {
            Some((cert, key)) => format!(
                "listen {addr} ssl;\n    ssl_certificate {};\n    ssl_certificate_key {};",
                cert.display(),
                key.display()
            ),
            None => format!("listen {addr};"),
        };
        let (zone, limited) = match limit {
            true => (
                "limit_req_zone $server_port zone=nova:1m rate=2r/s;\n  limit_req_status 429;",
                "limit_req zone=nova burst=1 nodelay;\n      error_page 429 = @limited;",
            ),
            false => ("", ""),
        };
        let conf = format!(
            r#"worker_processes 1;
pid {d}/nginx.pid;
events {{ worker_connections 256; }}
http {{
  access_log {d}/access.log;
  client_body_temp_path {d}/tmp/body;
  proxy_temp_path {d}/tmp/proxy;
  fastcgi_temp_path {d}/tmp/fastcgi;
  uwsgi_temp_path {d}/tmp/uwsgi;
  scgi_temp_path {d}/tmp/scgi;
  {zone}
  server {{
    {listen}
    location / {{
      {limited}
      proxy_pass http://{upstream};
      proxy_set_header Host $http_host;
    }}
    location @limited {{
      default_type application/json;
      add_header Retry-After 1 always;
      return 429 '{{"overLimit": {{"code": 429, "message": "Rate limit exceeded."}}}}';
    }}
  }}
}}
"#
        );
        let path = dir.join("nginx.conf");
        std::fs::write(&path, conf).expect("nginx.conf");
        let child = Command::new("/usr/sbin/nginx")
            .arg("-p")
            .arg(format!("{d}/"))
            .arg("-c")
            .arg(&path)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-g")
            .arg("daemon off;")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        Front { child, dir, addr }
    }

    /// How many calls the front passed on or answered.
    pub(super) fn requests(&self) -> usize {
        let log = std::fs::read_to_string(self.dir.join("access.log")).unwrap_or_default();
        log.lines().count()
    }

    /// How many calls the front answered 429.
    fn limited(&self) -> usize {
        let log = std::fs::read_to_string(self.dir.join("access.log")).unwrap_or_default();
        log.lines().filter(|l| l.contains("\" 429 ")).count()
    }
}

/// The admin calls these tests make, each of which must succeed (a POST may find what it
/// makes there already).
impl Admin {
    async fn must(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let (status, v) = self.call(method.clone(), path, body).await;
        assert!(
            status < 300 || (status == 409 && method == reqwest::Method::POST),
            "{method} {path}: {status} {v}"
        );
        v
    }

    /// Region `region` with the test cloud's endpoints, Nova's at `front` (a URL's
    /// `scheme://host:port`).
    pub(super) async fn register(&self, region: &str, front: &str) {
        self.unregister(region).await;
        let region_body = json!({ "region": { "id": region } });
        self.must(reqwest::Method::POST, "regions", Some(region_body))
            .await;
        let from = env("REGION").unwrap_or("RegionOne".into());
        let services = self.must(reqwest::Method::GET, "services", None).await;
        let compute: Vec<&str> = services["services"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| s["type"] == "compute")
            .filter_map(|s| s["id"].as_str())
            .collect();
        let path = format!("endpoints?region_id={from}");
        let endpoints = self.must(reqwest::Method::GET, &path, None).await;
        for e in endpoints["endpoints"].as_array().into_iter().flatten() {
            let url = e["url"].as_str().unwrap_or_default();
            let is_nova = e["service_id"]
                .as_str()
                .is_some_and(|s| compute.contains(&s));
            let url = match is_nova {
                true => swap_host(url, front),
                false => url.to_string(),
            };
            let endpoint = json!({ "endpoint": {
                "service_id": e["service_id"], "interface": e["interface"],
                "url": url, "region_id": region } });
            self.must(reqwest::Method::POST, "endpoints", Some(endpoint))
                .await;
        }
    }

    /// Removes `region`'s endpoints (what an earlier run left too).
    pub(super) async fn unregister(&self, region: &str) {
        let path = format!("endpoints?region_id={region}");
        let endpoints = self.must(reqwest::Method::GET, &path, None).await;
        for e in endpoints["endpoints"].as_array().into_iter().flatten() {
            let id = e["id"].as_str().unwrap_or_default();
            self.must(reqwest::Method::DELETE, &format!("endpoints/{id}"), None)
                .await;
        }
    }
}

/// `url` with its `scheme://host:port` replaced by `front`'s.
fn swap_host(url: &str, front: &str) -> String {
    let Some((_, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    format!("{front}{path}")
}

/// Nova's `host:port` in the test cloud.
fn nova_addr() -> Option<String> {
    let url = env("COMPUTE_URL")?;
    let rest = url.split_once("://")?.1;
    Some(rest.split('/').next()?.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_rate_limit_create_scale_and_delete_all_get_there() {
    let Some(auth_url) = cloud_env() else { return };
    let Some(nova) = nova_addr() else { return };
    let one = ONE_AT_A_TIME.lock().await;
    let front = Front::start(&nova);
    let admin = Admin::sign_in(&auth_url).await;
    admin
        .register(REGION, &format!("http://{}", front.addr))
        .await;
    let f = Fixture::with("ratelimit", one, &auth_url, REGION.to_string()).await;
    let name = f.name("r");
    f.create_with(body(&name, 3)).await;
    f.active(&name, 3, Duration::from_secs(180)).await;
    f.lap(&format!(
        "3 ACTIVE through the limit ({} calls answered 429)",
        front.limited()
    ));
    scale(f.app(), &f.tok, &name, 4).await;
    f.active(&name, 4, Duration::from_secs(180)).await;
    f.lap(&format!("scaled to 4 ({} answered 429)", front.limited()));
    let events = f.events(&name).await;
    let bad: Vec<&Value> = events
        .iter()
        .filter(|e| e["reason"] == "CloudUnavailable" || e["reason"] == "FailedCreateNode")
        .collect();
    assert!(bad.is_empty(), "the limit was taken for an outage: {bad:?}");
    f.delete(&name).await;
    let limited = front.limited();
    f.lap(&format!("deleted ({limited} calls answered 429 in all)"));
    assert!(
        limited > 0,
        "the front never limited: the test proved nothing"
    );
    admin.unregister(REGION).await;
}
