//! `kubernikus-controller`: the controller stack as its own process, serving the same
//! router the dashboard embeds.

use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};
use controller::run::start;
use controller::settings::{resolve, ControllerSettings, Place, SettingError};

/// Command line and environment of the standalone controller: the controller's settings
/// (flags without the dashboard's `controller-` prefix) and what the binary needs besides.
#[derive(Debug, Parser)]
#[command(
    name = "kubernikus-controller",
    version,
    about = "Kubernikus-compatible API for Mission Control"
)]
struct Args {
    #[command(flatten)]
    controller: ControllerSettings,
    /// Keystone v3 endpoint.
    #[arg(
        long,
        env = "MC_KEYSTONE_URL",
        default_value = "http://127.0.0.1:5000/v3"
    )]
    keystone_url: String,
    /// Peers (the dashboards; addresses or CIDR ranges, comma-separated) whose
    /// X-Forwarded-For names the client in audit records. Empty: the peer is the client.
    #[arg(long, env = "MC_CONTROLLER_TRUSTED_PROXIES", value_delimiter = ',')]
    trusted_proxies: Vec<String>,
    /// Log lines as "text" or "json".
    #[arg(long, env = "MC_LOG_FORMAT", default_value = "text")]
    log_format: controller::telemetry::LogFormat,
    /// OpenTelemetry collector (OTLP/HTTP base URL, e.g. http://127.0.0.1:4318); spans are
    /// exported only when set.
    #[arg(long, env = "MC_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,
}

/// Where the standalone controller keeps its files unless told.
const DATA_DIR: &str = ".state/data";

/// The standalone flag of a setting's key (`controller_lease_seconds` → `--lease-seconds`).
fn flag(e: &SettingError) -> String {
    let key = e.key.strip_prefix("controller_").unwrap_or(e.key);
    format!("--{}: {}", key.replace('_', "-"), e.message)
}

fn main() -> ExitCode {
    let matches = controller_settings::standalone_flags(Args::command()).get_matches();
    let a = Args::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
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
    let place = Place {
        data_dir: Path::new(DATA_DIR),
        listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
        keystone_url: &a.keystone_url,
    };
    let resolved = match resolve(&a.controller, place) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("kubernikus-controller: {}", flag(&e));
            return ExitCode::from(2);
        }
    };
    let ca_key = match controller::run::load_or_create_key(&resolved.ca_key_file) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("kubernikus-controller: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = resolved.config(
        &a.keystone_url,
        ca_key,
        controller::net::TrustedProxies(proxies.into()),
    );
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
