//! The list query extension of `GET /api/v1/clusters` (`?q=&phase=&sort=&limit=&offset=`,
//! `fields=summary`) through the real router, store and Keystone: search, phase filter,
//! sort, paging, the `X-Total-Count` header, summaries, and bad parameters refused in words.

use crate::common::*;
use axum::{body::Body, http::Request};
use serde_json::Value;
use std::time::Duration;
use testkit::eventually;
use time::format_description::well_known::Rfc3339;
use tower::ServiceExt;

/// `GET path` as `tok`: status, the `X-Total-Count` header, and the klusters' names.
async fn list(app: &axum::Router, tok: &str, path: &str) -> (u16, Option<usize>, Value) {
    let req = Request::get(path)
        .header("x-auth-token", tok)
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let total = res
        .headers()
        .get("x-total-count")
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, total, serde_json::from_slice(&bytes).unwrap())
}

fn names(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn search_filter_sort_and_page_on_the_controller() {
    let (app, store) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    // Created in different seconds (creation times are to the second), in an order that is
    // not the names' order: after the first, the next second is waited for.
    for (i, name) in ["web", "db", "web-2", "batch"].into_iter().enumerate() {
        let cidr = format!("10.{}.0.0/16", 40 + i);
        let (s, k) = create(&app, &alice, kluster(name, Some(&cidr))).await;
        assert_eq!(s, 201, "{k}");
        if i == 0 {
            let stamp = k["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap_or_default();
            let created = time::OffsetDateTime::parse(stamp, &Rfc3339)
                .unwrap_or_else(|e| panic!("creationTimestamp {stamp:?}: {e}"));
            eventually(Duration::from_secs(5), "the next second", || async {
                time::OffsetDateTime::now_utc().unix_timestamp() > created.unix_timestamp()
            })
            .await;
        }
    }
    let project = demo_project_id().await;
    store
        .modify(&project, "db", |k| {
            k.status.phase = kluster::KlusterPhase::Running;
            Ok::<_, ()>(())
        })
        .await
        .unwrap()
        .unwrap()
        .unwrap();

    // Without parameters: everything, by name (as before, so a plain client sees no change).
    let (s, total, all) = list(&app, &alice, "/api/v1/clusters").await;
    assert_eq!((s, names(&all)), (200, vec!["batch", "db", "web", "web-2"]));
    assert_eq!(total, Some(4));
    let created = all[0]["metadata"]["creationTimestamp"]
        .as_str()
        .unwrap_or_default();
    assert!(created.ends_with('Z') && created.len() >= 20, "{created:?}");

    let (_, total, web) = list(&app, &alice, "/api/v1/clusters?q=WEB").await;
    assert_eq!((total, names(&web)), (Some(2), vec!["web", "web-2"]));
    let (_, total, running) = list(&app, &alice, "/api/v1/clusters?phase=Running").await;
    assert_eq!((total, names(&running)), (Some(1), vec!["db"]));
    let (_, _, oldest) = list(&app, &alice, "/api/v1/clusters?sort=created").await;
    assert_eq!(
        names(&oldest)[0],
        "web",
        "created first, though not first by name"
    );
    let (_, _, by_phase) = list(&app, &alice, "/api/v1/clusters?sort=-phase").await;
    assert_eq!(names(&by_phase)[0], "db", "Running after Pending");
    let path = "/api/v1/clusters?sort=-name&limit=2&offset=1";
    let (_, total, page) = list(&app, &alice, path).await;
    assert_eq!((total, names(&page)), (Some(4), vec!["web", "db"]));

    // fields=summary: the same klusters and total, each only as a list row reads it, under
    // the whole kluster's names.
    let path = "/api/v1/clusters?sort=-name&limit=2&offset=1&fields=summary";
    let (s, total, summaries) = list(&app, &alice, path).await;
    assert_eq!(
        (s, total, names(&summaries)),
        (200, Some(4), vec!["web", "db"])
    );
    let (whole, short) = (&page[1], &summaries[1]);
    assert_eq!(short["status"]["phase"], "Running", "{short}");
    for field in [
        "/spec/version",
        "/spec/nodePools/0/name",
        "/spec/nodePools/0/size",
    ] {
        assert_eq!(
            short.pointer(field),
            whole.pointer(field),
            "{field}: {short}"
        );
    }
    assert_eq!(
        short["metadata"]["creationTimestamp"], whole["metadata"]["creationTimestamp"],
        "{short}"
    );
    assert!(short["metadata"].get("uid").is_none(), "{short}");
    assert!(
        short["spec"]["nodePools"][0].get("flavor").is_none(),
        "{short}"
    );
    assert!(
        whole["spec"]["nodePools"][0].get("flavor").is_some(),
        "{whole}"
    );
    let row: kluster::KlusterSummary = serde_json::from_value(short.clone()).unwrap();
    let from_whole: kluster::KlusterSummary = serde_json::from_value(whole.clone()).unwrap();
    assert_eq!(row, from_whole, "a summary reads as the whole kluster does");

    for (query, needle) in [
        ("fields=everything", "Unknown fields"),
        ("phase=Sleeping", "Unknown phase"),
        ("sort=size", "Unknown sort"),
        ("limit=100000", "limit is 1 to 500"),
        ("offset=x", "whole number"),
    ] {
        let (s, _, e) = list(&app, &alice, &format!("/api/v1/clusters?{query}")).await;
        assert_eq!(s, 400, "{query}");
        assert_error(&e, 400, needle);
    }
}

/// The id of alice's project demo.
async fn demo_project_id() -> String {
    keystone::Client::new(&url())
        .unwrap()
        .password_auth(&keystone::PasswordAuth {
            user_name: "alice",
            password: "alice-secret",
            user_domain: "demo",
            project: keystone::ProjectRef::Name {
                name: "demo",
                domain: "demo",
            },
        })
        .await
        .expect("alice signs in")
        .project
        .expect("project-scoped")
        .id
}
