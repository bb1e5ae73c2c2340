//! `kubernikus-controller`: the controller stack as its own process, serving the same
//! router the dashboard embeds.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use controller::api::ApiSettings;
use controller::auth::ServiceCredentials;
use controller::cloud::choice::CloudChoice;
use controller::cloud::openstack::OpenStackConfig;
use controller::run::{start, ControllerConfig};

/// Command line and environment of the standalone controller.
#[derive(Debug, Parser)]
#[command(
    name = "kubernikus-controller",
    version,
    about = "Kubernikus-compatible API for Mission Control"
)]
struct Args {
    /// Listen address.
    #[arg(long, env = "MC_CONTROLLER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Keystone v3 endpoint.
    #[arg(
        long,
        env = "MC_KEYSTONE_URL",
        default_value = "http://127.0.0.1:5000/v3"
    )]
    keystone_url: String,
    /// Service user that validates tokens.
    #[arg(
        long,
        env = "MC_CONTROLLER_SERVICE_USER",
        default_value = "mission-control"
    )]
    service_user: String,
    /// Its password.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_PASSWORD", hide_env_values = true)]
    service_password: String,
    /// Its domain.
    #[arg(long, env = "MC_CONTROLLER_SERVICE_DOMAIN", default_value = "Default")]
    service_domain: String,
    /// Project its token is scoped to (in the same domain).
    #[arg(long, env = "MC_CONTROLLER_SERVICE_PROJECT", default_value = "service")]
    service_project: String,
    /// File with the key that seals CA keys at rest (64 hex digits; created if missing).
    #[arg(
        long,
        env = "MC_CONTROLLER_CA_KEY_FILE",
        default_value = ".state/data/controller-ca.key"
    )]
    ca_key_file: PathBuf,
    /// Where the data lives: an SQLite file, or a postgres:// URL shared by several replicas.
    #[arg(
        long,
        alias = "db",
        env = "MC_CONTROLLER_DATABASE",
        default_value = ".state/data/controller.db",
        hide_env_values = true
    )]
    database: controller::store::Database,
    /// Seconds the reconcile lease lives: a dead reconciling replica is replaced within it.
    #[arg(long, env = "MC_CONTROLLER_LEASE_SECONDS", default_value_t = 8.0)]
    lease_seconds: f64,
    /// Policy file; default: the built-in Kubernikus rules.
    #[arg(long, env = "MC_CONTROLLER_POLICY")]
    policy: Option<PathBuf>,
    /// URL of this API as users reach it (default: the listen address).
    #[arg(long, env = "MC_CONTROLLER_PUBLIC_URL")]
    public_url: Option<String>,
    /// Where kubernikusctl builds are published (`<url>/<os>/amd64/kubernikusctl`), listed
    /// in each kluster's info (default: none).
    #[arg(long, env = "MC_CONTROLLER_BINARIES_URL")]
    binaries_url: Option<String>,
    /// Seconds a simulated control plane takes to come up or upgrade.
    #[arg(long, env = "MC_CONTROLLER_PHASE_SECONDS", default_value_t = 20.0)]
    phase_seconds: f64,
    /// Minutes a kluster may take to reach Running before it gets a Warning.
    #[arg(
        long,
        env = "MC_CONTROLLER_CREATION_TIMEOUT_MINUTES",
        default_value_t = 30
    )]
    creation_timeout_minutes: u64,
    /// Instance quota of each project in the simulated cloud.
    #[arg(long, env = "MC_CONTROLLER_QUOTA_INSTANCES", default_value_t = 10)]
    quota_instances: i64,
    /// vCPU quota of each project in the simulated cloud.
    #[arg(long, env = "MC_CONTROLLER_QUOTA_CORES", default_value_t = 20)]
    quota_cores: i64,
    /// RAM quota (MiB) of each project in the simulated cloud.
    #[arg(long, env = "MC_CONTROLLER_QUOTA_RAM_MB", default_value_t = 51200)]
    quota_ram_mb: i64,
    /// Serve the simulator API (`/api/v1/simulator*`: faults and limits of the simulated
    /// cloud, for cloud admins). Off: those paths answer 404.
    #[arg(long, env = "MC_CONTROLLER_SIMULATOR_API")]
    simulator_api: bool,
    /// Projects reconciled at once.
    #[arg(long, env = "MC_CONTROLLER_RECONCILE_CONCURRENCY", default_value_t = 8)]
    reconcile_concurrency: usize,
    /// Seconds one project's reconcile pass may wait for its cloud (default: four times the
    /// cloud call timeout).
    #[arg(long, env = "MC_CONTROLLER_PROJECT_BUDGET_SECONDS")]
    project_budget_seconds: Option<f64>,
    /// Days events are kept after their last occurrence (then pruned).
    #[arg(long, env = "MC_CONTROLLER_EVENT_RETENTION_DAYS", default_value_t = 7)]
    event_retention_days: u64,
    /// Browser origins allowed by CORS (comma-separated).
    #[arg(long, env = "MC_CONTROLLER_CORS_ORIGINS", value_delimiter = ',')]
    cors_origins: Vec<String>,
    /// Peers (the dashboards; addresses or CIDR ranges, comma-separated) whose
    /// X-Forwarded-For names the client in audit records. Empty: the peer is the client.
    #[arg(long, env = "MC_CONTROLLER_TRUSTED_PROXIES", value_delimiter = ',')]
    trusted_proxies: Vec<String>,
    /// The cloud to provision into: "simulated" (the default) or "openstack" (a real one
    /// through the Keystone catalog; the simulator API is then off).
    #[arg(long, env = "MC_CONTROLLER_CLOUD", default_value = "simulated")]
    cloud: String,
    /// OpenStack: Keystone v3 URL of the cloud (default: --keystone-url).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_AUTH_URL")]
    openstack_auth_url: Option<String>,
    /// OpenStack: the user that acts in every kluster's project (needs a role there;
    /// default: --service-user).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_USER")]
    openstack_user: Option<String>,
    /// OpenStack: its password (default: --service-password); never logged.
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PASSWORD", hide_env_values = true)]
    openstack_password: Option<String>,
    /// OpenStack: its domain (default: --service-domain).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_USER_DOMAIN")]
    openstack_user_domain: Option<String>,
    /// OpenStack: its own project, for the start-up check (default: --service-project).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PROJECT")]
    openstack_project: Option<String>,
    /// OpenStack: that project's domain (default: the user's domain).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_PROJECT_DOMAIN")]
    openstack_project_domain: Option<String>,
    /// OpenStack: region of the catalog's endpoints (default: any).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_REGION", default_value = "")]
    openstack_region: String,
    /// OpenStack: which endpoints to call: public, internal or admin.
    #[arg(
        long,
        env = "MC_CONTROLLER_OPENSTACK_INTERFACE",
        default_value = "public"
    )]
    openstack_interface: controller::cloud::openstack::Interface,
    /// OpenStack: seconds one call may take.
    #[arg(
        long,
        env = "MC_CONTROLLER_OPENSTACK_TIMEOUT_SECONDS",
        default_value_t = 30.0
    )]
    openstack_timeout_seconds: f64,
    /// OpenStack: tries of a GET that cannot connect or gets a 5xx (at least 1).
    #[arg(long, env = "MC_CONTROLLER_OPENSTACK_ATTEMPTS", default_value_t = 3)]
    openstack_attempts: u32,
    /// OpenStack: domain where each kluster gets a user of its own that boots its servers
    /// (Kubernikus: kubernikus); empty: this controller's user acts for klusters.
    #[arg(
        long,
        env = "MC_CONTROLLER_OPENSTACK_KLUSTER_USER_DOMAIN",
        default_value = ""
    )]
    openstack_kluster_user_domain: String,
    /// OpenStack: roles of kluster users on their project, comma-separated.
    #[arg(
        long,
        env = "MC_CONTROLLER_OPENSTACK_KLUSTER_USER_ROLES",
        default_value = "member",
        value_delimiter = ','
    )]
    openstack_kluster_user_roles: Vec<String>,
    /// Log lines as "text" or "json".
    #[arg(long, env = "MC_LOG_FORMAT", default_value = "text")]
    log_format: controller::telemetry::LogFormat,
    /// OpenTelemetry collector (OTLP/HTTP base URL, e.g. http://127.0.0.1:4318); spans are
    /// exported only when set.
    #[arg(long, env = "MC_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
}

