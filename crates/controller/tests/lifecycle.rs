//! A kluster's life through the running controller (HTTP on loopback, real SQLite, real
//! Keystone, simulated cloud, 1-second phases): Pending → Creating → Running with its
//! events, an upgrade, and deletion.

mod common;

use std::time::{Duration, Instant};

use common::{kluster, service, token, url};
use controller::pki::SealKey;
use controller::run::{start, ControllerConfig};
use serde_json::{json, Value};

async fn wait_for(
    http: &reqwest::Client,
    url: &str,
    tok: &str,
    what: &str,
    done: impl Fn(u16, &Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = http
            .get(url)
            .header("x-auth-token", tok)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let v: Value = r.json().await.unwrap_or(Value::Null);
        if done(status, &v) {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; last answer {status} {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_kluster_comes_up_upgrades_and_goes_away() {
    let dir = std::env::temp_dir().join(format!("mc-life-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = ControllerConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        keystone_url: url(),
        service: service("mission-control-secret"),
        db_path: dir.join("controller.db"),
        policy_file: None,
        token_cache: Duration::from_secs(60),
        settings: Default::default(),
        ca_key: SealKey([9; 32]),
        timing: controller::reconcile::ground::Timing::scaled(Duration::from_secs(1)),
        reconcile_every: Duration::from_millis(100),
    };
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
    assert_eq!(reasons, ["Creating", "Running"], "{events}");
    assert!(events
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["type"] == "Normal"));

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
