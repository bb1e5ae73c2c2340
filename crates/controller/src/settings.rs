//! The controller's settings ([`ControllerSettings`], from the `controller-settings` crate)
//! resolved once, for both of its homes: defaults applied and every value checked, naming
//! the key of the first bad one ([`SettingError`]). The standalone binary and the
//! dashboard's embedded controller differ only in [`Place`] (where files go by default,
//! where to listen) and in what they pass to [`Resolved::config`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use controller_settings as defaults;
pub use controller_settings::ControllerSettings;

use crate::api::ApiSettings;
use crate::auth::ServiceCredentials;
use crate::cloud::choice::CloudChoice;
use crate::cloud::openstack::OpenStackConfig;
use crate::pki::SealKey;
use crate::run::{ControllerConfig, Tuning};
use crate::store::Database;

/// A setting out of range or malformed: its key and what is wrong (never its value when
/// it is a secret).
#[derive(Debug, PartialEq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct SettingError {
    /// The configuration key (`controller_lease_seconds`).
    pub key: &'static str,
    /// What is wrong, in words.
    pub message: String,
}

fn invalid(key: &'static str, message: impl Into<String>) -> SettingError {
    SettingError {
        key,
        message: message.into(),
    }
}

/// What differs between the controller's homes.
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    /// Where the database and the CA key file go unless set (the dashboard's `data_dir`;
    /// standalone, `.state/data`).
    pub data_dir: &'a Path,
    /// Where to listen unless set.
    pub listen: SocketAddr,
    /// The Keystone the controller validates tokens with (and, unless set, the cloud's).
    pub keystone_url: &'a str,
}

/// The settings with their defaults, checked.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// Where it listens.
    pub listen: SocketAddr,
    /// Its database.
    pub database: Database,
    /// The file of the key that seals the klusters' CA keys.
    pub ca_key_file: PathBuf,
    /// Its policy file (`None`: the built-in rules).
    pub policy_file: Option<PathBuf>,
    /// Its URL as users' tools reach it (empty: its listen address).
    pub public_url: String,
    /// Where kubernikusctl builds are published (empty: none offered).
    pub binaries_url: String,
    /// Its Keystone service user.
    pub service: ServiceCredentials,
    /// How fast its simulated cloud and reconcilers go, and each project's quota there.
    pub tuning: Tuning,
    /// Its cloud: simulated, or a real OpenStack.
    pub cloud: CloudChoice,
    /// Whether it serves the simulator API (never with a real cloud).
    pub simulator_api: bool,
    /// Browser origins allowed by CORS.
    pub cors_origins: Vec<String>,
}

impl Resolved {
    /// The controller's whole configuration: these settings, the sealing key read from
    /// [`Resolved::ca_key_file`] and the proxies whose `X-Forwarded-For` is believed.
    pub fn config(
        self,
        keystone_url: &str,
        ca_key: SealKey,
        trusted_proxies: crate::net::TrustedProxies,
    ) -> ControllerConfig {
        ControllerConfig {
            listen: self.listen,
            keystone_url: keystone_url.to_string(),
            service: self.service,
            database: self.database,
            policy_file: self.policy_file,
            token_cache: Duration::from_secs(300),
            settings: ApiSettings {
                cors_origins: self.cors_origins,
                auth_url: keystone_url.to_string(),
                public_url: self.public_url,
                binaries_url: self.binaries_url,
                simulator_api: self.simulator_api,
                trusted_proxies,
                ..Default::default()
            },
            ca_key,
            tuning: self.tuning,
            cloud: self.cloud,
        }
    }
}

/// Applies the defaults to `s` and checks every value.
pub fn resolve(s: &ControllerSettings, place: Place<'_>) -> Result<Resolved, SettingError> {
    let service = service(s)?;
    let cloud = cloud(s, place.keystone_url, &service)?;
    let database = match &s.controller_database {
        Some(db) => db
            .parse()
            .map_err(|m: String| invalid("controller_database", m))?,
        None => Database::Sqlite(place.data_dir.join("controller.db")),
    };
    Ok(Resolved {
        listen: s.controller_listen.unwrap_or(place.listen),
        database,
        ca_key_file: s
            .controller_ca_key_file
            .clone()
            .unwrap_or_else(|| place.data_dir.join("controller-ca.key")),
        policy_file: s.controller_policy.clone(),
        public_url: web_url("controller_public_url", s.controller_public_url.as_deref())?,
        binaries_url: web_url(
            "controller_binaries_url",
            s.controller_binaries_url.as_deref(),
        )?,
        service,
        tuning: tuning(s)?,
        // A real cloud has no simulator to steer.
        simulator_api: s.controller_simulator_api.unwrap_or(false)
            && cloud == CloudChoice::Simulated,
        cloud,
        cors_origins: s
            .controller_cors_origins
            .iter()
            .flatten()
            .map(|o| o.trim().to_string())
            .filter(|o| !o.is_empty())
            .collect(),
    })
}

