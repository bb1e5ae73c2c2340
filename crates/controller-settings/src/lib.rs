//! The controller's settings, as one type for both of its homes: the standalone
//! `kubernikus-controller` and the dashboard that embeds it. Each field is a configuration
//! key (`controller_lease_seconds`), an environment variable (`MC_CONTROLLER_LEASE_SECONDS`)
//! and a flag: `--controller-lease-seconds` in the dashboard, `--lease-seconds` in the
//! standalone binary ([`standalone_flags`] drops the prefix). Every field is optional, so
//! that layers merge (flag > environment > file, [`ControllerSettings::over`]); the
//! defaults are the constants below, applied and validated once by the controller crate
//! (`controller::settings`). A field's last sentence names its default.
//!
//! This crate has no dependency on the controller, so that a dashboard built without it
//! still reads (and ignores) these keys.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use serde::Deserialize;

/// Keystone user that validates tokens, unless set.
pub const SERVICE_USER: &str = "mission-control";
/// Its domain (and its project's), unless set.
pub const SERVICE_DOMAIN: &str = "Default";
/// The project its token is scoped to, unless set.
pub const SERVICE_PROJECT: &str = "service";
/// Seconds the reconcile lease lives, unless set.
pub const LEASE_SECONDS: u64 = 8;
/// Seconds a simulated control plane takes to come up, unless set.
pub const PHASE_SECONDS: f64 = 20.0;
/// Minutes a kluster may take to reach Running, unless set.
pub const CREATION_TIMEOUT_MINUTES: u64 = 30;
/// Seconds a pool waits before its next server after one failed (e.g. Nova found no
/// host), unless set; it doubles with each failure in a row.
pub const CREATE_RETRY_SECONDS: f64 = 30.0;
/// The longest such wait in seconds, unless set.
pub const CREATE_RETRY_CAP_SECONDS: f64 = 300.0;
/// Days events are kept, unless set.
pub const EVENT_RETENTION_DAYS: u64 = 7;
/// Projects reconciled at once, unless set.
pub const RECONCILE_CONCURRENCY: usize = 8;
/// Each project's instance quota in the simulated cloud, unless set.
pub const QUOTA_INSTANCES: u64 = 10;
/// Each project's vCPU quota in the simulated cloud, unless set.
pub const QUOTA_CORES: u64 = 20;
/// Each project's RAM quota (MiB) in the simulated cloud, unless set.
pub const QUOTA_RAM_MB: u64 = 51200;
/// Seconds one OpenStack call may take, unless set.
pub const OPENSTACK_TIMEOUT_SECONDS: f64 = 30.0;
/// Tries of an OpenStack GET, unless set.
pub const OPENSTACK_ATTEMPTS: u32 = 3;
/// Roles of klusters' own users on their project, unless set.
pub const OPENSTACK_KLUSTER_USER_ROLES: &str = "member";

