//! Logging and tracing set-up shared by both binaries: text or JSON lines
//! (`tracing-subscriber`; JSON carries the current span and its parents, so every line of a
//! request has its request id, user, project and kluster), and OpenTelemetry export of the
//! spans over OTLP/HTTP (protobuf) when an endpoint is configured; off by default.
//!
//! Call [`init`] before the async runtime starts (the OTLP exporter's HTTP client runs on
//! its own thread) and keep the returned guard until the end: dropping it flushes the
//! spans not yet exported.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::Layer as _;

/// How log lines look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line (`tracing-subscriber`'s JSON formatter).
    Json,
}

impl std::str::FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "text" | "" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!("log format {other:?}: use \"text\" or \"json\"")),
        }
    }
}

/// Flushes and stops the OpenTelemetry export when dropped.
#[derive(Debug, Default)]
pub struct Telemetry {
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(p) = self.provider.take() {
            if let Err(e) = p.shutdown() {
                eprintln!("OpenTelemetry export did not shut down cleanly: {e}");
            }
        }
    }
}

/// Installs the global subscriber: `RUST_LOG` or `default_filter`, lines in `format`, and
/// span export to `otlp_endpoint` (the collector's base URL, e.g. `http://127.0.0.1:4318`;
/// spans go to `<endpoint>/v1/traces`) as `service`. `Err` names what is wrong.
pub fn init(
    service: &'static str,
    format: LogFormat,
    default_filter: &str,
    otlp_endpoint: Option<&str>,
) -> Result<Telemetry, String> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| default_filter.into());
    let lines = match format {
        // Colours only on a terminal: a log file or a collector gets plain text.
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_current_span(true)
            .with_span_list(true)
            .boxed(),
    };
    let mut telemetry = Telemetry::default();
    let otel = match otlp_endpoint.map(str::trim).filter(|e| !e.is_empty()) {
        None => None,
        Some(endpoint) => {
            let url = format!("{}/v1/traces", endpoint.trim_end_matches('/'));
            url::Url::parse(&url).map_err(|e| format!("OTLP endpoint {endpoint:?}: {e}"))?;
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_endpoint(url)
                .with_timeout(std::time::Duration::from_secs(5))
                .build()
                .map_err(|e| format!("OTLP exporter: {e}"))?;
            let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
                .with_resource(
                    opentelemetry_sdk::Resource::builder()
                        .with_service_name(service)
                        .build(),
                )
                .build();
            let tracer = provider.tracer(service);
            telemetry.provider = Some(provider);
            Some(tracing_opentelemetry::layer().with_tracer(tracer))
        }
    };
    tracing_subscriber::registry()
        .with(filter)
        .with(lines)
        .with(otel)
        .try_init()
        .map_err(|e| format!("logging: {e}"))?;
    Ok(telemetry)
}
