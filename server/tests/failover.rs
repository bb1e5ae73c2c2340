//! Failure tests with real processes: PostgreSQL, two controller replicas, two dashboard
//! replicas and nginx in front (`deploy/nginx/mission-control.conf`), killed with SIGKILL:
//! the reconciling controller dies mid-creation, a dashboard dies under streaming browsers,
//! PostgreSQL restarts. Each prints its failover figures.

mod common;

use std::time::{Duration, Instant};

use common::cluster::{self, Postgres, Proc};
use common::user_token;
use reqwest::header;

/// A browser through the proxy: signs in as alice and keeps its cookie.
async fn signed_in(front: &str) -> reqwest::Client {
    let c = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = c
        .post(format!("{front}/api/login"))
        .header("sec-fetch-site", "same-origin")
        .header(header::ACCEPT, "application/json")
        .form(&[
            ("user_name", "alice"),
            ("password", "alice-secret"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "sign-in through nginx");
    c
}

/// Creates kluster `name` (pools of `size` m1.small nodes) through the controller front.
async fn create(ctl: &str, token: &str, name: &str, size: u32) -> u16 {
    let body = format!(
        r#"{{"name":"{name}","spec":{{"nodePools":[{{"name":"p","size":{size},"flavor":"m1.small","availabilityZone":"az-a"}}]}}}}"#
    );
    match reqwest::Client::new()
        .post(format!("{ctl}/api/v1/clusters"))
        .header("x-auth-token", token)
        .body(body)
        .timeout(Duration::from_secs(5))
        .send()
        .await
    {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}

async fn get_json(url: &str, token: &str) -> serde_json::Value {
    reqwest::Client::new()
        .get(url)
        .header("x-auth-token", token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The pid in the reconcile lease's holder name (`host-<pid>-<random>`).
async fn lease_holder_pid(db: &str) -> Option<u32> {
    let pool = sqlx::PgPool::connect(db).await.ok()?;
    let holder: String = sqlx::query_scalar("SELECT holder FROM leases WHERE name = 'reconcile'")
        .fetch_optional(&pool)
        .await
        .ok()??;
    holder.rsplit('-').nth(1)?.parse().ok()
}

#[tokio::test]
async fn the_reconciling_controller_dies_mid_creation_and_the_other_finishes_the_kluster() {
    let pg = Postgres::start("reconcile");
    let (db, dir) = (pg.url(), cluster::scratch("reconcile"));
    let key = dir.join("ca.key");
    let mut ctls: Vec<Proc> = (1..=2)
        .map(|i| cluster::controller(&format!("controller-{i}"), &dir, &db, &key, 2.0))
        .collect();
    for c in &ctls {
        cluster::wait_ok(&format!("http://{}/readyz", c.addr), 30, Some(c)).await;
    }
    let token = user_token("alice", "demo").await;
    let token = token.expose();
    let leader_pid = {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(pid) = lease_holder_pid(&db).await {
                break pid;
            }
            assert!(Instant::now() < deadline, "nobody took the reconcile lease");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let leader = ctls
        .iter()
        .position(|c| c.pid() == leader_pid)
        .expect("the holder is ours");
    let survivor = ctls[1 - leader].addr.clone();
    assert_eq!(
        create(&format!("http://{survivor}"), token, "phoenix", 3).await,
        201
    );
    // Kill the reconciling replica once it has started creating the nodes.
    let events = format!("http://{survivor}/api/v1/events?kluster=phoenix");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let e = get_json(&events, token).await.to_string();
        if e.contains("SuccessfulCreateNode") || e.contains("\"Running\"") {
            break;
        }
        assert!(Instant::now() < deadline, "creation never started: {e}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let killed = Instant::now();
    ctls[leader].kill9();
    // The survivor takes the lease over and finishes: Running, 3 of 3, exactly 3 servers.
    let new_leader = loop {
        match lease_holder_pid(&db).await {
            Some(pid) if pid == ctls[1 - leader].pid() => break killed.elapsed(),
            _ => {}
        }
        assert!(killed.elapsed() < Duration::from_secs(15), "no takeover");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let kluster = format!("http://{survivor}/api/v1/clusters/phoenix");
    loop {
        let k = get_json(&kluster, token).await;
        let pool = &k["status"]["nodePools"][0];
        if k["status"]["phase"] == "Running" && pool["running"] == 3 && pool["healthy"] == 3 {
            break;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "not finished: {k}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let debris: Vec<String> = serde_json::from_value(
        get_json(
            &format!("http://{survivor}/api/v1/simulator/debris/phoenix"),
            token,
        )
        .await,
    )
    .unwrap();
    let servers = debris.iter().filter(|d| d.starts_with("server ")).count();
    assert_eq!(
        servers, 3,
        "exactly the pool's servers, no duplicates: {debris:?}"
    );
    println!(
        "failover: lease taken over {:.2} s after kill -9 (lease 2 s); kluster Running with 3/3 nodes {:.2} s after",
        new_leader.as_secs_f64(),
        killed.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Reads SSE frames; `(event, id)` pairs of `kluster-event`s go to `seen`.
async fn read_events(r: &mut reqwest::Response, buf: &mut String, seen: &mut Vec<i64>) -> bool {
    match tokio::time::timeout(Duration::from_millis(300), r.chunk()).await {
        Err(_) => true,
        Ok(Ok(Some(c))) => {
            buf.push_str(&String::from_utf8_lossy(&c));
            while let Some(end) = buf.find("\n\n") {
                let frame: String = buf.drain(..end + 2).collect();
                if frame.contains("event: kluster-event") {
                    if let Some(id) = frame.lines().find_map(|l| l.strip_prefix("id: ")) {
                        seen.push(id.trim().parse().unwrap());
                    }
                }
            }
            true
        }
        _ => false, // the stream ended (its replica died)
    }
}

async fn open_stream(
    c: &reqwest::Client,
    front: &str,
    last: Option<i64>,
) -> Option<reqwest::Response> {
    let mut req = c
        .get(format!("{front}/events/stream"))
        .header("accept", "text/event-stream");
    if let Some(l) = last {
        req = req.header("last-event-id", l.to_string());
    }
    let r = req.send().await.ok()?;
    (r.status() == 200).then_some(r)
}

#[tokio::test]
async fn a_dashboard_dies_under_streaming_browsers_and_they_resume_on_the_other_exactly_once() {
    let pg = Postgres::start("stream");
    let (db, dir) = (pg.url(), cluster::scratch("stream"));
    let ctl = cluster::controller("controller-1", &dir, &db, &dir.join("ca.key"), 2.0);
    cluster::wait_ok(&format!("http://{}/readyz", ctl.addr), 30, Some(&ctl)).await;
    let ctl_url = format!("http://{}", ctl.addr);
    // The dashboards' public origin is the proxy's; ports are chosen before nginx starts.
    let front_port = cluster::free_port();
    let origin = format!("http://127.0.0.1:{front_port}");
    let key = dir.join("session.key");
    let mut dash: Vec<Proc> = (1..=2)
        .map(|i| {
            cluster::dashboard(
                &format!("dashboard-{i}"),
                &dir,
                &db,
                &key,
                &ctl_url,
                &origin,
            )
        })
        .collect();
    for d in &dash {
        cluster::wait_ok(&format!("http://{}/readyz", d.addr), 30, Some(d)).await;
    }
    let (_nginx, front, _) = cluster::nginx_on(front_port, &dir, &[&dash[0], &dash[1]], &[&ctl]);
    cluster::wait_ok(&format!("{front}/healthz"), 10, None).await;
    let token = user_token("alice", "demo").await;
    let token = token.expose();
    let browsers = [
        signed_in(&front).await,
        signed_in(&front).await,
        signed_in(&front).await,
    ];
    let mut streams = Vec::new();
    for b in &browsers {
        streams.push((
            open_stream(b, &front, Some(0)).await.expect("stream opens"),
            String::new(),
            Vec::new(),
        ));
    }
    let start = get_json(&format!("{ctl_url}/api/v1/events?last=1"), token).await;
    let from = start[0]["seq"].as_i64().unwrap_or(0);
    // Changes keep coming while a dashboard dies; each browser reconnects through nginx.
    let mut killed = None;
    let mut gaps = Vec::new();
    for round in 0..16 {
        assert_eq!(create(&ctl_url, token, &format!("s{round}"), 0).await, 201);
        if round == 5 {
            dash[0].kill9();
            killed = Some(Instant::now());
        }
        for (i, (r, buf, seen)) in streams.iter_mut().enumerate() {
            if !read_events(r, buf, seen).await {
                let lost = Instant::now();
                let mut next = None;
                while next.is_none() && lost.elapsed() < Duration::from_secs(15) {
                    next =
                        open_stream(&browsers[i], &front, seen.last().copied().or(Some(0))).await;
                }
                gaps.push(lost.elapsed());
                *r = next.expect("a browser reconnects through nginx with its session");
                buf.clear();
            }
        }
    }
    // Every kluster reaches Running (its events are the last), then the controller's own
    // record is the truth each browser is compared with.
    let events_url = format!("{ctl_url}/api/v1/events?after={from}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let truth: Vec<i64> = loop {
        let list = get_json(&events_url, token).await;
        let list = list.as_array().cloned().unwrap_or_default();
        let running = list.iter().filter(|e| e["reason"] == "Running").count();
        if running >= 16 {
            break list.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
        }
        assert!(
            Instant::now() < deadline,
            "klusters did not all run: {running} of 16"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        truth.len() >= 32,
        "Creating and Running per kluster: {}",
        truth.len()
    );
    for (r, buf, seen) in streams.iter_mut() {
        let deadline = Instant::now() + Duration::from_secs(15);
        while seen.iter().filter(|s| **s > from).count() < truth.len() && Instant::now() < deadline
        {
            read_events(r, buf, seen).await;
        }
    }
    for (i, (_, _, seen)) in streams.iter().enumerate() {
        let got: Vec<i64> = seen.iter().copied().filter(|s| *s > from).collect();
        assert_eq!(
            got, truth,
            "browser {i}: every event exactly once, in order"
        );
    }
    assert!(killed.is_some());
    println!(
        "dashboard failover: {} browsers, {} reconnections, longest gap {:.2} s; events lost or doubled: 0 of {}",
        browsers.len(),
        gaps.len(),
        gaps.iter().max().copied().unwrap_or_default().as_secs_f64(),
        truth.len()
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn postgresql_restarts_and_both_tiers_recover_without_losing_acknowledged_writes() {
    let pg = Postgres::start("restart");
    let (db, dir) = (pg.url(), cluster::scratch("restart"));
    let ctl = cluster::controller("controller-1", &dir, &db, &dir.join("ca.key"), 2.0);
    let ctl_url = format!("http://{}", ctl.addr);
    let dash = cluster::dashboard(
        "dashboard-1",
        &dir,
        &db,
        &dir.join("session.key"),
        &ctl_url,
        "http://mc.test",
    );
    for p in [&ctl, &dash] {
        cluster::wait_ok(&format!("http://{}/readyz", p.addr), 30, Some(p)).await;
    }
    let token = user_token("alice", "demo").await;
    let token = token.expose();
    let mut acknowledged = Vec::new();
    for i in 0..3 {
        let name = format!("before{i}");
        assert_eq!(create(&ctl_url, token, &name, 0).await, 201);
        acknowledged.push(name);
    }
    let down = Instant::now();
    pg.stop();
    // Readiness goes red on both tiers; writes meanwhile are refused, not acknowledged.
    for p in [&ctl, &dash] {
        let deadline = Instant::now() + Duration::from_secs(20);
        while cluster::status_of(&format!("http://{}/readyz", p.addr)).await != 503 {
            assert!(
                Instant::now() < deadline,
                "{} stays ready without its database",
                p.name
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for i in 0..3 {
        let name = format!("during{i}");
        if create(&ctl_url, token, &name, 0).await == 201 {
            acknowledged.push(name);
        }
    }
    pg.restart();
    for p in [&ctl, &dash] {
        cluster::wait_ok(&format!("http://{}/readyz", p.addr), 30, Some(p)).await;
    }
    let recovered = down.elapsed();
    assert_eq!(create(&ctl_url, token, "after", 0).await, 201);
    acknowledged.push("after".into());
    let listed = get_json(&format!("{ctl_url}/api/v1/clusters"), token).await;
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|k| k["name"].as_str())
        .collect();
    for a in &acknowledged {
        assert!(
            names.contains(&a.as_str()),
            "acknowledged {a} was lost: {names:?}"
        );
    }
    // Sign-in works again through the dashboard (sessions live in PostgreSQL).
    let c = reqwest::Client::new();
    let r = c
        .post(format!("http://{}/api/login", dash.addr))
        .header("origin", "http://mc.test")
        .header(header::ACCEPT, "application/json")
        .form(&[
            ("user_name", "alice"),
            ("password", "alice-secret"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", dash.tail());
    println!("PostgreSQL restart: both tiers ready again {:.2} s after it went down; {} acknowledged writes, 0 lost", recovered.as_secs_f64(), acknowledged.len());
    let _ = std::fs::remove_dir_all(dir);
}