fn service(s: &ControllerSettings) -> Result<ServiceCredentials, SettingError> {
    let password = s.controller_service_password.clone().ok_or(invalid(
        "controller_service_password",
        "the controller needs its Keystone service user's password \
         (MC_CONTROLLER_SERVICE_PASSWORD)",
    ))?;
    let or = |v: &Option<String>, d: &str| v.clone().unwrap_or_else(|| d.to_string());
    let domain = or(&s.controller_service_domain, defaults::SERVICE_DOMAIN);
    Ok(ServiceCredentials {
        user_name: or(&s.controller_service_user, defaults::SERVICE_USER),
        password,
        user_domain: domain.clone(),
        project: or(&s.controller_service_project, defaults::SERVICE_PROJECT),
        project_domain: domain,
    })
}

/// Seconds of setting `key`, above 0 (and at least `min`).
fn seconds(key: &'static str, v: f64, min: Duration) -> Result<Duration, SettingError> {
    Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero() && *d >= min)
        .ok_or_else(|| match min.is_zero() {
            true => invalid(key, "must be greater than 0"),
            false => invalid(key, format!("must be at least {}", min.as_secs_f64())),
        })
}

/// `v` whole `unit`s (minutes, days) of setting `key`: above 0, and not too large.
fn whole(key: &'static str, v: u64, unit: Duration) -> Result<Duration, SettingError> {
    if v == 0 {
        return Err(invalid(key, "must be greater than 0"));
    }
    u32::try_from(v)
        .ok()
        .and_then(|v| unit.checked_mul(v))
        .ok_or(invalid(key, "is too large"))
}

fn tuning(s: &ControllerSettings) -> Result<Tuning, SettingError> {
    let phase = seconds(
        "controller_phase_seconds",
        s.controller_phase_seconds
            .unwrap_or(defaults::PHASE_SECONDS),
        Duration::ZERO,
    )?;
    let mut t = Tuning::scaled(phase);
    t.lease_ttl = seconds(
        "controller_lease_seconds",
        s.controller_lease_seconds
            .unwrap_or(defaults::LEASE_SECONDS as f64),
        Duration::from_secs(1),
    )?;
    t.timing.creation_timeout = whole(
        "controller_creation_timeout_minutes",
        s.controller_creation_timeout_minutes
            .unwrap_or(defaults::CREATION_TIMEOUT_MINUTES),
        Duration::from_secs(60),
    )?;
    t.timing.create_retry = seconds(
        "controller_create_retry_seconds",
        s.controller_create_retry_seconds
            .unwrap_or(defaults::CREATE_RETRY_SECONDS),
        Duration::from_millis(100),
    )?;
    t.timing.create_retry_cap = seconds(
        "controller_create_retry_cap_seconds",
        s.controller_create_retry_cap_seconds
            .unwrap_or(defaults::CREATE_RETRY_CAP_SECONDS.max(t.timing.create_retry.as_secs_f64())),
        t.timing.create_retry,
    )?;
    if let Some(f) = s.controller_full_listing_seconds {
        t.full_listing_every = match f {
            0.0 => Duration::ZERO,
            f => seconds("controller_full_listing_seconds", f, Duration::from_secs(1))?,
        };
    }
    if let Some(r) = s.controller_resync_seconds {
        t.resync_every = seconds("controller_resync_seconds", r, t.reconcile_every)?;
    }
    t.event_retention = whole(
        "controller_event_retention_days",
        s.controller_event_retention_days
            .unwrap_or(defaults::EVENT_RETENTION_DAYS),
        Duration::from_secs(24 * 3600),
    )?;
    t.reconcile_concurrency = match s.controller_reconcile_concurrency {
        Some(0) => {
            return Err(invalid(
                "controller_reconcile_concurrency",
                "must be at least 1",
            ))
        }
        Some(n) => n,
        None => defaults::RECONCILE_CONCURRENCY,
    };
    if let Some(b) = s.controller_project_budget_seconds {
        t.project_budget = seconds("controller_project_budget_seconds", b, Duration::ZERO)?;
    }
    let quota = |key, v: Option<u64>, default: u64| {
        i64::try_from(v.unwrap_or(default)).map_err(|_| invalid(key, "is too large"))
    };
    t.sim.limits.instances = quota(
        "controller_quota_instances",
        s.controller_quota_instances,
        defaults::QUOTA_INSTANCES,
    )?;
    t.sim.limits.cores = quota(
        "controller_quota_cores",
        s.controller_quota_cores,
        defaults::QUOTA_CORES,
    )?;
    t.sim.limits.ram = quota(
        "controller_quota_ram_mb",
        s.controller_quota_ram_mb,
        defaults::QUOTA_RAM_MB,
    )?;
    Ok(t)
}

