//! The settings as given by the file, the environment or the flags: every field optional,
//! so that the layers merge (flag > env > file > default).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::Parser;
use serde::Deserialize;

use super::ConfigError;

/// Where sessions (and, with several replicas, sign-in attempt counts) are stored.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum SessionStoreKind {
    /// SQLite database `sessions.db` in the data dir; survives restarts (one replica).
    Sqlite,
    /// In-process memory; sessions end when the server stops.
    Memory,
    /// A PostgreSQL database shared by every replica (`postgres://user:pass@host/db`).
    Postgres(String),
}

impl std::str::FromStr for SessionStoreKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "sqlite" => Ok(Self::Sqlite),
            "memory" => Ok(Self::Memory),
            url if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Ok(Self::Postgres(url.to_string()))
            }
            other => Err(format!(
                "{:?} is not a session store: use \"sqlite\", \"memory\" or a postgres:// URL",
                redact_url(other)
            )),
        }
    }
}

impl std::fmt::Debug for SessionStoreKind {
    /// Never shows a database password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Sqlite => f.write_str("Sqlite"),
            Self::Memory => f.write_str("Memory"),
            Self::Postgres(url) => write!(f, "Postgres({})", redact_url(url)),
        }
    }
}

impl TryFrom<String> for SessionStoreKind {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

/// `url` with any password replaced by `***` (for messages and logs).
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_string(),
    }
}

