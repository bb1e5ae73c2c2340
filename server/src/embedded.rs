//! The embedded controller, started beside the dashboard (cargo feature
//! `embedded-controller`): its own listener on loopback, its router answered in-process.

use crate::config::{Config, Embedded};
use crate::{in_process, sessions, StartError};

/// Starts the embedded controller of `embedded`: its loopback URL and its router answered
/// in-process (its listener stays for health checks, tools and other replicas).
pub async fn start(
    config: &Config,
    embedded: &Embedded,
    shutdown: &serving::shutdown::Shutdown,
) -> Result<(String, in_process::InProcess), StartError> {
    if let controller::store::Database::Sqlite(path) = &embedded.database {
        sessions::private_db(path).map_err(|e| {
            StartError::Store(format!("data_dir {}: {e}", config.data_dir.display()))
        })?;
    }
    let ca_key = controller::run::load_or_create_key(&embedded.ca_key_file)?;
    // Only this process reaches the loopback port: it forwards the browser's address for
    // the audit trail.
    let loopback = controller::net::TrustedProxies(
        ["127.0.0.1", "::1"]
            .iter()
            .filter_map(|a| controller::net::IpNet::parse(a).ok())
            .collect(),
    );
    let running = controller::run::start(
        embedded
            .clone()
            .config(&config.keystone_url, ca_key, loopback),
        shutdown.signal(),
    )
    .await?;
    Ok((
        format!("http://{}", running.addr),
        in_process::InProcess::new(running.router.clone()),
    ))
}
