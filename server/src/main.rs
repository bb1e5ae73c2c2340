//! The `mission-control` binary: reads the configuration, sets up logging (text or JSON)
//! and span export, and serves until Ctrl-C or SIGTERM; `mission-control kubeconfig
//! <kluster>` prints a kubeconfig for an application credential instead (see
//! `server::kubeconfig_cli`).

use std::process::ExitCode;

use server::{start, Config};

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("kubeconfig") {
        return runtime(kubeconfig());
    }
    let config = match Config::load() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mission-control: configuration error: {e}");
            return ExitCode::from(2);
        }
    };
    // Before the runtime: the OTLP exporter's HTTP client runs on its own thread.
    let _telemetry = match serving::telemetry::init(
        "mission-control",
        config.log_format,
        "info,tower_sessions=warn,sqlx=warn",
        config.otlp_endpoint.as_deref(),
    ) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("mission-control: {e}");
            return ExitCode::from(2);
        }
    };
    runtime(serve(config))
}

/// Runs `work` on a multi-threaded runtime.
fn runtime(work: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(work),
        Err(e) => {
            eprintln!("mission-control: no async runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> ExitCode {
    let running = match start(config, serving::shutdown::signal()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mission-control: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match running.task.await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("mission-control: server error: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("mission-control: server task failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `mission-control kubeconfig …`: the kubeconfig on stdout, or a sentence on stderr and 1.
async fn kubeconfig() -> ExitCode {
    use clap::Parser;
    let args = server::kubeconfig_cli::KubeconfigArgs::parse_from(std::env::args().skip(1));
    let secret = std::env::var("OS_APPLICATION_CREDENTIAL_SECRET").unwrap_or_default();
    match server::kubeconfig_cli::kubeconfig(&args, &secret).await {
        Ok(k) => {
            print!("{k}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mission-control kubeconfig: {e}");
            ExitCode::FAILURE
        }
    }
}