/// Settings as given by the file, env or flags; every field optional so layers can merge.
#[derive(Clone, Debug, Default, Parser, Deserialize)]
#[command(
    name = "mission-control",
    version,
    about = "Mission Control: self-service Kubernetes on OpenStack"
)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Configuration file (TOML). Missing file: built-in defaults.
    #[arg(long, env = "MC_CONFIG", default_value = "Leptos.toml")]
    #[serde(skip)]
    pub config: PathBuf,
    /// Address to listen on, e.g. 127.0.0.1:3000.
    #[arg(long, env = "MC_SITE_ADDR")]
    pub site_addr: Option<SocketAddr>,
    /// Origin browsers use to reach the dashboard, e.g. https://mc.example.com.
    #[arg(long, env = "MC_PUBLIC_ORIGIN")]
    pub public_origin: Option<String>,
    /// Keystone v3 endpoint, e.g. https://identity.example.com/v3.
    #[arg(long, env = "MC_KEYSTONE_URL")]
    pub keystone_url: Option<String>,
    /// Kubernikus API base URL, "embedded" for the built-in controller stack, or "catalog"
    /// for one per region, found in each user's token catalog (service type kubernikus).
    #[arg(long, env = "MC_CONTROLLER_URL")]
    pub controller_url: Option<String>,
    /// With controller_url = "catalog": the endpoints' interface (public, internal, admin).
    #[arg(long, env = "MC_CONTROLLER_CATALOG_INTERFACE")]
    pub controller_catalog_interface: Option<String>,
    /// Address the embedded controller listens on (port 0: any free loopback port).
    #[arg(long, env = "MC_CONTROLLER_LISTEN")]
    pub controller_listen: Option<SocketAddr>,
    /// The embedded controller's database: an SQLite file (default data_dir/controller.db)
    /// or a postgres:// URL shared by several controller replicas.
    #[arg(long, env = "MC_CONTROLLER_DATABASE", hide_env_values = true)]
    pub controller_database: Option<String>,
    /// Seconds the embedded controller's reconcile lease lives (a dead reconciling replica
    /// is replaced within it).
    #[arg(long, env = "MC_CONTROLLER_LEASE_SECONDS")]
    pub controller_lease_seconds: Option<f64>,
    /// URL users' tools (kubernikusctl) reach the embedded controller at, used in the
    /// setup command on the detail page (default: its loopback address).
    #[arg(long, env = "MC_CONTROLLER_PUBLIC_URL")]
    pub controller_public_url: Option<String>,
    /// Where kubernikusctl builds are published (`<url>/<os>/amd64/kubernikusctl`); when
    /// set, the embedded controller lists them and the detail page offers the downloads.
    #[arg(long, env = "MC_CONTROLLER_BINARIES_URL")]
    pub controller_binaries_url: Option<String>,
    /// Keystone user the embedded controller validates tokens with.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_USER")]
    pub controller_service_user: Option<String>,
    /// Its password (needed only with controller_url = "embedded").
    #[arg(long, env = "MC_CONTROLLER_SERVICE_PASSWORD", hide_env_values = true)]
    pub controller_service_password: Option<String>,
    /// Domain of that user and of its project.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_DOMAIN")]
    pub controller_service_domain: Option<String>,
    /// Project the service token is scoped to.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_PROJECT")]
    pub controller_service_project: Option<String>,
    /// Seconds the embedded controller's simulated control planes take to come up.
    #[arg(long, env = "MC_CONTROLLER_PHASE_SECONDS")]
    pub controller_phase_seconds: Option<f64>,
    /// Minutes a kluster may take to reach Running before it gets a Warning (default 30).
    #[arg(long, env = "MC_CONTROLLER_CREATION_TIMEOUT_MINUTES")]
    pub controller_creation_timeout_minutes: Option<u64>,
    /// Days the embedded controller keeps events after their last occurrence (default 7).
    #[arg(long, env = "MC_CONTROLLER_EVENT_RETENTION_DAYS")]
    pub controller_event_retention_days: Option<u64>,
    /// Instance quota of each project in the simulated cloud (default 10).
    #[arg(long, env = "MC_CONTROLLER_QUOTA_INSTANCES")]
    pub controller_quota_instances: Option<u64>,
    /// vCPU quota of each project in the simulated cloud (default 20).
    #[arg(long, env = "MC_CONTROLLER_QUOTA_CORES")]
    pub controller_quota_cores: Option<u64>,
    /// RAM quota (MiB) of each project in the simulated cloud (default 51200).
    #[arg(long, env = "MC_CONTROLLER_QUOTA_RAM_MB")]
    pub controller_quota_ram_mb: Option<u64>,
    /// The embedded controller's cloud: "simulated" (default) or "openstack" (a real one
    /// through the Keystone catalog; the simulator API is then off).
    #[arg(long, env = "MC_CONTROLLER_CLOUD")]
    pub controller_cloud: Option<String>,
    /// OpenStack: Keystone v3 URL of the cloud (default: keystone_url).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_AUTH_URL")]
    pub controller_openstack_auth_url: Option<String>,
    /// OpenStack: the user that acts in every kluster's project (default:
    /// controller_service_user).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_USER")]
    pub controller_openstack_user: Option<String>,
    /// OpenStack: its password (default: controller_service_password); never logged.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PASSWORD", hide_env_values = true)]
    pub controller_openstack_password: Option<String>,
    /// OpenStack: its domain (default: controller_service_domain).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_USER_DOMAIN")]
    pub controller_openstack_user_domain: Option<String>,
    /// OpenStack: its own project, for the start-up check (default:
    /// controller_service_project).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PROJECT")]
    pub controller_openstack_project: Option<String>,
    /// OpenStack: that project's domain (default: the user's domain).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PROJECT_DOMAIN")]
    pub controller_openstack_project_domain: Option<String>,
    /// OpenStack: region of the catalog's endpoints (default: any).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_REGION")]
    pub controller_openstack_region: Option<String>,
    /// OpenStack: endpoints to call: public (default), internal or admin.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_INTERFACE")]
    pub controller_openstack_interface: Option<String>,
    /// OpenStack: seconds one call may take (default 30).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_TIMEOUT_SECONDS")]
    pub controller_openstack_timeout_seconds: Option<f64>,
    /// OpenStack: tries of a GET that cannot connect or gets a 5xx (default 3).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_ATTEMPTS")]
    pub controller_openstack_attempts: Option<u32>,
    /// OpenStack: domain where each kluster gets a user of its own that boots its servers
    /// (Kubernikus: "kubernikus"); unset: the controller's user acts for klusters.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_KLUSTER_USER_DOMAIN")]
    pub controller_openstack_kluster_user_domain: Option<String>,
    /// OpenStack: roles of kluster users on their project, comma-separated (default member).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_KLUSTER_USER_ROLES")]
    pub controller_openstack_kluster_user_roles: Option<String>,
    /// Session store: sqlite, memory, or a postgres:// URL (shared by replicas).
    #[arg(long, env = "MC_SESSION_STORE")]
    pub session_store: Option<SessionStoreKind>,
    /// Directory for the server's data (session database).
    #[arg(long, env = "MC_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Directory holding the built site (pkg/ with WASM, JS, CSS; favicon).
    #[arg(long, env = "MC_SITE_ROOT")]
    pub site_root: Option<PathBuf>,
    /// Minutes of inactivity after which a session ends.
    #[arg(long, env = "MC_SESSION_IDLE_MINUTES")]
    pub session_idle_minutes: Option<u64>,
    /// Seconds after sign-in at which a session ends at the latest (also capped by the token).
    #[arg(long, env = "MC_SESSION_MAX_LIFETIME_SECS")]
    pub session_max_lifetime_secs: Option<u64>,
    /// Seconds a token check with Keystone stays trusted before the next one.
    #[arg(long, env = "MC_TOKEN_RECHECK_SECS")]
    pub token_recheck_secs: Option<u64>,
    /// Failed sign-ins allowed per user name within the window.
    #[arg(long, env = "MC_LOGIN_FAILURES_PER_USER")]
    pub login_failures_per_user: Option<usize>,
    /// Failed sign-ins allowed per client address within the window.
    #[arg(long, env = "MC_LOGIN_FAILURES_PER_CLIENT")]
    pub login_failures_per_client: Option<usize>,
    /// Length of the sign-in failure window in seconds.
    #[arg(long, env = "MC_LOGIN_WINDOW_SECS")]
    pub login_window_secs: Option<u64>,
    /// Proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For is believed.
    #[arg(long, env = "MC_TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Option<Vec<String>>,
    /// Whether the embedded controller serves the simulator API (cloud admins only).
    #[arg(long, env = "MC_CONTROLLER_SIMULATOR_API")]
    pub controller_simulator_api: Option<bool>,
    /// Live event streams one session, and one user, may hold open at once.
    #[arg(long, env = "MC_LIVE_STREAMS_PER_USER")]
    pub live_streams_per_user: Option<usize>,
    /// Seconds between polls of a Kubernikus without the event-stream extension.
    #[arg(long, env = "MC_LIVE_POLL_SECONDS")]
    pub live_poll_seconds: Option<f64>,
    /// File with the key that seals sessions at rest (64 hex digits; created if missing).
    #[arg(long, env = "MC_SESSION_KEY_FILE")]
    pub session_key_file: Option<PathBuf>,
    /// Log lines as "text" (default) or "json".
    #[arg(long, env = "MC_LOG_FORMAT")]
    pub log_format: Option<String>,
    /// OpenTelemetry collector (OTLP/HTTP base URL); spans are exported only when set.
    #[arg(long, env = "MC_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,
}

