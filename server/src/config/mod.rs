//! Runtime configuration: `Leptos.toml` (or `--config`), overridden by `MC_*` env vars,
//! overridden by command-line flags. Every key is documented in `Leptos.toml`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use url::Url;

mod settings;

pub use settings::{redact_url, SessionStoreKind, Settings};

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
    /// Where the embedded controller listens.
    pub controller_listen: SocketAddr,
    /// The embedded controller's database.
    pub controller_database: controller::store::Database,
    /// The embedded controller's URL as users' tools reach it (empty: its listen address).
    pub controller_public_url: String,
    /// Where kubernikusctl builds are published (empty: none offered).
    pub controller_binaries_url: String,
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
    /// Proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: crate::client_ip::TrustedProxies,
    /// Whether the embedded controller serves the simulator API.
    pub controller_simulator_api: bool,
    /// Live streams per session and per user.
    pub live_streams_per_user: usize,
    /// The key that seals sessions at rest.
    pub session_key_file: PathBuf,
    /// The time source (real; tests use a manual one).
    pub clock: app::ssr::Clock,
    /// How log lines look.
    pub log_format: controller::telemetry::LogFormat,
    /// Where spans are exported (OTLP/HTTP); `None`: not at all.
    pub otlp_endpoint: Option<String>,
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
        let trusted_proxies = s
            .trusted_proxies
            .unwrap_or_default()
            .iter()
            .filter(|p| !p.trim().is_empty())
            .map(|p| crate::client_ip::IpNet::parse(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|message| ConfigError::Invalid {
                key: "trusted_proxies",
                message,
            })?;
        let data_dir: PathBuf = s.data_dir.unwrap_or_else(|| ".state/data".into());
        let controller_database = match &s.controller_database {
            Some(db) => db.parse().map_err(|message| ConfigError::Invalid {
                key: "controller_database",
                message,
            })?,
            None => controller::store::Database::Sqlite(data_dir.join("controller.db")),
        };
        Ok(Config {
            site_addr,
            public_origin,
            https,
            keystone_url,
            controller_url,
            controller_database,
            controller_public_url: settings::web_url(
                "controller_public_url",
                s.controller_public_url.as_deref(),
            )?,
            controller_binaries_url: settings::web_url(
                "controller_binaries_url",
                s.controller_binaries_url.as_deref(),
            )?,
            controller_listen: s
                .controller_listen
                .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0))),
            controller_service,
            controller_pace: {
                let phase = s
                    .controller_phase_seconds
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .map(Duration::from_secs_f64)
                    .unwrap_or(Duration::from_secs(20));
                let mut pace = controller::run::Pace::scaled(phase);
                if let Some(ttl) = s.controller_lease_seconds {
                    pace.lease_ttl = Duration::try_from_secs_f64(ttl)
                        .ok()
                        .filter(|d| *d >= Duration::from_secs(1))
                        .ok_or(ConfigError::Invalid {
                            key: "controller_lease_seconds",
                            message: "must be at least 1".into(),
                        })?;
                }
                if let Some(m) = s.controller_creation_timeout_minutes {
                    pace.timing.creation_timeout = Duration::from_secs(
                        60 * positive("controller_creation_timeout_minutes", m)?,
                    );
                }
                if let Some(days) = s.controller_event_retention_days {
                    let days = positive("controller_event_retention_days", days)?;
                    pace.event_retention = u32::try_from(days)
                        .ok()
                        .and_then(|d| Duration::from_secs(24 * 3600).checked_mul(d))
                        .ok_or(ConfigError::Invalid {
                            key: "controller_event_retention_days",
                            message: "is too large".into(),
                        })?;
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
            clock: app::ssr::Clock::real(),
            session_key_file: s
                .session_key_file
                .unwrap_or_else(|| data_dir.join("session.key")),
            data_dir,
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
            trusted_proxies: crate::client_ip::TrustedProxies(trusted_proxies.into()),
            log_format: s
                .log_format
                .as_deref()
                .unwrap_or("text")
                .parse()
                .map_err(|message| ConfigError::Invalid {
                    key: "log_format",
                    message,
                })?,
            otlp_endpoint: match s.otlp_endpoint.filter(|e| !e.trim().is_empty()) {
                None => None,
                Some(e) => {
                    Url::parse(&e).map_err(|err| ConfigError::Invalid {
                        key: "otlp_endpoint",
                        message: format!("{e:?} is not a URL: {err}"),
                    })?;
                    Some(e)
                }
            },
            controller_simulator_api: s.controller_simulator_api.unwrap_or(false),
            live_streams_per_user: positive(
                "live_streams_per_user",
                s.live_streams_per_user.unwrap_or(10) as u64,
            )? as usize,
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
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../Leptos.toml");
        let s = Settings::from_file(&path).unwrap();
        assert!(s.site_addr.is_some() && s.keystone_url.is_some());
        Config::resolve(s).unwrap();
    }

    #[test]
    fn event_retention_is_a_week_unless_set_in_whole_days() {
        let base = || Settings {
            controller_url: Some("http://k".into()),
            ..Default::default()
        };
        let day = Duration::from_secs(24 * 3600);
        let c = Config::resolve(base()).unwrap();
        assert_eq!(c.controller_pace.event_retention, 7 * day);
        let s = Settings {
            controller_event_retention_days: Some(2),
            ..base()
        };
        assert_eq!(
            Config::resolve(s).unwrap().controller_pace.event_retention,
            2 * day
        );
        let s = Settings {
            controller_event_retention_days: Some(0),
            ..base()
        };
        let err = Config::resolve(s).unwrap_err().to_string();
        assert!(err.starts_with("controller_event_retention_days:"), "{err}");
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

    #[test]
    fn logs_are_text_and_span_export_off_unless_configured() {
        let base = || Settings {
            controller_url: Some("http://k".into()),
            ..Default::default()
        };
        let c = Config::resolve(base()).unwrap();
        assert_eq!(c.log_format, controller::telemetry::LogFormat::Text);
        assert_eq!(c.otlp_endpoint, None, "no export by default");
        let c = Config::resolve(Settings {
            log_format: Some("json".into()),
            otlp_endpoint: Some("  ".into()),
            ..base()
        })
        .unwrap();
        assert_eq!(c.log_format, controller::telemetry::LogFormat::Json);
        assert_eq!(c.otlp_endpoint, None, "an empty endpoint exports nothing");
        let err = Config::resolve(Settings {
            log_format: Some("xml".into()),
            ..base()
        })
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("log_format:"), "{err}");
        let err = Config::resolve(Settings {
            otlp_endpoint: Some("127.0.0.1:4318".into()),
            ..base()
        })
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("otlp_endpoint:"), "{err}");
    }
}
