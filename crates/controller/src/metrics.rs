//! Prometheus metrics of the controller (`GET /metrics`), one registry per controller
//! instance: HTTP requests by route template, reconcile passes and errors per reconciler,
//! klusters by phase and nodes by state (read from the store at scrape time), events by
//! reason and type, cloud calls by operation, audit records by action. Labels never name a
//! tenant (no project ids, user or kluster names): every series is an aggregate.
//!
//! [`HttpMetrics`] and [`route_of`] are shared with the dashboard, which has its own
//! registry with the same shape under its own prefix.

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

use crate::store::Store;

/// Latency buckets (seconds) of HTTP requests and outgoing calls: 1 ms to 20 s.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0,
];

/// The metric families registered here never clash (fixed names): a failure is a bug.
fn register<C: prometheus::core::Collector + Clone + 'static>(r: &Registry, c: C) -> C {
    if let Err(e) = r.register(Box::new(c.clone())) {
        tracing::error!(error = %e, "metric not registered");
    }
    c
}

fn counter(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let c = IntCounterVec::new(Opts::new(name, help), labels)
        .unwrap_or_else(|e| panic!("metric {name}: {e}"));
    register(r, c)
}

fn histogram(r: &Registry, name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    let h = HistogramVec::new(
        HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec()),
        labels,
    )
    .unwrap_or_else(|e| panic!("metric {name}: {e}"));
    register(r, h)
}

