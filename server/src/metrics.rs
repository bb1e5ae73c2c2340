//! The dashboard's Prometheus metrics (`GET /metrics`): HTTP requests by route template
//! (server functions by their registered path) and status, Keystone and controller calls
//! by operation or route template with their errors, sessions in the store, live streams
//! and upstream feeds. Aggregates only: no label names a project, user or kluster.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::{
    extract::{Request, State},
    middleware::Next,
    response::Response,
};
use prometheus::{
    HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
};
use serving::metrics::{method_label, route_of, HttpMetrics, LATENCY_BUCKETS};

/// Everything the dashboard measures, in its own registry.
#[derive(Clone)]
pub struct DashboardMetrics {
    /// The registry `/metrics` renders.
    pub registry: Registry,
    http: HttpMetrics,
    server_fns: Arc<HashSet<String>>,
    keystone_duration: HistogramVec,
    keystone_errors: IntCounterVec,
    controller_duration: HistogramVec,
    controller_errors: IntCounterVec,
    sessions: IntGauge,
    live_streams: IntGauge,
    live_feeds: IntGaugeVec,
}

impl std::fmt::Debug for DashboardMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DashboardMetrics")
    }
}

fn reg<C: prometheus::core::Collector + Clone + 'static>(r: &Registry, c: C) -> C {
    if let Err(e) = r.register(Box::new(c.clone())) {
        tracing::error!(error = %e, "metric not registered");
    }
    c
}

fn histogram(r: &Registry, name: &str, help: &str, labels: &[&str]) -> HistogramVec {
    let opts = HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec());
    reg(
        r,
        HistogramVec::new(opts, labels).unwrap_or_else(|e| panic!("{name}: {e}")),
    )
}

fn counter(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    reg(
        r,
        IntCounterVec::new(Opts::new(name, help), labels).unwrap_or_else(|e| panic!("{name}: {e}")),
    )
}

impl DashboardMetrics {
    /// A fresh registry with every dashboard metric; `server_fns` are the registered server
    /// function paths (labelled by path; any other `/api/…` path is `/api/{fn}`).
    pub fn new(server_fns: HashSet<String>) -> Self {
        let r = Registry::new();
        let p = "mc_dashboard";
        let gauge = |name: &str, help: &str| {
            reg(
                &r,
                IntGauge::new(format!("{p}_{name}"), help)
                    .unwrap_or_else(|e| panic!("{name}: {e}")),
            )
        };
        let sessions = gauge(
            "sessions",
            "Sessions in the session store (signed in or not yet expired); -1 when the store cannot count them",
        );
        let live_streams = gauge("live_streams", "Live event streams open to browsers");
        DashboardMetrics {
            http: HttpMetrics::new(&r, p),
            server_fns: Arc::new(server_fns),
            keystone_duration: histogram(
                &r,
                &format!("{p}_keystone_request_duration_seconds"),
                "Time of calls to Keystone, by operation",
                &["operation"],
            ),
            keystone_errors: counter(
                &r,
                &format!("{p}_keystone_request_errors_total"),
                "Failed calls to Keystone, by operation and kind (unavailable, refused, other)",
                &["operation", "kind"],
            ),
            controller_duration: histogram(
                &r,
                &format!("{p}_controller_request_duration_seconds"),
                "Time of calls to the controller (Kubernikus API), by method and route template",
                &["method", "route"],
            ),
            controller_errors: counter(
                &r,
                &format!("{p}_controller_request_errors_total"),
                "Failed calls to the controller, by method, route template and kind (unreachable, client_error, server_error)",
                &["method", "route", "kind"],
            ),
            sessions,
            live_streams,
            live_feeds: reg(
                &r,
                IntGaugeVec::new(
                    Opts::new(
                        format!("{p}_live_upstream_feeds"),
                        "Upstream event feeds from the controller (one per project with browsers), by state",
                    ),
                    &["state"],
                )
                .unwrap_or_else(|e| panic!("live feeds: {e}")),
            ),
            registry: r,
        }
    }