fn main() -> ExitCode {
    let a = Args::parse();
    // Before the runtime: the OTLP exporter's HTTP client runs on its own thread.
    let _telemetry = match controller::telemetry::init(
        "kubernikus-controller",
        a.log_format,
        "info,sqlx=warn",
        a.otlp_endpoint.as_deref(),
    ) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("kubernikus-controller: {e}");
            return ExitCode::from(2);
        }
    };
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(serve(a)),
        Err(e) => {
            eprintln!("kubernikus-controller: no async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(a: Args) -> ExitCode {
    let mut proxies = Vec::new();
    for p in a.trusted_proxies.iter().filter(|p| !p.trim().is_empty()) {
        match controller::net::IpNet::parse(p) {
            Ok(n) => proxies.push(n),
            Err(e) => {
                eprintln!("kubernikus-controller: --trusted-proxies: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let ca_key = match controller::run::load_or_create_key(&a.ca_key_file) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("kubernikus-controller: {e}");
            return ExitCode::FAILURE;
        }
    };
    let phase = Duration::try_from_secs_f64(a.phase_seconds).unwrap_or(Duration::from_secs(20));
    let mut tuning = controller::run::Tuning::scaled(phase);
    tuning.timing.creation_timeout = Duration::from_secs(60 * a.creation_timeout_minutes.max(1));
    tuning.sim.limits = controller::cloud::sim::Limits {
        instances: a.quota_instances,
        cores: a.quota_cores,
        ram: a.quota_ram_mb,
    };
    tuning.reconcile_concurrency = a.reconcile_concurrency.max(1);
    match Duration::try_from_secs_f64(a.lease_seconds) {
        Ok(ttl) if ttl >= Duration::from_secs(1) => tuning.lease_ttl = ttl,
        _ => {
            eprintln!("kubernikus-controller: --lease-seconds must be at least 1");
            return ExitCode::from(2);
        }
    }
    if a.event_retention_days == 0 {
        eprintln!("kubernikus-controller: --event-retention-days must be at least 1");
        return ExitCode::from(2);
    }
    tuning.event_retention = Duration::from_secs(24 * 3600)
        .saturating_mul(u32::try_from(a.event_retention_days).unwrap_or(u32::MAX));
    if let Some(budget) = a
        .project_budget_seconds
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
    {
        tuning.project_budget = budget;
    }
    let cloud = match a.cloud.trim() {
        "simulated" => CloudChoice::Simulated,
        "openstack" => {
            let Some(timeout) = Duration::try_from_secs_f64(a.openstack_timeout_seconds)
                .ok()
                .filter(|t| !t.is_zero())
            else {
                eprintln!("kubernikus-controller: --openstack-timeout-seconds must be above 0");
                return ExitCode::from(2);
            };
            let domain = a.openstack_user_domain.unwrap_or(a.service_domain.clone());
            let mut c = OpenStackConfig::new(
                a.openstack_auth_url.unwrap_or(a.keystone_url.clone()),
                a.openstack_user.unwrap_or(a.service_user.clone()),
                a.openstack_password.unwrap_or(a.service_password.clone()),
                domain.clone(),
                a.openstack_project.unwrap_or(a.service_project.clone()),
            );
            c.project_domain = a.openstack_project_domain.unwrap_or(domain);
            c.region = a.openstack_region;
            c.interface = a.openstack_interface;
            c.timeout = timeout;
            c.attempts = a.openstack_attempts;
            c.kluster_user_domain = a.openstack_kluster_user_domain.trim().to_string();
            c.kluster_user_roles = a
                .openstack_kluster_user_roles
                .iter()
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
                .collect();
            CloudChoice::OpenStack(Box::new(c))
        }
        other => {
            eprintln!("kubernikus-controller: --cloud {other:?}: expected simulated or openstack");
            return ExitCode::from(2);
        }
    };
    let config = ControllerConfig {
        cloud,
        ca_key,
        tuning,
        listen: a.listen,
        keystone_url: a.keystone_url.clone(),
        service: ServiceCredentials {
            user_name: a.service_user,
            password: a.service_password,
            user_domain: a.service_domain.clone(),
            project: a.service_project,
            project_domain: a.service_domain,
        },
        database: a.database,
        policy_file: a.policy,
        token_cache: Duration::from_secs(300),
        settings: ApiSettings {
            cors_origins: a.cors_origins,
            auth_url: a.keystone_url,
            public_url: a.public_url.unwrap_or_default(),
            binaries_url: a.binaries_url.unwrap_or_default(),
            simulator_api: a.simulator_api,
            trusted_proxies: controller::net::TrustedProxies(proxies.into()),
            ..Default::default()
        },
    };
    let running = match start(config, controller::shutdown::signal()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kubernikus-controller: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match running.task.await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        other => {
            eprintln!("kubernikus-controller: stopped with {other:?}");
            ExitCode::FAILURE
        }
    }
}