fn gauge(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
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

/// Everything the controller measures, in its own registry.
#[derive(Clone, Debug)]
pub struct Metrics {
    /// The registry `/metrics` renders.
    pub registry: Registry,
    /// HTTP requests of the API.
    pub http: HttpMetrics,
    reconcile_duration: HistogramVec,
    reconcile_errors: IntCounterVec,
    pass_duration: HistogramVec,
    events: IntCounterVec,
    cloud_duration: HistogramVec,
    cloud_errors: IntCounterVec,
    audit: IntCounterVec,
    klusters: IntGaugeVec,
    nodes: IntGaugeVec,
    scrape_errors: IntCounterVec,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// Phases every scrape reports (0 when none), so dashboards see every series.
const PHASES: [&str; 5] = ["Pending", "Creating", "Running", "Upgrading", "Terminating"];
/// Node states every scrape reports.
const NODE_STATES: [&str; 4] = ["desired", "running", "healthy", "schedulable"];

impl Metrics {
    /// A fresh registry with every controller metric.
    pub fn new() -> Self {
        let r = Registry::new();
        let p = "mc_controller";
        Metrics {
            http: HttpMetrics::new(&r, p),
            reconcile_duration: histogram(
                &r,
                &format!("{p}_reconcile_duration_seconds"),
                "Time one reconciler took for one kluster, by reconciler (ground, flight, launch, deorbit)",
                &["reconciler"],
            ),
            reconcile_errors: counter(
                &r,
                &format!("{p}_reconcile_errors_total"),
                "Reconciliations that failed (retried by the next pass), by reconciler",
                &["reconciler"],
            ),
            pass_duration: histogram(
                &r,
                &format!("{p}_reconcile_pass_duration_seconds"),
                "Time one project's reconcile pass took, by outcome (ok, cut_short)",
                &["outcome"],
            ),
            events: counter(
                &r,
                &format!("{p}_events_total"),
                "Kluster events recorded (an aggregated repeat counts again), by reason and type",
                &["reason", "type"],
            ),
            cloud_duration: histogram(
                &r,
                &format!("{p}_cloud_request_duration_seconds"),
                "Time of calls to the cloud (OpenStack), by operation",
                &["operation"],
            ),
            cloud_errors: counter(
                &r,
                &format!("{p}_cloud_request_errors_total"),
                "Failed calls to the cloud, by operation and kind (error, abandoned: timed out or cut short)",
                &["operation", "kind"],
            ),
            audit: counter(
                &r,
                &format!("{p}_audit_records_total"),
                "Audit records written, by action",
                &["action"],
            ),
            klusters: gauge(
                &r,
                &format!("{p}_klusters"),
                "Klusters in the store, by phase (all projects)",
                &["phase"],
            ),
            nodes: gauge(
                &r,
                &format!("{p}_nodes"),
                "Nodes of all klusters as their pools report them: desired (pool sizes), running, healthy (Ready), schedulable",
                &["state"],
            ),
            scrape_errors: counter(
                &r,
                &format!("{p}_metrics_scrape_errors_total"),
                "Scrapes whose store-derived gauges could not be read (the database did not answer)",
                &["source"],
            ),
            registry: r,
        }
        .with_zero_errors()
    }

    /// Zero series for the error counters, so dashboards see them before the first error.
    fn with_zero_errors(self) -> Self {
        for r in ["ground", "flight", "launch", "deorbit"] {
            self.reconcile_errors.with_label_values(&[r]);
        }
        for op in [
            "metadata",
            "quota",
            "list_servers",
            "create_server",
            "delete_server",
            "list_resources",
            "delete_resource",
            "ensure_kluster_user",
            "delete_kluster_user",
        ] {
            for kind in ["error", "abandoned"] {
                self.cloud_errors.with_label_values(&[op, kind]);
            }
        }
        self
    }

    /// Times one reconciler's work on one kluster; counts it as an error when `ok` is false.
    pub fn reconciled(&self, reconciler: &str, took: Duration, ok: bool) {
        self.reconcile_duration
            .with_label_values(&[reconciler])
            .observe(took.as_secs_f64());
        if !ok {
            self.reconcile_errors.with_label_values(&[reconciler]).inc();
        }
    }

    /// Times one project's pass.
    pub fn pass(&self, took: Duration, cut_short: bool) {
        let outcome = if cut_short { "cut_short" } else { "ok" };
        self.pass_duration
            .with_label_values(&[outcome])
            .observe(took.as_secs_f64());
    }

    /// Counts a recorded event.
    pub fn event(&self, reason: &str, kind: &str) {
        self.events.with_label_values(&[reason, kind]).inc();
    }

    /// Times a cloud call; `Some(kind)` when it failed (`error`, `abandoned`).
    pub fn cloud_call(&self, operation: &str, took: Duration, failed: Option<&str>) {
        self.cloud_duration
            .with_label_values(&[operation])
            .observe(took.as_secs_f64());
        if let Some(kind) = failed {
            self.cloud_errors
                .with_label_values(&[operation, kind])
                .inc();
        }
    }

    /// Counts an audit record.
    pub fn audited(&self, action: &str) {
        self.audit.with_label_values(&[action]).inc();
    }

    /// Refreshes the store-derived gauges (klusters by phase, nodes by state).
    pub async fn refresh(&self, store: &Store) {
        match store.list_all().await {
            Ok(all) => {
                let mut phases = [0i64; PHASES.len()];
                let mut nodes = [0i64; NODE_STATES.len()];
                for o in &all {
                    let k = &o.stored.kluster;
                    if let Some(i) = PHASES.iter().position(|p| *p == k.status.phase.as_str()) {
                        phases[i] += 1;
                    }
                    for p in &k.status.node_pools {
                        nodes[0] += p.size;
                        nodes[1] += p.running;
                        nodes[2] += p.healthy;
                        nodes[3] += p.schedulable;
                    }
                }
                for (p, n) in PHASES.iter().zip(phases) {
                    self.klusters.with_label_values(&[p]).set(n);
                }
                for (s, n) in NODE_STATES.iter().zip(nodes) {
                    self.nodes.with_label_values(&[s]).set(n);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "metrics: klusters not readable");
                self.scrape_errors.with_label_values(&["store"]).inc();
            }
        }
    }

    /// The registry in the Prometheus text format.
    pub fn render(&self) -> String {
        render(&self.registry)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_template_and_status_in_the_text_format() {
        let m = Metrics::new();
        m.http.observe(
            "GET",
            &template_label("/api/v1/clusters/{name}"),
            200,
            Duration::from_millis(3),
        );
        m.event("FailedCreateNode", "Warning");
        m.cloud_call("servers", Duration::from_millis(1), Some("error"));
        let text = m.render();
        assert!(
            text.contains(r#"mc_controller_http_requests_total{method="GET",route="/api/v1/clusters/:name",status="200"} 1"#),
            "{text}"
        );
        assert!(text.contains("mc_controller_http_request_duration_seconds_bucket"));
        assert!(text
            .contains(r#"mc_controller_events_total{reason="FailedCreateNode",type="Warning"} 1"#));
        assert!(text.contains(
            r#"mc_controller_cloud_request_errors_total{kind="error",operation="servers"} 1"#
        ));
    }
}