impl Settings {
    /// Reads a settings file; a missing file gives empty settings.
    pub fn from_file(path: &Path) -> Result<Settings, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Settings::default()),
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.into(),
                    source,
                })
            }
        };
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.into(),
            message: e.to_string(),
        })
    }

    /// Fields set in `self` win over those of `lower`.
    pub fn over(self, lower: Settings) -> Settings {
        macro_rules! layered {
            ($($field:ident),* $(,)?) => {
                Settings {
                    config: self.config,
                    $($field: self.$field.or(lower.$field),)*
                }
            };
        }
        layered!(
            site_addr,
            public_origin,
            keystone_url,
            controller_url,
            controller_catalog_interface,
            controller_listen,
            controller_database,
            controller_lease_seconds,
            controller_public_url,
            controller_binaries_url,
            controller_service_user,
            controller_service_password,
            controller_service_domain,
            controller_service_project,
            controller_phase_seconds,
            controller_creation_timeout_minutes,
            controller_event_retention_days,
            controller_quota_instances,
            controller_quota_cores,
            controller_quota_ram_mb,
            controller_cloud,
            controller_openstack_auth_url,
            controller_openstack_user,
            controller_openstack_password,
            controller_openstack_user_domain,
            controller_openstack_project,
            controller_openstack_project_domain,
            controller_openstack_region,
            controller_openstack_interface,
            controller_openstack_timeout_seconds,
            controller_openstack_attempts,
            controller_openstack_kluster_user_domain,
            controller_openstack_kluster_user_roles,
            session_store,
            data_dir,
            site_root,
            session_idle_minutes,
            session_max_lifetime_secs,
            token_recheck_secs,
            login_failures_per_user,
            login_failures_per_client,
            login_window_secs,
            trusted_proxies,
            controller_simulator_api,
            live_streams_per_user,
            live_poll_seconds,
            session_key_file,
            log_format,
            otlp_endpoint,
        )
    }
}

/// `v`, if greater than 0; else the key's error.
pub(super) fn positive(key: &'static str, v: u64) -> Result<u64, ConfigError> {
    if v == 0 {
        Err(ConfigError::Invalid {
            key,
            message: "must be greater than 0".into(),
        })
    } else {
        Ok(v)
    }
}

/// The http(s) URL of setting `key` without a trailing slash; empty when unset (the
/// embedded controller's URLs).
#[cfg_attr(not(feature = "embedded-controller"), allow(dead_code))]
pub(super) fn web_url(key: &'static str, v: Option<&str>) -> Result<String, ConfigError> {
    let Some(v) = v.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(String::new());
    };
    match url::Url::parse(v) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => {
            Ok(v.trim_end_matches('/').to_string())
        }
        _ => Err(ConfigError::Invalid {
            key,
            message: format!("{v:?} is not an http(s) URL"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_urls_are_http_and_lose_their_trailing_slash() {
        assert_eq!(web_url("k", None).unwrap(), "");
        assert_eq!(web_url("k", Some(" ")).unwrap(), "");
        assert_eq!(
            web_url("k", Some("https://kubernikus.example.com/")).unwrap(),
            "https://kubernikus.example.com"
        );
        for bad in ["ftp://x", "javascript:alert(1)", "kubernikus.example.com"] {
            let e = web_url("controller_public_url", Some(bad)).unwrap_err();
            assert!(e.to_string().contains("controller_public_url"), "{e}");
        }
    }
}