    /// The observer to hand the Keystone client.
    pub fn keystone_observer(&self) -> Arc<keystone::ObserverFn> {
        let (d, e) = (self.keystone_duration.clone(), self.keystone_errors.clone());
        Arc::new(move |op, took: Duration, err: Option<&keystone::Error>| {
            d.with_label_values(&[op]).observe(took.as_secs_f64());
            if let Some(err) = err {
                let kind = match err {
                    e if e.is_unavailable() => "unavailable",
                    keystone::Error::Unauthorized
                    | keystone::Error::Forbidden(_)
                    | keystone::Error::NotFound => "refused",
                    _ => "other",
                };
                e.with_label_values(&[op, kind]).inc();
            }
        })
    }

    /// The observer to hand the controller client.
    pub fn controller_observer(&self) -> Arc<app::ssr::controller::ControllerObserver> {
        let (d, e) = (
            self.controller_duration.clone(),
            self.controller_errors.clone(),
        );
        Arc::new(move |method: &str, route: &str, took: Duration, failed| {
            d.with_label_values(&[method, route])
                .observe(took.as_secs_f64());
            if let Some(kind) = failed {
                e.with_label_values(&[method, route, kind]).inc();
            }
        })
    }

    /// Sets the gauges read at scrape time.
    pub fn set_live(&self, streams: usize, feeds: [(&str, usize); 3]) {
        self.live_streams.set(streams as i64);
        for (state, n) in feeds {
            self.live_feeds.with_label_values(&[state]).set(n as i64);
        }
    }

    /// Sets the session count (`None`: the store cannot count).
    pub fn set_sessions(&self, n: Option<i64>) {
        self.sessions.set(n.unwrap_or(-1));
    }

    /// The route label of a request: its template; a registered server function by its
    /// path; static files as `/pkg/*`.
    fn route(&self, req: &Request) -> String {
        let path = req.uri().path();
        if path.starts_with("/api/") {
            return if self.server_fns.contains(path) {
                path.to_string()
            } else {
                "/api/{fn}".to_string()
            };
        }
        if path.starts_with("/pkg/") {
            return "/pkg/*".to_string();
        }
        route_of(req)
    }
}

/// Middleware: counts and times every request by method, route and status.
pub async fn track(State(m): State<DashboardMetrics>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = method_label(req.method());
    let route = m.route(&req);
    let res = next.run(req).await;
    m.http
        .observe(method, &route, res.status().as_u16(), start.elapsed());
    res
}

/// What `/metrics` reads at scrape time, and the metrics themselves.
#[derive(Clone, Debug)]
pub struct Ops {
    /// The dashboard's metrics.
    pub metrics: DashboardMetrics,
    /// Counts the stored sessions.
    pub sessions: crate::stores::SessionCount,
    /// The live streams' hub.
    pub hub: std::sync::Arc<crate::live::Hubs>,
}

/// Adds `/metrics` and the request metrics to a router from [`crate::router`].
pub trait MergeOps {
    /// The router with `GET /metrics` and every request counted.
    fn merge_ops(self, ops: Ops) -> axum::Router;
}

impl MergeOps for axum::Router {
    fn merge_ops(self, ops: Ops) -> axum::Router {
        let m = ops.metrics.clone();
        self.route("/metrics", axum::routing::get(move || scrape(ops.clone())))
            .layer(axum::middleware::from_fn_with_state(m, track))
    }
}

/// `GET /metrics`: the dashboard's metrics in the Prometheus text format.
async fn scrape(ops: Ops) -> axum::response::Response {
    let (streams, feeds) = ops.hub.counts();
    ops.metrics.set_live(streams, feeds);
    ops.metrics.set_sessions(ops.sessions.count().await);
    serving::metrics::exposition(serving::metrics::render(&ops.metrics.registry))
}
