//! A kluster's life through the running controller (HTTP on loopback, real SQLite, real
//! Keystone, simulated cloud, 1-second phases): Pending → Creating → Running with its
//! events and nodes, an upgrade, deletion; and the project's event stream (SSE) with resume.

use std::time::{Duration, Instant};

use crate::common::{fast_controller, kluster, reconcile_passes, token, url};
use controller::run::start;
use serde_json::{json, Value};
use testkit::eventually;

async fn wait_for(
    http: &reqwest::Client,
    url: &str,
    tok: &str,
    what: &str,
    done: impl Fn(u16, &Value) -> bool,
) -> Value {
    let what = format!("waiting for {what}");
    eventually(Duration::from_secs(15), what, || async {
        let r = http
            .get(url)
            .header("x-auth-token", tok)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let v: Value = r.json().await.unwrap_or(Value::Null);
        if done(status, &v) {
            Ok(v)
        } else {
            Err(format!("{status} {v}"))
        }
    })
    .await
}

#[tokio::test]
async fn a_kluster_comes_up_upgrades_and_goes_away() {
    let dir = std::env::temp_dir().join(format!("mc-life-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = fast_controller(&url(), &dir, Duration::from_secs(1));
    let running = start(config, std::future::pending()).await.unwrap();
    let base = format!("http://{}/api/v1/clusters", running.addr);
    let http = reqwest::Client::new();
    let alice = token("alice", "demo").await;

    let r = http
        .post(&base)
        .header("x-auth-token", &alice)
        .body(kluster("life", None))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let one = format!("{base}/life");
    let k = wait_for(&http, &one, &alice, "Running", |_, v| {
        v["status"]["phase"] == "Running"
    })
    .await;
    assert_eq!(k["status"]["version"], k["spec"]["version"]);
    assert!(
        k["spec"]["openstack"]["routerID"]
            .as_str()
            .unwrap()
            .starts_with("router-"),
        "router resolved: {k}"
    );
    // Filling in the router is not a change someone asked for: a page shown at create may
    // still change the kluster with the version it shows.
    assert_eq!(k["metadata"]["resourceVersion"], "1", "{k}");
    let events: Value = http
        .get(format!("{one}/events"))
        .header("x-auth-token", &alice)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let reasons: Vec<&str> = events
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons[..2],
        ["Creating", "Running"],
        "phase events first: {events}"
    );
    assert!(events
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["type"] == "Normal"));
    // Its nodes come up: the pool reports them running and healthy.
    let k = wait_for(&http, &one, &alice, "healthy nodes", |_, v| {
        v["status"]["nodePools"][0]["healthy"] == 2
    })
    .await;
    assert_eq!(k["status"]["nodePools"][0]["running"], 2);
    assert_eq!(k["status"]["nodePools"][0]["schedulable"], 2);

    let mut up = k.clone();
    up["spec"]["version"] = json!("1.33.0");
    let r = http
        .put(&one)
        .header("x-auth-token", &alice)
        .body(up.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    wait_for(&http, &one, &alice, "Upgrading", |_, v| {
        v["status"]["phase"] == "Upgrading" || v["status"]["version"] == "1.33.0"
    })
    .await;
    let k = wait_for(&http, &one, &alice, "the upgrade", |_, v| {
        v["status"]["version"] == "1.33.0"
    })
    .await;
    assert_eq!(k["status"]["phase"], "Running");

    let r = http
        .delete(&one)
        .header("x-auth-token", &alice)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    wait_for(&http, &one, &alice, "removal", |status, _| status == 404).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// Reads SSE frames from `r` until `done` says enough; returns (event type, id, data).
async fn read_frames(
    r: &mut reqwest::Response,
    done: impl Fn(&[(String, String, String)]) -> bool,
) -> Vec<(String, String, String)> {
    let mut parser = kubernikus_client::sse::Parser::new(1 << 20);
    let mut frames = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(15);
    while !done(&frames) {
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = tokio::time::timeout(left, r.chunk())
            .await
            .unwrap_or_else(|_| panic!("stream stalled; frames so far {frames:?}"))
            .unwrap()
            .expect("stream ended early");
        for f in parser.push(&chunk).expect("frames under the bound") {
            if !f.event.is_empty() {
                frames.push((f.event, f.id.unwrap_or_default(), f.data.trim().into()));
            }
        }
    }
    frames
}

#[tokio::test]
async fn the_event_stream_pushes_changes_and_resumes_after_the_last_id() {
    let dir = std::env::temp_dir().join(format!("mc-sse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = fast_controller(&url(), &dir, Duration::from_secs(1));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = start(config, async {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    let base = format!("http://{}/api/v1", running.addr);
    let http = reqwest::Client::new();
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;

    let no_token = http
        .get(format!("{base}/events/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(no_token.status(), 401);

    let mut live = http
        .get(format!("{base}/events/stream"))
        .header("x-auth-token", &bob)
        .send()
        .await
        .unwrap();
    assert_eq!(live.status(), 200);
    assert_eq!(
        live.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let r = http
        .post(format!("{base}/clusters"))
        .header("x-auth-token", &alice)
        .body(kluster("streamed", None))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let running_seen =
        |f: &[(String, String, String)]| f.iter().any(|x| x.2.contains("\"reason\":\"Running\""));
    let frames = read_frames(&mut live, running_seen).await;
    assert_eq!(frames[0].0, "ready", "{frames:?}");
    let events: Vec<&(String, String, String)> = frames.iter().filter(|f| f.0 == "event").collect();
    let ids: Vec<i64> = events.iter().map(|f| f.1.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids grow: {ids:?}");
    let first: Value = serde_json::from_str(&events[0].2).unwrap();
    assert_eq!(first["kluster"], "streamed");
    assert_eq!(first["reason"], "Creating");
    assert_eq!(first["seq"], json!(ids[0]));

    // A client that lost the connection resumes after the last id it saw: nothing missed.
    drop(live);
    let mut resumed = http
        .get(format!("{base}/events/stream?kluster=streamed"))
        .header("x-auth-token", &bob)
        .header("last-event-id", ids[0].to_string())
        .send()
        .await
        .unwrap();
    let again = read_frames(&mut resumed, running_seen).await;
    let replayed: Vec<i64> = again
        .iter()
        .filter(|f| f.0 == "event")
        .map(|f| f.1.parse().unwrap())
        .collect();
    assert_eq!(
        replayed[..ids.len() - 1],
        ids[1..],
        "replayed in order after {}",
        ids[0]
    );

    // The same changes as a list (the polling fallback).
    let listed: Value = http
        .get(format!("{base}/events?after={}&kluster=streamed", ids[0]))
        .header("x-auth-token", &bob)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed[0]["seq"], json!(ids[1]), "{listed}");
    let newest: Value = http
        .get(format!("{base}/events?last=1"))
        .header("x-auth-token", &bob)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(newest.as_array().map(Vec::len), Some(1));
    assert!(
        newest[0]["seq"].as_i64() >= Some(*ids.last().unwrap()),
        "{newest}"
    );
    let bad = http
        .get(format!("{base}/events/stream"))
        .header("x-auth-token", &bob)
        .header("last-event-id", "yesterday")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);

    // Other projects see nothing of it.
    let staging = token("alice", "staging").await;
    let theirs: Value = http
        .get(format!("{base}/events"))
        .header("x-auth-token", &staging)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(theirs, json!([]));

    // Shutdown ends open streams, so the server stops promptly.
    let t0 = Instant::now();
    let _ = stop.send(());
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        while let Ok(Some(_)) = resumed.chunk().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stream ended on shutdown");
    tokio::time::timeout(Duration::from_secs(5), running.task)
        .await
        .expect("server stopped")
        .unwrap()
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_restarted_controller_finds_its_servers_in_the_saved_cloud_and_adds_none() {
    let dir = std::env::temp_dir().join(format!("mc-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = fast_controller(&url(), &dir, Duration::from_secs(1));
    let http = reqwest::Client::new();
    let alice = token("alice", "demo").await;
    let servers = |base: String| {
        let (http, alice) = (http.clone(), alice.clone());
        async move {
            let mut left: Vec<String> = http
                .get(format!("{base}/api/v1/simulator/debris/again"))
                .header("x-auth-token", &alice)
                .send()
                .await
                .unwrap()
                .json::<Vec<String>>()
                .await
                .unwrap()
                .into_iter()
                .filter(|d| d.starts_with("server "))
                .collect();
            left.sort();
            left
        }
    };

    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let first = start(config.clone(), async {
        let _ = stopped.await;
    })
    .await
    .unwrap();
    let base = format!("http://{}", first.addr);
    let r = http
        .post(format!("{base}/api/v1/clusters"))
        .header("x-auth-token", &alice)
        .body(kluster("again", None))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    wait_for(
        &http,
        &format!("{base}/api/v1/clusters/again"),
        &alice,
        "healthy nodes",
        |_, v| v["status"]["nodePools"][0]["healthy"] == 2,
    )
    .await;
    let before = servers(base.clone()).await;
    assert_eq!(before.len(), 2, "{before:?}");
    let _ = stop.send(());
    first.task.await.unwrap().unwrap();

    // The process is gone; the (simulated) cloud is not: a new process finds the servers.
    let second = start(config, std::future::pending()).await.unwrap();
    let base = format!("http://{}", second.addr);
    // Two passes over the project, the start-up one and the next full resync (what the
    // 2 seconds this waited for used to cover): a lost cloud would have got new servers.
    eventually(Duration::from_secs(15), "two reconcile passes", || async {
        let n = reconcile_passes(&base).await;
        if n >= 2 {
            Ok(())
        } else {
            Err(format!("{n} passes"))
        }
    })
    .await;
    assert_eq!(
        servers(base.clone()).await,
        before,
        "the same servers, none added"
    );
    let k = wait_for(
        &http,
        &format!("{base}/api/v1/clusters/again"),
        &alice,
        "the kluster as before",
        |_, v| v["status"]["nodePools"][0]["healthy"] == 2,
    )
    .await;
    assert_eq!(k["status"]["phase"], "Running");
    let _ = std::fs::remove_dir_all(dir);
}
