//! Runtime configuration: `Leptos.toml` (or `--config`), overridden by `MC_*` env vars,
//! overridden by command-line flags. Every key is documented in `Leptos.toml`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

#[cfg(feature = "embedded-controller")]
mod embedded;
mod resolve;
mod settings;
#[cfg(test)]
mod tests;

#[cfg(feature = "embedded-controller")]
pub use embedded::Embedded;
pub use settings::{redact_url, ControllerSettings, SessionStoreKind, Settings};

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

/// The `controller_url` that finds a Kubernikus API per region in the user's token catalog
/// (service type `kubernikus`).
pub const CATALOG: &str = "catalog";

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
    /// How the dashboard's Keystone client connects: timeouts and the CA file.
    pub keystone_options: keystone::ClientOptions,
    /// Kubernikus API base URL, "embedded", or [`CATALOG`] (one per region, found in each
    /// user's token catalog).
    pub controller_url: String,
    /// The catalog interface whose `kubernikus` endpoints are used with [`CATALOG`].
    pub controller_interface: String,
    /// The embedded controller (`None` with a remote `controller_url`).
    #[cfg(feature = "embedded-controller")]
    pub embedded: Option<Embedded>,
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
    /// Live streams per session and per user.
    pub live_streams_per_user: usize,
    /// Poll interval against a Kubernikus without the event-stream extension.
    pub live_poll: Duration,
    /// The key that seals sessions at rest.
    pub session_key_file: PathBuf,
    /// The time source (real; tests use a manual one).
    pub clock: app::ssr::Clock,
    /// How log lines look.
    pub log_format: serving::telemetry::LogFormat,
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
}
