//! Runtime configuration: `Leptos.toml` (or `--config`), overridden by `MC_*` env vars,
//! overridden by command-line flags. Every key is documented in `Leptos.toml`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use serde::Deserialize;
use url::Url;

/// Where sessions are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SessionStoreKind {
    /// SQLite database `sessions.db` in the data dir; survives restarts.
    Sqlite,
    /// In-process memory; sessions end when the server stops.
    Memory,
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
    /// Kubernikus API base URL, or "embedded" for the built-in controller stack.
    #[arg(long, env = "MC_CONTROLLER_URL")]
    pub controller_url: Option<String>,
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
    /// Instance quota of each project in the simulated cloud (default 10).
    #[arg(long, env = "MC_CONTROLLER_QUOTA_INSTANCES")]
    pub controller_quota_instances: Option<u64>,
    /// vCPU quota of each project in the simulated cloud (default 20).
    #[arg(long, env = "MC_CONTROLLER_QUOTA_CORES")]
    pub controller_quota_cores: Option<u64>,
    /// RAM quota (MiB) of each project in the simulated cloud (default 51200).
    #[arg(long, env = "MC_CONTROLLER_QUOTA_RAM_MB")]
    pub controller_quota_ram_mb: Option<u64>,
    /// Session store: sqlite or memory.
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
}

/// A configuration error, in words.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown keys.
    #[error("{path} is invalid: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A value is out of range or malformed.
    #[error("{key}: {message}")]
    Invalid {
        /// The key.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// The effective configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Listen address.
    pub site_addr: SocketAddr,
    /// Public origin (scheme://host[:port]) without a trailing slash.
    pub public_origin: String,
    /// Whether the public origin is https (Secure + `__Host-` cookie).
    pub https: bool,
    /// Keystone v3 endpoint.
    pub keystone_url: String,
    /// Kubernikus API base URL or "embedded".
    pub controller_url: String,
    /// Service credentials of the embedded controller (`None` with a remote controller).
    pub controller_service: Option<controller::auth::ServiceCredentials>,
    /// How fast the embedded controller's simulated cloud and reconcilers go, and the
    /// quota each project starts with.
    pub controller_pace: controller::run::Pace,
    /// Session store kind.
    pub session_store: SessionStoreKind,
    /// Data directory.
    pub data_dir: PathBuf,
    /// Built site directory.
    pub site_root: PathBuf,
    /// Inactivity expiry.
    pub session_idle: Duration,
    /// Absolute session lifetime cap.
    pub session_max_lifetime: Duration,
    /// Token re-check interval.
    pub token_recheck: Duration,
    /// Sign-in failure limits.
    pub login_failures_per_user: usize,
    /// Sign-in failure limits per client.
    pub login_failures_per_client: usize,
    /// Sign-in failure window.
    pub login_window: Duration,
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
        Settings {
            config: self.config,
            site_addr: self.site_addr.or(lower.site_addr),
            public_origin: self.public_origin.or(lower.public_origin),
            keystone_url: self.keystone_url.or(lower.keystone_url),
            controller_url: self.controller_url.or(lower.controller_url),
            controller_service_user: self
                .controller_service_user
                .or(lower.controller_service_user),
            controller_service_password: self
                .controller_service_password
                .or(lower.controller_service_password),
            controller_service_domain: self
                .controller_service_domain
                .or(lower.controller_service_domain),
            controller_service_project: self
                .controller_service_project
                .or(lower.controller_service_project),
            controller_phase_seconds: self
                .controller_phase_seconds
                .or(lower.controller_phase_seconds),
            controller_creation_timeout_minutes: self
                .controller_creation_timeout_minutes
                .or(lower.controller_creation_timeout_minutes),
            controller_quota_instances: self
                .controller_quota_instances
                .or(lower.controller_quota_instances),
            controller_quota_cores: self.controller_quota_cores.or(lower.controller_quota_cores),
            controller_quota_ram_mb: self
                .controller_quota_ram_mb
                .or(lower.controller_quota_ram_mb),
            session_store: self.session_store.or(lower.session_store),
            data_dir: self.data_dir.or(lower.data_dir),
            site_root: self.site_root.or(lower.site_root),
            session_idle_minutes: self.session_idle_minutes.or(lower.session_idle_minutes),
            session_max_lifetime_secs: self
                .session_max_lifetime_secs
                .or(lower.session_max_lifetime_secs),
            token_recheck_secs: self.token_recheck_secs.or(lower.token_recheck_secs),
            login_failures_per_user: self
                .login_failures_per_user
                .or(lower.login_failures_per_user),
            login_failures_per_client: self
                .login_failures_per_client
                .or(lower.login_failures_per_client),
            login_window_secs: self.login_window_secs.or(lower.login_window_secs),
        }
    }
}

