//! Prometheus metrics of the controller (`GET /metrics`), one registry per controller
//! instance: HTTP requests by route template, reconcile passes and errors per reconciler,
//! klusters by phase and nodes by state (read from the store at scrape time), events by
//! reason and type, cloud calls by operation, audit records by action. Labels never name a
//! tenant (no project ids, user or kluster names): every series is an aggregate.
//!
//! [`HttpMetrics`] and [`route_of`] are shared with the dashboard, which has its own
//! registry with the same shape under its own prefix.

use std::time::Duration;

use prometheus::{HistogramVec, IntCounterVec, IntGaugeVec, Registry};

use serving::metrics::{counter, gauge, histogram};
pub use serving::metrics::{
    exposition, method_label, render, route_of, template_label, track_http, HttpMetrics,
    LATENCY_BUCKETS,
};

use crate::store::Store;

/// Everything the controller measures, in its own registry.
#[derive(Clone, Debug)]
pub struct Metrics {
    /// The registry `/metrics` renders.
    pub registry: Registry,
    /// HTTP requests of the API.
    pub http: HttpMetrics,
    reconcile_duration: HistogramVec,
    reconcile_errors: IntCounterVec,
    resyncs: IntCounterVec,
    pass_duration: HistogramVec,
    events: IntCounterVec,
    cloud_duration: HistogramVec,
    cloud_errors: IntCounterVec,
    audit: IntCounterVec,
    klusters: IntGaugeVec,
    nodes: IntGaugeVec,
    scrape_errors: IntCounterVec,
    notices: IntCounterVec,
    notices_connected: IntGaugeVec,
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
                "Reconciliations that failed (retried later), by reconciler (ground, flight, launch, deorbit, or pass for a whole project's pass) and kind (a store error's kind, cloud_unavailable, cut_short)",
                &["reconciler", "kind"],
            ),
            resyncs: counter(
                &r,
                &format!("{p}_reconcile_resyncs_total"),
                "Full resyncs: every kluster passed, as a safety net for what changes in the cloud unseen",
                &[],
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
            notices: counter(
                &r,
                &format!("{p}_notifications_total"),
                "Nova notifications read from the cloud's message bus, by outcome (woke: a kluster's server changed and its project was looked at; ignored; unreadable)",
                &["outcome"],
            ),
            notices_connected: gauge(
                &r,
                &format!("{p}_notifications_connected"),
                "1 while the controller reads Nova's notifications (configured and connected), else 0",
                &[],
            ),
            registry: r,
        }
        .with_zero_errors()
    }

    /// Zero series for the error counters, so dashboards see them before the first error.
    fn with_zero_errors(self) -> Self {
        for r in ["ground", "flight", "launch", "deorbit"] {
            for kind in ["store_unavailable", "database"] {
                self.reconcile_errors.with_label_values(&[r, kind]);
            }
        }
        for kind in ["cloud_unavailable", "cut_short"] {
            self.reconcile_errors.with_label_values(&["pass", kind]);
        }
        self.resyncs.with_label_values(&[] as &[&str]);
        self.notices_connected.with_label_values(&[] as &[&str]);
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

    /// Times one reconciler's work on one kluster; counts an error of `failed` kind.
    pub fn reconciled(&self, reconciler: &str, took: Duration, failed: Option<&str>) {
        self.reconcile_duration
            .with_label_values(&[reconciler])
            .observe(took.as_secs_f64());
        if let Some(kind) = failed {
            self.reconcile_errors
                .with_label_values(&[reconciler, kind])
                .inc();
        }
    }

    /// Counts a project's pass that went wrong as a whole: `cloud_unavailable` (the cloud
    /// did not answer its listing) or `cut_short` (past twice its time budget).
    pub fn reconcile_error(&self, kind: &str) {
        self.reconcile_errors
            .with_label_values(&["pass", kind])
            .inc();
    }

    /// Counts a notification read from the bus, by outcome (`woke`, `ignored`, `unreadable`).
    pub fn notice(&self, outcome: &str) {
        self.notices.with_label_values(&[outcome]).inc();
    }

    /// Whether the notification reader is connected.
    pub fn notices_connected(&self, up: bool) {
        self.notices_connected
            .with_label_values(&[] as &[&str])
            .set(i64::from(up));
    }

    /// Counts a full resync (every kluster passed, as a safety net).
    pub fn resync(&self) {
        self.resyncs.with_label_values(&[] as &[&str]).inc();
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
