//! Concurrent writers: optimistic concurrency on update (`resourceVersion`, `ETag`,
//! `If-Match` → 412 in words; no `If-Match` writes as before), and race-free default pod
//! ranges — concurrent creates on one router never get the same range, on SQLite (one
//! process) and on PostgreSQL (two controller replicas on one database).

use std::collections::BTreeSet;
use std::time::Duration;

use crate::common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn a_stale_if_match_is_412_and_changes_nothing() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let (s, created) = create(&app, &alice, kluster("occ", None)).await;
    assert_eq!(s, 201);
    assert_eq!(created["metadata"]["resourceVersion"], "1");
    let path = "/api/v1/clusters/occ";
    let (_, h, read) = call_with(&app, "GET", path, Some(&alice), &[], None).await;
    assert_eq!(h["etag"], "\"1\"");
    // Admin A scales with the version read: accepted, the version grows.
    let mut a = read.clone();
    a["spec"]["nodePools"][0]["size"] = json!(3);
    let (s, h, after) = call_with(
        &app,
        "PUT",
        path,
        Some(&alice),
        &[("if-match", "\"1\"")],
        Some(a.to_string()),
    )
    .await;
    assert_eq!(s, 200, "{after}");
    assert_eq!(
        (
            h["etag"].to_str().unwrap(),
            &after["metadata"]["resourceVersion"]
        ),
        ("\"2\"", &json!("2"))
    );
    // Admin B, who read version 1 too, would undo it: refused in words, nothing changes.
    let mut b = read.clone();
    b["spec"]["nodePools"][0]["size"] = json!(5);
    let (s, _, e) = call_with(
        &app,
        "PUT",
        path,
        Some(&alice),
        &[("if-match", "\"1\"")],
        Some(b.to_string()),
    )
    .await;
    assert_eq!(s, 412, "{e}");
    assert_error(
        &e,
        412,
        "Someone else changed this kluster since you read it (it is at resourceVersion 2",
    );
    let (_, h, now) = call_with(&app, "GET", path, Some(&alice), &[], None).await;
    assert_eq!(now["spec"]["nodePools"][0]["size"], 3);
    assert_eq!(h["etag"], "\"2\"");
    // A refused update (rules) and an unchanged spec keep the version.
    let (s, _, _) = call_with(
        &app,
        "PUT",
        path,
        Some(&alice),
        &[("if-match", "\"2\"")],
        Some(now.to_string()),
    )
    .await;
    assert_eq!(s, 200);
    let (_, h, _) = call_with(&app, "GET", path, Some(&alice), &[], None).await;
    assert_eq!(h["etag"], "\"2\"", "nothing changed, same version");
    // Without If-Match (a Kubernikus client) the last write wins, as before.
    let (s, _, k) = call_with(&app, "PUT", path, Some(&alice), &[], Some(b.to_string())).await;
    assert_eq!((s, &k["spec"]["nodePools"][0]["size"]), (200, &json!(5)));
}

/// Creates `n` klusters at once through `bases` in turn (HTTP) and returns their pod ranges.
async fn create_at_once(bases: &[String], token: &str, n: usize) -> Vec<String> {
    let http = reqwest::Client::new();
    let mut all = Vec::new();
    for i in 0..n {
        let (http, url, token) = (
            http.clone(),
            format!("{}/api/v1/clusters", bases[i % bases.len()]),
            token.to_string(),
        );
        all.push(tokio::spawn(async move {
            let r = http
                .post(url)
                .header("x-auth-token", token)
                .body(kluster(&format!("race-{i}"), None))
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let v: Value = r.json().await.unwrap();
            assert_eq!(status, 201, "{v}");
            v["spec"]["clusterCIDR"].as_str().unwrap().to_string()
        }));
    }
    let mut ranges = Vec::new();
    for t in all {
        ranges.push(t.await.unwrap());
    }
    ranges
}

fn assert_distinct(ranges: &[String]) {
    let unique: BTreeSet<&String> = ranges.iter().collect();
    assert_eq!(
        unique.len(),
        ranges.len(),
        "two creates got the same default range: {ranges:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_creates_get_distinct_default_ranges_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("mc-race-sqlite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let c = controller::run::start(
        fast_controller(&url(), &dir, Duration::from_secs(60)),
        std::future::pending(),
    )
    .await
    .unwrap();
    let alice = token("alice", "demo").await;
    let ranges = create_at_once(&[format!("http://{}", c.addr)], &alice, 8).await;
    assert_distinct(&ranges);
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_creates_on_two_replicas_get_distinct_default_ranges_on_postgres() {
    let db = crate::common::pg::fresh_database("race").await;
    let dir = std::env::temp_dir().join(format!("mc-race-pg-{}", std::process::id()));
    let mut bases = Vec::new();
    for _ in 0..2 {
        let mut config = fast_controller(&url(), &dir, Duration::from_secs(60));
        config.database = db.clone();
        let c = controller::run::start(config, std::future::pending())
            .await
            .unwrap();
        bases.push(format!("http://{}", c.addr));
    }
    let alice = token("alice", "demo").await;
    let ranges = create_at_once(&bases, &alice, 8).await;
    assert_distinct(&ranges);
    let _ = std::fs::remove_dir_all(dir);
}
