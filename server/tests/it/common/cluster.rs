//! Real processes for the failure tests: a private PostgreSQL (scripts/postgres.sh), the
//! controller and dashboard binaries, and nginx with the shipped config — each killed with
//! SIGKILL when the test says so, and cleaned up when dropped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A free loopback port (bound and released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A fresh scratch directory.
pub fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "mc-fail-{tag}-{}-{}",
        std::process::id(),
        free_port()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// A private PostgreSQL instance; purged when dropped.
pub struct Postgres {
    port: u16,
    home: PathBuf,
}

impl Postgres {
    fn script(&self, verb: &str) -> std::process::Output {
        Command::new(root().join("scripts/postgres.sh"))
            .arg(verb)
            .env("PG_PORT", self.port.to_string())
            .env("PG_HOME", &self.home)
            .output()
            .expect("scripts/postgres.sh runs")
    }

    /// Initialises and starts one.
    pub fn start(tag: &str) -> Postgres {
        let pg = Postgres {
            port: free_port(),
            home: scratch(&format!("pg-{tag}")),
        };
        let out = pg.script("start");
        assert!(
            out.status.success(),
            "PostgreSQL starts: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        pg
    }

    /// Its connection URL.
    pub fn url(&self) -> String {
        String::from_utf8_lossy(&self.script("url").stdout)
            .trim()
            .to_string()
    }

    /// Stops it (fast shutdown: connections are cut).
    pub fn stop(&self) {
        assert!(self.script("stop").status.success());
    }

    /// Starts it again.
    pub fn restart(&self) {
        let out = self.script("start");
        assert!(
            out.status.success(),
            "PostgreSQL restarts: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.script("purge");
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// A child process killed when dropped; its output goes to `log`.
pub struct Proc {
    /// What it is (for messages).
    pub name: String,
    /// Where it listens.
    pub addr: String,
    child: Option<Child>,
    /// Its log file.
    pub log: PathBuf,
}

impl Proc {
    fn spawn(name: &str, addr: &str, dir: &Path, mut cmd: Command) -> Proc {
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::File::create(&log).expect("log file");
        let err = out.try_clone().expect("log file");
        // Its own process group, so that a kill reaches its children too (nginx's workers
        // outlived a killed master and piled up across runs).
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .spawn()
            .unwrap_or_else(|e| panic!("{name} starts: {e}"));
        Proc {
            name: name.into(),
            addr: addr.into(),
            child: Some(child),
            log,
        }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// SIGKILL to its whole process group, as a machine loss would; waits for it to be gone.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let group = format!("-{}", c.id());
            let _ = Command::new("kill")
                .args(["-KILL", "--", &group])
                .stderr(Stdio::null())
                .status();
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// The end of its log (for assertion messages).
    pub fn tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// The built binary `name` (beside the dashboard's, in Cargo's target dir).
pub fn binary(name: &str) -> PathBuf {
    let dashboard = PathBuf::from(env!("CARGO_BIN_EXE_mission-control"));
    let path = dashboard.with_file_name(name);
    assert!(
        path.exists(),
        "{} is missing: build it first (cargo test --workspace builds it)",
        path.display()
    );
    path
}

/// Keystone and service settings both tiers share.
fn keystone_env(cmd: &mut Command) {
    cmd.env("MC_KEYSTONE_URL", super::keystone_url())
        .env("MC_CONTROLLER_SERVICE_PASSWORD", "mission-control-secret")
        .env("RUST_LOG", "info,sqlx=warn,tower_sessions=warn");
}

/// A controller replica on `db`, sharing `ca_key`; its lease lives `lease` seconds.
pub fn controller(name: &str, dir: &Path, db: &str, ca_key: &Path, lease: f64) -> Proc {
    controller_env(name, dir, db, ca_key, lease, &[])
}

/// [`controller`] with extra environment variables.
pub fn controller_env(
    name: &str,
    dir: &Path,
    db: &str,
    ca_key: &Path,
    lease: f64,
    env: &[(&str, &str)],
) -> Proc {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut cmd = Command::new(binary("kubernikus-controller"));
    keystone_env(&mut cmd);
    cmd.env("MC_CONTROLLER_LISTEN", &addr)
        .env("MC_CONTROLLER_DATABASE", db)
        .env("MC_CONTROLLER_CA_KEY_FILE", ca_key)
        .env("MC_CONTROLLER_PHASE_SECONDS", "2")
        .env("MC_CONTROLLER_LEASE_SECONDS", lease.to_string())
        .env("MC_CONTROLLER_SIMULATOR_API", "true")
        .envs(env.iter().copied());
    Proc::spawn(name, &addr, dir, cmd)
}

/// A dashboard replica with sessions in `session_store`, sharing `session_key`, talking to
/// the controller at `controller_url`, behind a proxy at `public_origin`.
pub fn dashboard(
    name: &str,
    dir: &Path,
    session_store: &str,
    session_key: &Path,
    controller_url: &str,
    public_origin: &str,
) -> Proc {
    dashboard_env(
        name,
        dir,
        session_store,
        session_key,
        controller_url,
        public_origin,
        &[],
    )
}

/// [`dashboard`] with extra environment variables.
pub fn dashboard_env(
    name: &str,
    dir: &Path,
    session_store: &str,
    session_key: &Path,
    controller_url: &str,
    public_origin: &str,
    env: &[(&str, &str)],
) -> Proc {
    let addr = format!("127.0.0.1:{}", free_port());
    let data = dir.join(name);
    let mut cmd = Command::new(binary("mission-control"));
    keystone_env(&mut cmd);
    cmd.env("MC_CONFIG", dir.join("no-such-file.toml"))
        .env("MC_SITE_ADDR", &addr)
        .env("MC_PUBLIC_ORIGIN", public_origin)
        .env("MC_CONTROLLER_URL", controller_url)
        .env("MC_SESSION_STORE", session_store)
        .env("MC_SESSION_KEY_FILE", session_key)
        .env("MC_DATA_DIR", &data)
        .env("MC_SITE_ROOT", &data)
        .env("MC_TRUSTED_PROXIES", "127.0.0.1")
        .env("MC_TOKEN_RECHECK_SECS", "30")
        .envs(env.iter().copied());
    Proc::spawn(name, &addr, dir, cmd)
}

/// nginx with the shipped config (`deploy/nginx/mission-control.conf`) in front of
/// `dashboards` and `controllers`, the dashboards' front on `front_port`: returns it and
/// the URLs of its two fronts.
pub fn nginx_on(
    front_port: u16,
    dir: &Path,
    dashboards: &[&Proc],
    controllers: &[&Proc],
) -> (Proc, String, String) {
    let prefix = dir.join("nginx");
    std::fs::create_dir_all(prefix.join("tmp")).expect("nginx dir");
    let (front, ctl) = (
        format!("127.0.0.1:{front_port}"),
        format!("127.0.0.1:{}", free_port()),
    );
    let servers = |ps: &[&Proc]| {
        ps.iter()
            .map(|p| format!("server {} max_fails=1 fail_timeout=5s; ", p.addr))
            .collect::<String>()
    };
    let conf = std::fs::read_to_string(root().join("deploy/nginx/mission-control.conf"))
        .expect("the shipped nginx config")
        .replace("${MC_NGINX_PREFIX}", &prefix.to_string_lossy())
        .replace("${MC_NGINX_LISTEN}", &front)
        .replace("${MC_NGINX_CONTROLLER_LISTEN}", &ctl)
        .replace("${MC_NGINX_DASHBOARD_SERVERS}", &servers(dashboards))
        .replace("${MC_NGINX_CONTROLLER_SERVERS}", &servers(controllers));
    let path = prefix.join("nginx.conf");
    std::fs::write(&path, conf).expect("nginx.conf");
    let mut cmd = Command::new("/usr/sbin/nginx");
    cmd.arg("-p")
        .arg(format!("{}/", prefix.display()))
        .arg("-c")
        .arg(&path)
        .arg("-e")
        .arg(prefix.join("error.log"))
        .arg("-g")
        .arg("daemon off;");
    let p = Proc::spawn("nginx", &front, dir, cmd);
    (p, format!("http://{front}"), format!("http://{ctl}"))
}

/// Waits until `GET url` answers 200 (or panics after `secs`, with `p`'s log).
pub async fn wait_ok(url: &str, secs: u64, p: Option<&Proc>) {
    let http = reqwest::Client::new();
    testkit::eventually(
        Duration::from_secs(secs),
        format!("{url} ready"),
        || async {
            match http.get(url).timeout(Duration::from_secs(2)).send().await {
                Ok(r) if r.status() == 200 => Ok(()),
                other => Err(format!(
                    "{:?}; log:\n{}",
                    other.map(|r| r.status()),
                    p.map(Proc::tail).unwrap_or_default()
                )),
            }
        },
    )
    .await;
}

/// The status of `GET url` (0 when nothing answers).
pub async fn status_of(url: &str) -> u16 {
    // Longer than the servers' own readiness timeouts (2 s), so their 503 arrives.
    match reqwest::Client::new()
        .get(url)
        .timeout(Duration::from_secs(6))
        .send()
        .await
    {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}
