//! The operator's view through the dashboard, in process against the real local Keystone:
//! both `/metrics` endpoints parse with a Prometheus parser and move after a create and a
//! delete; the Grafana dashboard references only metrics a real scrape has (who sees the
//! operator pages: `operator_access.rs`).

use std::collections::BTreeSet;
use std::time::Duration;

use crate::common::*;

/// A scrape: its text and the metric family names it declares (`# TYPE`), with the series
/// names a histogram adds.
async fn scrape(url: &str) -> (Vec<prometheus_parse::Sample>, BTreeSet<String>) {
    let r = reqwest::get(format!("{url}/metrics")).await.unwrap();
    assert_eq!(r.status(), 200, "{url}/metrics");
    let text = r.text().await.unwrap();
    let parsed = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string())))
        .unwrap_or_else(|e| panic!("{url}/metrics parses: {e}"));
    let mut names = BTreeSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut it = rest.split_whitespace();
            let (Some(name), Some(kind)) = (it.next(), it.next()) else {
                continue;
            };
            names.insert(name.to_string());
            if kind == "histogram" {
                for s in ["_bucket", "_sum", "_count"] {
                    names.insert(format!("{name}{s}"));
                }
            }
        }
    }
    (parsed.samples, names)
}

/// The sum of the samples `name` whose labels include `labels` (histograms: their count).
fn value(s: &[prometheus_parse::Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    s.iter()
        .filter(|x| x.metric == name)
        .filter(|x| labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .map(|x| match &x.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => *v,
            prometheus_parse::Value::Histogram(h) => h.iter().map(|b| b.count).fold(0.0, f64::max),
            _ => 0.0,
        })
        .sum()
}

const KLUSTER: &str = r#"{"name":"scraped","spec":{"nodePools":[{"name":"small","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#;

#[tokio::test]
async fn both_scrapes_parse_and_move_after_a_create_and_a_delete() {
    let srv = spawn(|s| s.controller.controller_phase_seconds = Some(0.5)).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let (d0, _) = scrape(&srv.base).await;
    let (c0, _) = scrape(&srv.controller_url).await;
    create_kluster(&srv, "alice", KLUSTER).await;
    let (status, _, body) = page(&c, &srv, "/").await;
    assert_eq!(status, 200);
    assert!(body.contains("scraped"));
    // A refused sign-in (Keystone error) and a kluster that does not exist (controller 404).
    let stranger = browser();
    let r = call(
        &stranger,
        &srv,
        "login",
        &[
            ("user_name", "alice"),
            ("password", "wrong"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ],
    )
    .await;
    assert!(r.status().is_client_error());
    let (status, _, _) = page(&c, &srv, "/klusters/nope").await;
    assert!(status == 404 || status == 200, "{status}");
    let r = call(
        &c,
        &srv,
        "delete_kluster",
        &[("name", "scraped"), ("confirm", "scraped")],
    )
    .await;
    assert!(
        r.status().is_success(),
        "delete: {}",
        r.text().await.unwrap()
    );
    // Wait for a reconcile pass that saw the kluster (and called the cloud).
    let (c1, cnames) = testkit::eventually(
        Duration::from_secs(20),
        "a reconcile pass measured",
        || async {
            let (s, n) = scrape(&srv.controller_url).await;
            let cloud = value(
                &s,
                "mc_controller_cloud_request_duration_seconds_count",
                &[],
            );
            let passes = value(
                &s,
                "mc_controller_reconcile_duration_seconds_count",
                &[("reconciler", "ground")],
            );
            (cloud > 0.0 && passes > 0.0).then_some((s, n))
        },
    )
    .await;
    let (d1, dnames) = scrape(&srv.base).await;

    let moved = |a: &[prometheus_parse::Sample],
                 b: &[prometheus_parse::Sample],
                 n: &str,
                 l: &[(&str, &str)]| { value(b, n, l) - value(a, n, l) };
    // Controller: the create and the delete by route template and status.
    let req = "mc_controller_http_requests_total";
    assert_eq!(
        moved(
            &c0,
            &c1,
            req,
            &[
                ("method", "POST"),
                ("route", "/api/v1/clusters"),
                ("status", "201")
            ]
        ),
        1.0
    );
    assert_eq!(
        moved(
            &c0,
            &c1,
            req,
            &[
                ("method", "DELETE"),
                ("route", "/api/v1/clusters/:name"),
                ("status", "202")
            ]
        ),
        1.0
    );
    assert!(
        value(
            &c1,
            "mc_controller_reconcile_pass_duration_seconds_count",
            &[]
        ) > 0.0
    );
    assert!(
        value(
            &c1,
            "mc_controller_audit_records_total",
            &[("action", "delete")]
        ) >= 1.0
    );
    assert!(
        value(
            &c1,
            "mc_controller_events_total",
            &[("reason", "Terminating")]
        ) >= 1.0
    );
    // Dashboard: the page, the delete server function, the controller and Keystone calls.
    let dreq = "mc_dashboard_http_requests_total";
    assert!(moved(&d0, &d1, dreq, &[("route", "/"), ("status", "200")]) >= 1.0);
    assert_eq!(
        moved(
            &d0,
            &d1,
            dreq,
            &[("route", "/api/delete_kluster"), ("status", "200")]
        ),
        1.0
    );
    assert!(
        moved(
            &d0,
            &d1,
            "mc_dashboard_controller_request_duration_seconds_count",
            &[("method", "DELETE"), ("route", "/api/v1/clusters/:name")]
        ) >= 1.0
    );
    assert!(
        value(
            &d1,
            "mc_dashboard_keystone_request_duration_seconds_count",
            &[("operation", "password_auth")]
        ) >= 1.0
    );
    assert!(value(&d1, "mc_dashboard_sessions", &[]) >= 1.0);
    for name in [
        "mc_dashboard_live_streams",
        "mc_dashboard_live_upstream_feeds",
    ] {
        assert!(dnames.contains(name), "{name} missing");
    }
    // No tenant in any label.
    for s in d1.iter().chain(c1.iter()) {
        for v in s.labels.values() {
            assert!(
                !v.contains("scraped") && !v.contains("alice"),
                "{} has {v}",
                s.metric
            );
        }
    }

    // The Grafana dashboard references only metrics that exist in these scrapes.
    let grafana =
        std::fs::read_to_string(cluster::root().join("deploy/grafana/mission-control.json"))
            .expect("deploy/grafana/mission-control.json");
    let json: serde_json::Value = serde_json::from_str(&grafana).expect("valid JSON");
    let mut exprs = Vec::new();
    collect_exprs(&json, &mut exprs);
    assert!(exprs.len() >= 10, "panels with queries: {}", exprs.len());
    let all: BTreeSet<&String> = cnames.iter().chain(dnames.iter()).collect();
    let mut referenced = BTreeSet::new();
    for e in &exprs {
        for name in metric_names(e) {
            assert!(
                all.contains(&name),
                "the dashboard's {name:?} (in {e:?}) is not in a scrape"
            );
            referenced.insert(name);
        }
    }
    assert!(referenced.len() >= 12, "{referenced:?}");
}

/// Every `expr` string in the dashboard JSON.
fn collect_exprs(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("expr", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => collect_exprs(v, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|v| collect_exprs(v, out)),
        _ => {}
    }
}

/// The metric names (`mc_…`) a PromQL expression uses.
fn metric_names(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b':';
        if expr[i..].starts_with("mc_") && (i == 0 || !word(b[i - 1])) {
            let end = (i..b.len()).find(|&j| !word(b[j])).unwrap_or(b.len());
            out.push(expr[i..end].to_string());
            i = end;
        } else {
            i += 1;
        }
    }
    out
}