impl Config {
    /// Parses flags and env, reads the file they name, and resolves defaults.
    pub fn load() -> Result<Config, ConfigError> {
        let cli = Settings::parse();
        let file = Settings::from_file(&cli.config)?;
        Config::resolve(cli.over(file))
    }

    /// Applies defaults and validates.
    pub fn resolve(s: Settings) -> Result<Config, ConfigError> {
        let site_addr = s
            .site_addr
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 3000)));
        let public_origin = match s.public_origin {
            Some(o) => normalize_origin(&o)?,
            None => format!("http://{site_addr}"),
        };
        let https = public_origin.starts_with("https://");
        let keystone_url = s
            .keystone_url
            .unwrap_or_else(|| "http://127.0.0.1:5000/v3".into());
        Url::parse(&keystone_url).map_err(|e| ConfigError::Invalid {
            key: "keystone_url",
            message: format!("{keystone_url:?} is not a URL: {e}"),
        })?;
        let controller_url = s.controller_url.unwrap_or_else(|| "embedded".into());
        let controller_service = if controller_url == "embedded" {
            let password = s.controller_service_password.ok_or(ConfigError::Invalid {
                key: "controller_service_password",
                message: "the embedded controller needs its Keystone service user's password \
                          (MC_CONTROLLER_SERVICE_PASSWORD)"
                    .into(),
            })?;
            let domain = s
                .controller_service_domain
                .unwrap_or_else(|| "Default".into());
            Some(controller::auth::ServiceCredentials {
                user_name: s
                    .controller_service_user
                    .unwrap_or_else(|| "mission-control".into()),
                password,
                user_domain: domain.clone(),
                project: s
                    .controller_service_project
                    .unwrap_or_else(|| "service".into()),
                project_domain: domain,
            })
        } else {
            Url::parse(&controller_url).map_err(|e| ConfigError::Invalid {
                key: "controller_url",
                message: format!("{controller_url:?} is neither \"embedded\" nor a URL: {e}"),
            })?;
            None
        };
        let positive = |key: &'static str, v: u64| {
            if v == 0 {
                Err(ConfigError::Invalid {
                    key,
                    message: "must be greater than 0".into(),
                })
            } else {
                Ok(v)
            }
        };
        Ok(Config {
            site_addr,
            public_origin,
            https,
            keystone_url,
            controller_url,
            controller_service,
            controller_pace: {
                let phase = s
                    .controller_phase_seconds
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .map(Duration::from_secs_f64)
                    .unwrap_or(Duration::from_secs(20));
                let mut pace = controller::run::Pace::scaled(phase);
                if let Some(m) = s.controller_creation_timeout_minutes {
                    pace.timing.creation_timeout = Duration::from_secs(
                        60 * positive("controller_creation_timeout_minutes", m)?,
                    );
                }
                let limits = &mut pace.sim.limits;
                let quota = |key, v: Option<u64>, default: i64| match v {
                    Some(v) => i64::try_from(v).map_err(|_| ConfigError::Invalid {
                        key,
                        message: "is too large".into(),
                    }),
                    None => Ok(default),
                };
                limits.instances = quota(
                    "controller_quota_instances",
                    s.controller_quota_instances,
                    limits.instances,
                )?;
                limits.cores = quota(
                    "controller_quota_cores",
                    s.controller_quota_cores,
                    limits.cores,
                )?;
                limits.ram = quota(
                    "controller_quota_ram_mb",
                    s.controller_quota_ram_mb,
                    limits.ram,
                )?;
                pace
            },
            session_store: s.session_store.unwrap_or(SessionStoreKind::Sqlite),
            data_dir: s.data_dir.unwrap_or_else(|| ".state/data".into()),
            site_root: s.site_root.unwrap_or_else(|| "target/site".into()),
            session_idle: Duration::from_secs(
                60 * positive("session_idle_minutes", s.session_idle_minutes.unwrap_or(60))?,
            ),
            session_max_lifetime: Duration::from_secs(positive(
                "session_max_lifetime_secs",
                s.session_max_lifetime_secs.unwrap_or(12 * 3600),
            )?),
            token_recheck: Duration::from_secs(s.token_recheck_secs.unwrap_or(30)),
            login_failures_per_user: s.login_failures_per_user.unwrap_or(5),
            login_failures_per_client: s.login_failures_per_client.unwrap_or(20),
            login_window: Duration::from_secs(positive(
                "login_window_secs",
                s.login_window_secs.unwrap_or(300),
            )?),
        })
    }
}