/// The controller's settings (see the crate's doc). `Debug` hides the passwords and the
/// database URL (which may hold one).
#[derive(Clone, Default, Args, Deserialize)]
pub struct ControllerSettings {
    /// Address the controller listens on; port 0: any free port. Default: 127.0.0.1:0 in
    /// the dashboard, 127.0.0.1:8080 standalone.
    #[arg(long, env = "MC_CONTROLLER_LISTEN")]
    pub controller_listen: Option<SocketAddr>,
    /// Where its data lives: an SQLite file, or a postgres:// URL shared by several
    /// controller replicas. Default: controller.db in the data dir (the dashboard's
    /// data_dir; standalone, .state/data).
    #[arg(long, env = "MC_CONTROLLER_DATABASE", hide_env_values = true)]
    pub controller_database: Option<String>,
    /// File with the key that seals the klusters' CA keys at rest (64 hex digits; made
    /// when missing). Default: controller-ca.key in the data dir.
    #[arg(long, env = "MC_CONTROLLER_CA_KEY_FILE")]
    pub controller_ca_key_file: Option<PathBuf>,
    /// Seconds the reconcile lease lives: a dead reconciling replica is replaced within
    /// it (at least 1). Default: 8.
    #[arg(long, env = "MC_CONTROLLER_LEASE_SECONDS")]
    pub controller_lease_seconds: Option<f64>,
    /// Policy file. Default: the built-in Kubernikus rules.
    #[arg(long, env = "MC_CONTROLLER_POLICY")]
    pub controller_policy: Option<PathBuf>,
    /// URL of the controller as users' tools (kubernikusctl) reach it: the detail page's
    /// setup command points there. Default: its listen address.
    #[arg(long, env = "MC_CONTROLLER_PUBLIC_URL")]
    pub controller_public_url: Option<String>,
    /// Where kubernikusctl builds are published (`<url>/<os>/amd64/kubernikusctl`); when
    /// set, each kluster's info lists them and the detail page offers the downloads.
    /// Default: none.
    #[arg(long, env = "MC_CONTROLLER_BINARIES_URL")]
    pub controller_binaries_url: Option<String>,
    /// Keystone user the controller validates tokens with (role service or admin).
    /// Default: mission-control.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_USER")]
    pub controller_service_user: Option<String>,
    /// Its password; required. Never logged.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_PASSWORD", hide_env_values = true)]
    pub controller_service_password: Option<String>,
    /// Domain of that user and of its project. Default: Default.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_DOMAIN")]
    pub controller_service_domain: Option<String>,
    /// Project its token is scoped to (in the same domain). Default: service.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_PROJECT")]
    pub controller_service_project: Option<String>,
    /// Seconds a simulated control plane takes to come up or upgrade; the simulated
    /// cloud and the reconcilers' pace scale with it (tests use 1 or 2). Default: 20.
    #[arg(long, env = "MC_CONTROLLER_PHASE_SECONDS")]
    pub controller_phase_seconds: Option<f64>,
    /// Minutes a kluster may take to reach Running before it gets a Warning and a status
    /// message. Default: 30.
    #[arg(long, env = "MC_CONTROLLER_CREATION_TIMEOUT_MINUTES")]
    pub controller_creation_timeout_minutes: Option<u64>,
    /// Seconds a pool waits before asking for another server after one failed in the
    /// cloud (ERROR: e.g. no host could place it); the wait doubles with each failure in a
    /// row and ends with the first server that comes up. Default: 30.
    #[arg(long, env = "MC_CONTROLLER_CREATE_RETRY_SECONDS")]
    pub controller_create_retry_seconds: Option<f64>,
    /// The longest such wait, in seconds. Default: 300.
    #[arg(long, env = "MC_CONTROLLER_CREATE_RETRY_CAP_SECONDS")]
    pub controller_create_retry_cap_seconds: Option<f64>,
    /// Seconds between looks at every kluster while nothing changes: the safety net for
    /// what changes in the cloud unseen (a server deleted by hand is replaced after the next
    /// one); each costs an idle kluster's project one request to Nova. Default: 2.25 phases, 45
    /// at the default phase.
    #[arg(long, env = "MC_CONTROLLER_RESYNC_SECONDS")]
    pub controller_resync_seconds: Option<f64>,
    /// Seconds a project may go without a full server listing on a real OpenStack: in
    /// between, a look asks Nova only whether any of its servers changed (one brief
    /// request, no Neutron behind it) and reuses the last listing. 0: list in full at every
    /// look (for a Nova whose `changes-since` cannot be trusted). Default: 300.
    #[arg(long, env = "MC_CONTROLLER_FULL_LISTING_SECONDS")]
    pub controller_full_listing_seconds: Option<f64>,
    /// Days events are kept after their last occurrence (then pruned). Default: 7.
    #[arg(long, env = "MC_CONTROLLER_EVENT_RETENTION_DAYS")]
    pub controller_event_retention_days: Option<u64>,
    /// Projects reconciled at once. Default: 8.
    #[arg(long, env = "MC_CONTROLLER_RECONCILE_CONCURRENCY")]
    pub controller_reconcile_concurrency: Option<usize>,
    /// Seconds one project's reconcile pass may wait for its cloud. Default: four times
    /// the cloud call timeout.
    #[arg(long, env = "MC_CONTROLLER_PROJECT_BUDGET_SECONDS")]
    pub controller_project_budget_seconds: Option<f64>,
    /// Instance quota of each project in the simulated cloud. Default: 10.
    #[arg(long, env = "MC_CONTROLLER_QUOTA_INSTANCES")]
    pub controller_quota_instances: Option<u64>,
    /// vCPU quota of each project in the simulated cloud. Default: 20.
    #[arg(long, env = "MC_CONTROLLER_QUOTA_CORES")]
    pub controller_quota_cores: Option<u64>,
    /// RAM quota (MiB) of each project in the simulated cloud. Default: 51200.
    #[arg(long, env = "MC_CONTROLLER_QUOTA_RAM_MB")]
    pub controller_quota_ram_mb: Option<u64>,
    /// Serve the simulator API (`/api/v1/simulator*`: faults and limits of the simulated
    /// cloud, for cloud admins); never with a real cloud. Off: those paths answer 404.
    /// Default: false.
    #[arg(long, env = "MC_CONTROLLER_SIMULATOR_API", num_args = 0..=1, default_missing_value = "true")]
    pub controller_simulator_api: Option<bool>,
    /// Browser origins allowed by CORS (comma-separated). Default: none.
    #[arg(long, env = "MC_CONTROLLER_CORS_ORIGINS", value_delimiter = ',')]
    pub controller_cors_origins: Option<Vec<String>>,
    /// The cloud to provision into: simulated, or openstack (a real one through the
    /// Keystone catalog; the simulator API is then off). Default: simulated.
    #[arg(long, env = "MC_CONTROLLER_CLOUD")]
    pub controller_cloud: Option<String>,
    /// OpenStack: Keystone v3 URL of the cloud. Default: the Keystone URL.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_AUTH_URL")]
    pub controller_openstack_auth_url: Option<String>,
    /// OpenStack: the user that acts in every kluster's project (it needs a role there).
    /// Default: the service user.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_USER")]
    pub controller_openstack_user: Option<String>,
    /// OpenStack: its password; never logged. Default: the service user's.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PASSWORD", hide_env_values = true)]
    pub controller_openstack_password: Option<String>,
    /// OpenStack: its domain. Default: the service user's.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_USER_DOMAIN")]
    pub controller_openstack_user_domain: Option<String>,
    /// OpenStack: its own project, for the start-up and readiness check. Default: the
    /// service user's.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PROJECT")]
    pub controller_openstack_project: Option<String>,
    /// OpenStack: that project's domain. Default: the user's domain.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PROJECT_DOMAIN")]
    pub controller_openstack_project_domain: Option<String>,
    /// OpenStack: region of the catalog's endpoints. Default: any.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_REGION")]
    pub controller_openstack_region: Option<String>,
    /// OpenStack: which endpoints to call: public, internal or admin. Default: public.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_INTERFACE")]
    pub controller_openstack_interface: Option<String>,
    /// OpenStack: seconds one call may take. Default: 30.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_TIMEOUT_SECONDS")]
    pub controller_openstack_timeout_seconds: Option<f64>,
    /// OpenStack: tries of a GET that cannot connect or gets a 5xx (at least 1).
    /// Default: 3.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_ATTEMPTS")]
    pub controller_openstack_attempts: Option<u32>,
    /// OpenStack: a PEM file of CA certificates to trust (a private cloud's own CA), for
    /// Keystone and every service, beside the built-in roots and the system's bundle
    /// (SSL_CERT_FILE, else /etc/ssl/certs/ca-certificates.crt). Default: none.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_CA_FILE")]
    pub controller_openstack_ca_file: Option<PathBuf>,
    /// OpenStack: domain where each kluster gets a user of its own that boots its servers
    /// (Kubernikus: kubernikus); the controller's user then needs Keystone's admin role.
    /// Default: none (the controller's user acts for klusters).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_KLUSTER_USER_DOMAIN")]
    pub controller_openstack_kluster_user_domain: Option<String>,
    /// OpenStack: roles of kluster users on their project, comma-separated.
    /// Default: member.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_KLUSTER_USER_ROLES")]
    pub controller_openstack_kluster_user_roles: Option<String>,
    /// OpenStack: the cloud's message bus, `amqp://user:password@host:port/vhost` (or
    /// amqps://, trusting controller_openstack_ca_file): Nova's versioned notifications
    /// (exchange nova) then wake a kluster's project within seconds of a server deleted,
    /// failed or come up, and idle projects are polled only by full listings. Nova needs
    /// `[oslo_messaging_notifications] driver = messagingv2` and `[notifications]
    /// notification_format = versioned`. Never logged. Default: none (poll only).
    #[arg(
        long,
        env = "MC_CONTROLLER_OPENSTACK_NOTIFICATIONS_URL",
        hide_env_values = true
    )]
    pub controller_openstack_notifications_url: Option<String>,
    /// OpenStack: the topic Nova publishes versioned notifications under (its
    /// `versioned_notifications_topics`). Default: versioned_notifications.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_NOTIFICATIONS_TOPIC")]
    pub controller_openstack_notifications_topic: Option<String>,
}