/// The controller's cloud. OpenStack's user, password, domain and project default to the
/// controller's service user, its Keystone to `keystone_url`.
fn cloud(
    s: &ControllerSettings,
    keystone_url: &str,
    service: &ServiceCredentials,
) -> Result<CloudChoice, SettingError> {
    match s.controller_cloud.as_deref().map(str::trim) {
        None | Some("simulated") => return Ok(CloudChoice::Simulated),
        Some("openstack") => {}
        Some(other) => {
            return Err(invalid(
                "controller_cloud",
                format!("{other:?}: expected \"simulated\" or \"openstack\""),
            ))
        }
    }
    let or = |v: &Option<String>, d: &str| v.clone().unwrap_or_else(|| d.to_string());
    let user_domain = or(&s.controller_openstack_user_domain, &service.user_domain);
    let mut c = OpenStackConfig::new(
        or(&s.controller_openstack_auth_url, keystone_url),
        or(&s.controller_openstack_user, &service.user_name),
        or(&s.controller_openstack_password, &service.password),
        user_domain.clone(),
        or(&s.controller_openstack_project, &service.project),
    );
    c.project_domain = or(&s.controller_openstack_project_domain, &user_domain);
    c.region = s.controller_openstack_region.clone().unwrap_or_default();
    if let Some(i) = &s.controller_openstack_interface {
        c.interface = i
            .parse()
            .map_err(|m| invalid("controller_openstack_interface", m))?;
    }
    c.timeout = seconds(
        "controller_openstack_timeout_seconds",
        s.controller_openstack_timeout_seconds
            .unwrap_or(defaults::OPENSTACK_TIMEOUT_SECONDS),
        Duration::ZERO,
    )?;
    c.attempts = match s.controller_openstack_attempts {
        Some(0) => {
            return Err(invalid(
                "controller_openstack_attempts",
                "must be at least 1",
            ))
        }
        Some(n) => n,
        None => defaults::OPENSTACK_ATTEMPTS,
    };
    if let Some(path) = &s.controller_openstack_ca_file {
        keystone::trust::read_pem(path).map_err(|m| invalid("controller_openstack_ca_file", m))?;
        c.ca_file = Some(path.clone());
    }
    c.kluster_user_domain = s
        .controller_openstack_kluster_user_domain
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    c.kluster_user_roles = roles_of(
        s.controller_openstack_kluster_user_roles
            .as_deref()
            .unwrap_or(defaults::OPENSTACK_KLUSTER_USER_ROLES),
    );
    c.notifications = notifications(s, c.ca_file.as_ref())?;
    // Never the password: validate's words name what is wrong, not the values.
    c.validate()
        .map_err(|e| invalid("controller_openstack_*", e.message))?;
    Ok(CloudChoice::OpenStack(Box::new(c)))
}

/// Where Nova's notifications are read (`None`: not configured).
fn notifications(
    s: &ControllerSettings,
    ca_file: Option<&PathBuf>,
) -> Result<Option<crate::notices::NoticeConfig>, SettingError> {
    let key = "controller_openstack_notifications_url";
    let Some(url) = s
        .controller_openstack_notifications_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
    else {
        return Ok(None);
    };
    crate::notices::check_url(url).map_err(|m| invalid(key, m))?;
    let topic = s
        .controller_openstack_notifications_topic
        .as_deref()
        .map(str::trim)
        .unwrap_or(crate::notices::DEFAULT_TOPIC);
    if topic.is_empty() || topic.contains(['#', '*']) {
        return Err(invalid(
            "controller_openstack_notifications_topic",
            "must be a topic name (no wildcards)",
        ));
    }
    Ok(Some(crate::notices::NoticeConfig {
        url: url.to_string(),
        topic: topic.to_string(),
        ca_file: ca_file.cloned(),
    }))
}

/// A comma-separated list of role names, blanks dropped.
pub fn roles_of(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(String::from)
        .collect()
}

/// The http(s) URL of setting `key` without a trailing slash; empty when unset.
pub fn web_url(key: &'static str, v: Option<&str>) -> Result<String, SettingError> {
    let Some(v) = v.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(String::new());
    };
    match url::Url::parse(v) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => {
            Ok(v.trim_end_matches('/').to_string())
        }
        _ => Err(invalid(key, format!("{v:?} is not an http(s) URL"))),
    }
}

#[cfg(test)]
mod tests;
