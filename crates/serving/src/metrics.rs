//! Prometheus plumbing shared by the controller and the dashboard: registering families,
//! HTTP requests by method, route template and status, the text exposition and the
//! middleware that counts requests.

use std::time::Duration;

use axum::{
    extract::{MatchedPath, Request, State},
    http::{header, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Latency buckets (seconds) of HTTP requests and outgoing calls: 1 ms to 20 s.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0,
];

/// Registers `c` in `r`. Families here have fixed names and never clash: a failure is a
/// bug, logged.
pub fn register<C: prometheus::core::Collector + Clone + 'static>(r: &Registry, c: C) -> C {
    if let Err(e) = r.register(Box::new(c.clone())) {
        tracing::error!(error = %e, "metric not registered");
    }
    c
}

/// A counter family `name` with `labels`, registered in `r`.
pub fn counter(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let c = IntCounterVec::new(Opts::new(name, help), labels)
        .unwrap_or_else(|e| panic!("metric {name}: {e}"));
    register(r, c)
}

/// A histogram family `name` (latency buckets) with `labels`, registered in `r`.
pub fn histogram(r: &Registry, name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    let h = HistogramVec::new(
        HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec()),
        labels,
    )
    .unwrap_or_else(|e| panic!("metric {name}: {e}"));
    register(r, h)
}

/// A gauge family `name` with `labels`, registered in `r`.
pub fn gauge(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    let g = IntGaugeVec::new(Opts::new(name, help), labels)
        .unwrap_or_else(|e| panic!("metric {name}: {e}"));
    register(r, g)
}

/// HTTP requests served: `<prefix>_http_requests_total{method,route,status}` and
/// `<prefix>_http_request_duration_seconds{method,route,status}`.
#[derive(Clone, Debug)]
pub struct HttpMetrics {
    requests: IntCounterVec,
    duration: HistogramVec,
}

impl HttpMetrics {
    /// Registers the two families in `r` under `prefix` (e.g. `mc_controller`).
    pub fn new(r: &Registry, prefix: &str) -> Self {
        let labels = ["method", "route", "status"];
        HttpMetrics {
            requests: counter(
                r,
                &format!("{prefix}_http_requests_total"),
                "HTTP requests served, by method, route template and status",
                &labels,
            ),
            duration: histogram(
                r,
                &format!("{prefix}_http_request_duration_seconds"),
                "Time to answer an HTTP request (until the response head), by method, route template and status",
                &labels,
            ),
        }
    }

    /// Counts one request.
    pub fn observe(&self, method: &str, route: &str, status: u16, took: Duration) {
        let status = status.to_string();
        let labels = [method, route, status.as_str()];
        self.requests.with_label_values(&labels).inc();
        self.duration
            .with_label_values(&labels)
            .observe(took.as_secs_f64());
    }
}

/// The route template of a request (`/api/v1/clusters/:name`), never its raw path, so a
/// stranger cannot grow the label set; `unmatched` when no route matched. Parameters are
/// written `:name` (`*rest` for a wildcard), not axum's `{name}`: braces inside a label
/// value trip up some text-format parsers.
pub fn route_of(req: &Request) -> String {
    req.extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |m| template_label(m.as_str()))
}

/// axum's `/a/{name}/{*rest}` as `/a/:name/*rest`.
pub fn template_label(path: &str) -> String {
    path.replace("{*", "*").replace('{', ":").replace('}', "")
}

/// Methods as labels: the usual ones by name, anything else as `other`.
pub fn method_label(m: &axum::http::Method) -> &'static str {
    match m.as_str() {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        "PATCH" => "PATCH",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    }
}

/// `registry` in the Prometheus text format (0.0.4).
pub fn render(registry: &Registry) -> String {
    let mut out = Vec::new();
    if let Err(e) = TextEncoder::new().encode(&registry.gather(), &mut out) {
        tracing::error!(error = %e, "metrics not encoded");
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The answer of a `/metrics` route: the text format with its content type.
pub fn exposition(text: String) -> Response {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// Middleware: counts and times every request by method, route template and status.
pub async fn track_http(State(http): State<HttpMetrics>, req: Request, next: Next) -> Response {
    let start = std::time::Instant::now();
    let method = method_label(req.method());
    let route = route_of(&req);
    let res = next.run(req).await;
    http.observe(method, &route, res.status().as_u16(), start.elapsed());
    res
}
