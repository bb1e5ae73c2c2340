//! The settings as given by the file, the environment or the flags: every field optional,
//! so that the layers merge (flag > env > file > default).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
pub use controller_settings::ControllerSettings;
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
// Unknown keys are refused by `from_file` (serde cannot deny them beside a flattened field).
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
    /// A PEM file of CA certificates to trust for Keystone (a private cloud's own CA),
    /// beside the built-in roots and the system's bundle. Default: none.
    #[arg(long, env = "MC_KEYSTONE_CA_FILE")]
    pub keystone_ca_file: Option<PathBuf>,
    /// Seconds a call to Keystone may take (sign-in, token checks). Default: 15.
    #[arg(long, env = "MC_KEYSTONE_TIMEOUT_SECONDS")]
    pub keystone_timeout_seconds: Option<f64>,
    /// Kubernikus API base URL, "embedded" for the built-in controller stack, or "catalog"
    /// for one per region, found in each user's token catalog (service type kubernikus).
    #[arg(long, env = "MC_CONTROLLER_URL")]
    pub controller_url: Option<String>,
    /// With controller_url = "catalog": the endpoints' interface (public, internal, admin).
    #[arg(long, env = "MC_CONTROLLER_CATALOG_INTERFACE")]
    pub controller_catalog_interface: Option<String>,
    /// The controller's settings (`controller_*`), read when `controller_url` is
    /// `embedded` (in a build with the embedded controller).
    #[command(flatten)]
    #[serde(flatten)]
    pub controller: ControllerSettings,
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
        let parse = |message: String| ConfigError::Parse {
            path: path.into(),
            message,
        };
        let table: toml::Table = toml::from_str(&text).map_err(|e| parse(e.to_string()))?;
        if let Some(key) = table.keys().find(|k| !Settings::is_key(k)) {
            return Err(parse(format!(
                "unknown key `{key}` (every key is listed in Leptos.toml and docs/operations.md)"
            )));
        }
        table.clone().try_into().map_err(|e: toml::de::Error| {
            // A flattened field's error does not say which key: find it, one key at a time.
            let bad = table.into_iter().find_map(|(key, value)| {
                let one = toml::Table::from_iter([(key.clone(), value)]);
                let e = one.try_into::<Settings>().err()?;
                Some(format!("`{key}`: {}", e.message()))
            });
            parse(bad.unwrap_or_else(|| e.to_string()))
        })
    }

    /// Whether `key` is a configuration key: a flag's name with `_` for `-` (`config`,
    /// the file itself, is not).
    pub fn is_key(key: &str) -> bool {
        key != "config"
            && Settings::command()
                .get_arguments()
                .any(|a| a.get_id().as_str() == key)
    }

    /// Fields set in `self` win over those of `lower`.
    pub fn over(self, lower: Settings) -> Settings {
        macro_rules! layered {
            ($($field:ident),* $(,)?) => {
                Settings {
                    config: self.config,
                    controller: self.controller.over(lower.controller),
                    $($field: self.$field.or(lower.$field),)*
                }
            };
        }
        layered!(
            site_addr,
            public_origin,
            keystone_url,
            keystone_ca_file,
            keystone_timeout_seconds,
            controller_url,
            controller_catalog_interface,
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