/// `scheme://host[:port]`, lower-cased, no path or trailing slash.
fn normalize_origin(o: &str) -> Result<String, ConfigError> {
    let bad = |m: String| ConfigError::Invalid {
        key: "public_origin",
        message: m,
    };
    let url = Url::parse(o).map_err(|e| bad(format!("{o:?} is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(bad(format!("{o:?} must be http(s)://host[:port]")));
    }
    if url.path() != "/" || url.query().is_some() {
        return Err(bad(format!("{o:?} must not have a path or query")));
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_beat_file_and_defaults_fill_the_rest() {
        let file: Settings = toml::from_str(
            "site_addr = \"127.0.0.1:4000\"\nkeystone_url = \"http://file/v3\"\nsession_store = \"memory\"",
        )
        .unwrap();
        let cli = Settings {
            keystone_url: Some("http://flag/v3".into()),
            controller_service_password: Some("pw".into()),
            ..Default::default()
        };
        let c = Config::resolve(cli.over(file)).unwrap();
        assert_eq!(c.keystone_url, "http://flag/v3");
        assert_eq!(c.site_addr.port(), 4000);
        assert_eq!(c.session_store, SessionStoreKind::Memory);
        assert_eq!(c.public_origin, "http://127.0.0.1:4000");
        assert!(!c.https);
        assert_eq!(c.controller_url, "embedded");
        assert_eq!(c.controller_service.unwrap().user_name, "mission-control");
    }

    #[test]
    fn the_embedded_controller_needs_a_service_password_a_remote_one_does_not() {
        let err = Config::resolve(Settings::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("controller_service_password:"), "{err}");
        let remote = Settings {
            controller_url: Some("https://kubernikus.example".into()),
            ..Default::default()
        };
        assert!(Config::resolve(remote)
            .unwrap()
            .controller_service
            .is_none());
    }

    #[test]
    fn the_shipped_leptos_toml_parses() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Leptos.toml");
        let s = Settings::from_file(&path).unwrap();
        assert!(s.site_addr.is_some() && s.keystone_url.is_some());
        Config::resolve(s).unwrap();
    }

    #[test]
    fn unknown_keys_and_bad_origins_are_rejected_with_the_key_named() {
        let err = toml::from_str::<Settings>("keystone = \"x\"").unwrap_err();
        assert!(err.to_string().contains("unknown field"), "{err}");
        let base = || Settings {
            controller_url: Some("http://k".into()),
            ..Default::default()
        };
        let s = Settings {
            public_origin: Some("https://mc.example/app".into()),
            ..base()
        };
        let err = Config::resolve(s).unwrap_err().to_string();
        assert!(err.starts_with("public_origin:"), "{err}");
        let s = Settings {
            public_origin: Some("HTTPS://MC.example:443/".into()),
            ..base()
        };
        let c = Config::resolve(s).unwrap();
        assert_eq!(c.public_origin, "https://mc.example");
        assert!(c.https);
    }
}
