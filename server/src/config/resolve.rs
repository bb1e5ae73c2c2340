//! [`Config::resolve`]: applies the defaults to the merged [`Settings`] and validates every
//! value, naming the key of the first bad one.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use super::settings::positive;
use super::{Config, ConfigError, SessionStoreKind, Settings, CATALOG};

impl Config {
    /// Applies defaults and validates.
    pub fn resolve(s: Settings) -> Result<Config, ConfigError> {
        let site_addr = s
            .site_addr
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 3000)));
        let public_origin = match &s.public_origin {
            Some(o) => normalize_origin(o)?,
            None => format!("http://{site_addr}"),
        };
        let https = public_origin.starts_with("https://");
        let keystone_url = s
            .keystone_url
            .clone()
            .unwrap_or_else(|| "http://127.0.0.1:5000/v3".into());
        Url::parse(&keystone_url).map_err(|e| ConfigError::Invalid {
            key: "keystone_url",
            message: format!("{keystone_url:?} is not a URL: {e}"),
        })?;
        let controller_url = s
            .controller_url
            .clone()
            .unwrap_or_else(|| "embedded".into());
        if controller_url != "embedded" && controller_url != CATALOG {
            Url::parse(&controller_url).map_err(|e| ConfigError::Invalid {
                key: "controller_url",
                message: format!(
                    "{controller_url:?} is neither \"embedded\", \"catalog\" nor a URL: {e}"
                ),
            })?;
        } else if cfg!(not(feature = "embedded-controller")) {
            return Err(ConfigError::Invalid {
                key: "controller_url",
                message: "this build has no embedded controller (built without the \
                          embedded-controller feature): set it to a Kubernikus API's URL"
                    .into(),
            });
        }
        let controller_interface = s
            .controller_catalog_interface
            .clone()
            .unwrap_or_else(|| "public".into());
        if !matches!(
            controller_interface.as_str(),
            "public" | "internal" | "admin"
        ) {
            return Err(ConfigError::Invalid {
                key: "controller_catalog_interface",
                message: format!(
                    "{controller_interface:?} is not an interface: public, internal or admin"
                ),
            });
        }
        let keystone_options = keystone_options(&s)?;
        let data_dir: PathBuf = s.data_dir.clone().unwrap_or_else(|| ".state/data".into());
        #[cfg(feature = "embedded-controller")]
        let embedded = super::embedded::resolve(&s, &controller_url, &keystone_url, &data_dir)?;
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
        Ok(Config {
            site_addr,
            public_origin,
            https,
            keystone_url,
            keystone_options,
            #[cfg(feature = "embedded-controller")]
            embedded,
            controller_url,
            controller_interface,
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
            live_streams_per_user: positive(
                "live_streams_per_user",
                s.live_streams_per_user.unwrap_or(10) as u64,
            )? as usize,
            live_poll: match s.live_poll_seconds {
                None => Duration::from_secs(5),
                Some(v) => Duration::try_from_secs_f64(v)
                    .ok()
                    .filter(|d| *d >= Duration::from_millis(50))
                    .ok_or(ConfigError::Invalid {
                        key: "live_poll_seconds",
                        message: "must be at least 0.05 (seconds)".into(),
                    })?,
            },
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

/// The Keystone client's timeouts and CA file (`keystone_timeout_seconds`, at most 10 s of
/// it to connect; `keystone_ca_file`, checked readable here).
fn keystone_options(s: &Settings) -> Result<keystone::ClientOptions, ConfigError> {
    let secs = s.keystone_timeout_seconds.unwrap_or(15.0);
    let timeout = Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| ConfigError::Invalid {
            key: "keystone_timeout_seconds",
            message: format!("{secs} must be a number of seconds above 0"),
        })?;
    if let Some(path) = &s.keystone_ca_file {
        keystone::trust::read_pem(path).map_err(|message| ConfigError::Invalid {
            key: "keystone_ca_file",
            message,
        })?;
    }
    Ok(keystone::ClientOptions {
        connect_timeout: timeout.min(Duration::from_secs(10)),
        timeout,
        ca_file: s.keystone_ca_file.clone(),
    })
}
