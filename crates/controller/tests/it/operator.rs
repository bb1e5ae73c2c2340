//! The operator's view of the API, against the real router and the real local Keystone:
//! `/metrics` parsed with a Prometheus parser moves after a create and a delete; the audit
//! trail records who changed what (scoped per project, cloud admins see all). The ops
//! extensions: `operator_ops.rs`.

use crate::common::*;
use axum::{body::Body, http::Request, Router};
use serde_json::{json, Value};
use tower::ServiceExt;

/// The scrape as samples: (name, labels, value).
async fn scrape(app: &Router) -> Vec<prometheus_parse::Sample> {
    let res = app
        .clone()
        .oneshot(Request::get("/metrics").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let ct = res.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/plain; version=0.0.4"), "{ct}");
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let lines = text.lines().map(|l| Ok(l.to_string()));
    prometheus_parse::Scrape::parse(lines)
        .expect("the scrape parses")
        .samples
}

/// The value of the sample `name` whose labels include `labels` (0 when absent).
fn value(s: &[prometheus_parse::Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    s.iter()
        .filter(|x| x.metric == name)
        .filter(|x| labels.iter().all(|(k, v)| x.labels.get(k) == Some(*v)))
        .map(|x| match x.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            prometheus_parse::Value::Histogram(ref h) => {
                h.iter().map(|b| b.count).fold(0.0, f64::max)
            }
            _ => 0.0,
        })
        .sum()
}

async fn send(
    app: &Router,
    method: &str,
    path: &str,
    tok: &str,
    request_id: &str,
    body: Option<String>,
) -> (u16, Value) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("x-auth-token", tok)
        .header("x-request-id", request_id)
        .header("content-type", "application/json")
        .body(body.map(Body::from).unwrap_or_else(Body::empty))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn metrics_parse_and_move_after_a_create_and_a_delete() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let before = scrape(&app).await;
    let created = ("route", "/api/v1/clusters");
    let (s, _) = create(&app, &alice, kluster("metered", None)).await;
    assert_eq!(s, 201);
    let (s, _) = call(
        &app,
        "DELETE",
        "/api/v1/clusters/metered",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 202);
    let after = scrape(&app).await;
    let total = "mc_controller_http_requests_total";
    let posts = [("method", "POST"), created, ("status", "201")];
    assert_eq!(
        value(&after, total, &posts) - value(&before, total, &posts),
        1.0
    );
    let deletes = [
        ("method", "DELETE"),
        ("route", "/api/v1/clusters/:name"),
        ("status", "202"),
    ];
    let seen: Vec<String> = after
        .iter()
        .filter(|x| x.metric == total)
        .map(|x| format!("{:?}", x.labels))
        .collect();
    assert_eq!(
        value(&after, total, &deletes),
        1.0,
        "by template, not path: {seen:?}"
    );
    let project = account_of(&alice).await;
    assert!(
        after.iter().all(|x| !x
            .labels
            .values()
            .any(|v| v.contains("metered") || v.contains(&project) || v.contains("alice"))),
        "no kluster names, project ids or users as labels"
    );
    assert!(
        value(
            &after,
            "mc_controller_http_request_duration_seconds_count",
            &posts
        ) >= 1.0
    );
    for action in ["create", "delete"] {
        assert_eq!(
            value(
                &after,
                "mc_controller_audit_records_total",
                &[("action", action)]
            ),
            1.0,
            "{action}"
        );
    }
    assert_eq!(
        value(
            &after,
            "mc_controller_events_total",
            &[("reason", "Terminating"), ("type", "Normal")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &after,
            "mc_controller_klusters",
            &[("phase", "Terminating")]
        ),
        1.0
    );
    assert_eq!(
        value(
            &before,
            "mc_controller_klusters",
            &[("phase", "Terminating")]
        ),
        0.0
    );
    let nodes = value(&after, "mc_controller_nodes", &[("state", "desired")]);
    assert_eq!(nodes, 0.0, "no pool status without reconcilers");
}

#[tokio::test]
async fn the_audit_trail_records_who_changed_what_and_is_scoped_per_project() {
    let (app, store) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    let staging = token("alice", "staging").await;
    let bob = token("bob", "demo").await;
    let admin = cloud_admin_token().await;
    let demo = account_of(&alice).await;
    let (s, _) = send(
        &app,
        "POST",
        "/api/v1/clusters",
        &alice,
        "req-create-1",
        Some(kluster("audited", None)),
    )
    .await;
    assert_eq!(s, 201);
    let (_, k) = send(&app, "GET", "/api/v1/clusters/audited", &alice, "r", None).await;
    assert_eq!(k["metadata"]["createdBy"], json!("alice@demo"), "{k}");
    assert!(k["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap()
        .ends_with('Z'));
    let mut scaled = k.clone();
    scaled["spec"]["nodePools"][0]["size"] = json!(3);
    scaled.as_object_mut().unwrap().remove("status");
    let (s, v) = send(
        &app,
        "PUT",
        "/api/v1/clusters/audited",
        &alice,
        "req-scale-1",
        Some(scaled.to_string()),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = send(
        &app,
        "GET",
        "/api/v1/clusters/audited/credentials",
        &bob,
        "req-kubeconfig-1",
        None,
    )
    .await;
    assert!(s == 200 || s == 409, "credentials: {s}");
    let (s, _) = send(
        &app,
        "DELETE",
        "/api/v1/clusters/audited",
        &alice,
        "req-del-1",
        None,
    )
    .await;
    assert_eq!(s, 202);
    // Another project's change, which alice's demo admin view must not show.
    let (s, _) = create(&app, &staging, kluster("elsewhere", None)).await;
    assert_eq!(s, 201);

    let (s, v) = send(&app, "GET", "/api/v1/audit", &alice, "r", None).await;
    assert_eq!(s, 200, "{v}");
    let recs = v.as_array().unwrap();
    let actions: Vec<&str> = recs.iter().map(|r| r["action"].as_str().unwrap()).collect();
    let expect_credentials = actions.contains(&"credentials");
    let mut expected = vec!["delete", "scale", "create"];
    if expect_credentials {
        expected.insert(1, "credentials");
    }
    assert_eq!(actions, expected, "newest first, demo only: {v}");
    assert!(recs.iter().all(|r| r["projectId"] == json!(demo)));
    let scale = &recs[actions.iter().position(|a| *a == "scale").unwrap()];
    assert_eq!(scale["userName"], json!("alice"));
    assert_eq!(scale["userDomain"], json!("demo"));
    assert_eq!(scale["requestId"], json!("req-scale-1"));
    assert_eq!(
        scale["changes"],
        json!([{"field": "spec.nodePools[0].size", "before": "2", "after": "3"}])
    );
    let create_rec = recs.last().unwrap();
    assert_eq!(create_rec["requestId"], json!("req-create-1"));
    assert!(create_rec["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["field"] == json!("spec.nodePools[0].flavor")));
    let del = &recs[0];
    assert_eq!(
        del["changes"][0],
        json!({"field": "status.phase", "before": "\"Pending\"", "after": "\"Terminating\""})
    );

    // Filters.
    let (_, v) = send(
        &app,
        "GET",
        "/api/v1/audit?action=scale&user=alice",
        &alice,
        "r",
        None,
    )
    .await;
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    let (_, v) = send(
        &app,
        "GET",
        "/api/v1/audit?kluster=nothing",
        &alice,
        "r",
        None,
    )
    .await;
    assert!(v.as_array().unwrap().is_empty());
    let (s, v) = send(&app, "GET", "/api/v1/audit?since=soon", &alice, "r", None).await;
    assert_eq!(s, 400);
    assert_error(&v, 400, "is not a time");

    // Members and other projects: 403 in words.
    let (s, v) = send(&app, "GET", "/api/v1/audit", &bob, "r", None).await;
    assert_eq!(s, 403);
    assert_error(&v, 403, "for admins of the project");
    let (s, v) = send(
        &app,
        "GET",
        &format!("/api/v1/audit?project={}", account_of(&staging).await),
        &alice,
        "r",
        None,
    )
    .await;
    assert_eq!(s, 403);
    assert_error(
        &v,
        403,
        "Another project's audit trail is for cloud admins only",
    );
    let (s, _) = send(
        &app,
        "GET",
        "/api/v1/audit?project=staging",
        &alice,
        "r",
        None,
    )
    .await;
    assert_eq!(s, 403, "another project by its name");
    // Their own project, by its id or its name (any case), is theirs to read.
    for own in [demo.as_str(), "DEMO", "demo"] {
        let (s, v) = send(
            &app,
            "GET",
            &format!("/api/v1/audit?project={own}"),
            &alice,
            "r",
            None,
        )
        .await;
        assert_eq!(s, 200, "?project={own}: {v}");
        let rows = v.as_array().unwrap();
        assert!(!rows.is_empty(), "{v}");
        assert!(
            rows.iter().all(|r| r["projectName"] == json!("demo")),
            "{v}"
        );
    }

    // Cloud admins: every project, or one.
    let (s, v) = send(&app, "GET", "/api/v1/audit", &admin, "r", None).await;
    assert_eq!(s, 200);
    let projects: std::collections::BTreeSet<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["projectName"].as_str().unwrap())
        .collect();
    assert_eq!(
        projects.into_iter().collect::<Vec<_>>(),
        ["demo", "staging"]
    );
    let (_, v) = send(
        &app,
        "GET",
        &format!("/api/v1/audit?project={demo}"),
        &admin,
        "r",
        None,
    )
    .await;
    assert!(v
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["projectId"] == json!(demo)));
    let (_, v) = send(
        &app,
        "GET",
        "/api/v1/audit?project=staging",
        &admin,
        "r",
        None,
    )
    .await;
    let by_name = v.as_array().unwrap();
    assert!(!by_name.is_empty(), "staging's trail by its name: {v}");
    assert!(
        by_name.iter().all(|r| r["projectName"] == json!("staging")),
        "{v}"
    );
    drop(store);
}
