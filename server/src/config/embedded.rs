//! The embedded controller's keys (`controller_*`, the controller's own settings type),
//! resolved only in a build with the `embedded-controller` feature and only when
//! `controller_url` is `embedded`, by the controller's own resolver
//! (`controller::settings::resolve`): its files default into `data_dir`, its listener to a
//! free loopback port.

use std::net::SocketAddr;
use std::path::Path;

use super::{ConfigError, Settings};

/// How the embedded controller runs: its settings, resolved.
pub type Embedded = controller::settings::Resolved;

/// The embedded controller of settings `s`; `None` when `controller_url` names a remote
/// one (its keys are then not read).
pub(super) fn resolve(
    s: &Settings,
    controller_url: &str,
    keystone_url: &str,
    data_dir: &Path,
) -> Result<Option<Embedded>, ConfigError> {
    if controller_url != "embedded" {
        return Ok(None);
    }
    let place = controller::settings::Place {
        data_dir,
        listen: SocketAddr::from(([127, 0, 0, 1], 0)),
        keystone_url,
    };
    controller::settings::resolve(&s.controller, place)
        .map(Some)
        .map_err(|e| ConfigError::Invalid {
            key: e.key,
            message: e.message,
        })
}
