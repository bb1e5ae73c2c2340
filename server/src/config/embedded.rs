//! The embedded controller's keys (`controller_listen`, `controller_database`, its service
//! user, pace, quotas and cloud), resolved only in a build with the
//! `embedded-controller` feature and only when `controller_url` is `embedded`.

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use controller::auth::ServiceCredentials;
use controller::cloud::choice::CloudChoice;
use controller::run::Tuning;
use controller::store::Database;

use super::settings::positive;
use super::{settings, ConfigError, Settings};

/// How the embedded controller runs.
#[derive(Clone, Debug)]
pub struct Embedded {
    /// Where it listens.
    pub listen: SocketAddr,
    /// Its database.
    pub database: Database,
    /// Its URL as users' tools reach it (empty: its listen address).
    pub public_url: String,
    /// Where kubernikusctl builds are published (empty: none offered).
    pub binaries_url: String,
    /// Its Keystone service user.
    pub service: ServiceCredentials,
    /// How fast its simulated cloud and reconcilers go, and the quota each project starts
    /// with.
    pub tuning: Tuning,
    /// Its cloud: simulated, or a real OpenStack.
    pub cloud: CloudChoice,
    /// Whether it serves the simulator API (never with a real cloud).
    pub simulator_api: bool,
}

impl Embedded {
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
        let service = {
            let password = s
                .controller_service_password
                .clone()
                .ok_or(ConfigError::Invalid {
                    key: "controller_service_password",
                    message: "the embedded controller needs its Keystone service user's password \
                      (MC_CONTROLLER_SERVICE_PASSWORD)"
                        .into(),
                })?;
            let domain = s
                .controller_service_domain
                .clone()
                .unwrap_or_else(|| "Default".into());
            ServiceCredentials {
                user_name: s
                    .controller_service_user
                    .clone()
                    .unwrap_or_else(|| "mission-control".into()),
                password,
                user_domain: domain.clone(),
                project: s
                    .controller_service_project
                    .clone()
                    .unwrap_or_else(|| "service".into()),
                project_domain: domain,
            }
        };
        let cloud = super::cloud::CloudKeys::of(s).resolve(keystone_url, Some(&service))?;
        let database = match &s.controller_database {
            Some(db) => db.parse().map_err(|message| ConfigError::Invalid {
                key: "controller_database",
                message,
            })?,
            None => Database::Sqlite(data_dir.join("controller.db")),
        };
        let tuning = {
            let phase = s
                .controller_phase_seconds
                .filter(|v| v.is_finite() && *v > 0.0)
                .map(Duration::from_secs_f64)
                .unwrap_or(Duration::from_secs(20));
            let mut tuning = Tuning::scaled(phase);
            if let Some(ttl) = s.controller_lease_seconds {
                tuning.lease_ttl = Duration::try_from_secs_f64(ttl)
                    .ok()
                    .filter(|d| *d >= Duration::from_secs(1))
                    .ok_or(ConfigError::Invalid {
                        key: "controller_lease_seconds",
                        message: "must be at least 1".into(),
                    })?;
            }
            if let Some(m) = s.controller_creation_timeout_minutes {
                tuning.timing.creation_timeout =
                    Duration::from_secs(60 * positive("controller_creation_timeout_minutes", m)?);
            }
            if let Some(days) = s.controller_event_retention_days {
                let days = positive("controller_event_retention_days", days)?;
                tuning.event_retention = u32::try_from(days)
                    .ok()
                    .and_then(|d| Duration::from_secs(24 * 3600).checked_mul(d))
                    .ok_or(ConfigError::Invalid {
                        key: "controller_event_retention_days",
                        message: "is too large".into(),
                    })?;
            }
            let limits = &mut tuning.sim.limits;
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
            tuning
        };
        Ok(Some(Embedded {
            listen: s
                .controller_listen
                .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0))),
            database,
            public_url: settings::web_url(
                "controller_public_url",
                s.controller_public_url.as_deref(),
            )?,
            binaries_url: settings::web_url(
                "controller_binaries_url",
                s.controller_binaries_url.as_deref(),
            )?,
            service,
            tuning,
            // A real cloud has no simulator to steer.
            simulator_api: s.controller_simulator_api.unwrap_or(false)
                && cloud == CloudChoice::Simulated,
            cloud,
        }))
    }
}