impl std::fmt::Debug for ControllerSettings {
    /// The settings that say where and what, never a password (the database URL may hold
    /// one).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |v: &Option<String>| v.as_ref().map(|_| "<hidden>");
        f.debug_struct("ControllerSettings")
            .field("controller_listen", &self.controller_listen)
            .field("controller_database", &hidden(&self.controller_database))
            .field("controller_service_user", &self.controller_service_user)
            .field(
                "controller_service_password",
                &hidden(&self.controller_service_password),
            )
            .field("controller_cloud", &self.controller_cloud)
            .field(
                "controller_openstack_auth_url",
                &self.controller_openstack_auth_url,
            )
            .field("controller_openstack_user", &self.controller_openstack_user)
            .field(
                "controller_openstack_password",
                &hidden(&self.controller_openstack_password),
            )
            .field(
                "controller_openstack_notifications_url",
                &hidden(&self.controller_openstack_notifications_url),
            )
            .finish_non_exhaustive()
    }
}

/// Fills in `$t`'s fields unset in `self` from `lower`.
macro_rules! layered {
    ($self:ident, $lower:ident, $t:ident { $($field:ident),* $(,)? }) => {
        $t { $($field: $self.$field.or($lower.$field),)* }
    };
}

impl ControllerSettings {
    /// Fields set in `self` win over those of `lower` (flags over environment over file).
    pub fn over(self, lower: ControllerSettings) -> ControllerSettings {
        let s = self;
        layered!(
            s,
            lower,
            ControllerSettings {
                controller_listen,
                controller_database,
                controller_ca_key_file,
                controller_lease_seconds,
                controller_policy,
                controller_public_url,
                controller_binaries_url,
                controller_service_user,
                controller_service_password,
                controller_service_domain,
                controller_service_project,
                controller_phase_seconds,
                controller_creation_timeout_minutes,
                controller_create_retry_seconds,
                controller_create_retry_cap_seconds,
                controller_resync_seconds,
                controller_full_listing_seconds,
                controller_event_retention_days,
                controller_reconcile_concurrency,
                controller_project_budget_seconds,
                controller_quota_instances,
                controller_quota_cores,
                controller_quota_ram_mb,
                controller_simulator_api,
                controller_cors_origins,
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
                controller_openstack_ca_file,
                controller_openstack_kluster_user_domain,
                controller_openstack_kluster_user_roles,
                controller_openstack_notifications_url,
                controller_openstack_notifications_topic,
            }
        )
    }
}

/// The standalone binary's flags: `--listen` for `--controller-listen` (its names since it
/// began; the dashboard's carry the prefix), and `--db` for `--database`.
pub fn standalone_flags(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        let Some(long) = a
            .get_long()
            .and_then(|l| l.strip_prefix("controller-"))
            .map(str::to_string)
        else {
            return a;
        };
        let db = long == "database";
        let a = a
            .value_name(long.to_uppercase().replace('-', "_"))
            .long(long);
        if db {
            a.alias("db")
        } else {
            a
        }
    })
}

#[cfg(test)]
mod tests;
