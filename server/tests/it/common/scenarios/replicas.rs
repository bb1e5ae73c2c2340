//! Replicas killed with SIGKILL: a reconciling controller (the other takes over) and a
//! dashboard serving browser streams behind nginx (the browsers resume through the other).

use std::time::{Duration, Instant};

use super::super::clients::{
    create, drain_events, get_json, lease_holder_pid, open_stream, read_events, signed_in,
    sse_parser,
};
use super::super::cluster::{self, Postgres, Proc};
use super::super::user_token;
use testkit::eventually;

/// What [`reconciler_dies`] measured.
// Its figures are printed by benches/failover.rs; the tests assert on some of them.
#[allow(dead_code)]
#[derive(Debug)]
pub struct Takeover {
    /// kill -9 → the other replica holds the reconcile lease.
    pub lease: Duration,
    /// kill -9 → the kluster Running with all its nodes healthy.
    pub finished: Duration,
    /// The kluster's servers in the cloud afterwards (the pool's size: 3).
    pub servers: usize,
}

/// Two controllers on one PostgreSQL; a 3-node kluster is created and the replica that
/// reconciles it is killed with SIGKILL once node creation has started. Asserts that the
/// other replica takes over and finishes it with exactly 3 servers.
pub async fn reconciler_dies() -> Takeover {
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
    let leader_pid = eventually(
        Duration::from_secs(10),
        "somebody took the reconcile lease",
        || lease_holder_pid(&db),
    )
    .await;
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
    let api = kubernikus_client::Client::new(&format!("http://{survivor}")).expect("client");
    let (t, q) = (
        keystone::TokenSecret::new(token),
        kubernikus_client::EventsQuery {
            kluster: Some("phoenix".into()),
            ..Default::default()
        },
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let e = api.project_events(&t, &q).await.expect("the events answer");
        let started = e.iter().any(|e| {
            use kluster::EventReason::{Running, SuccessfulCreateNode};
            matches!(e.event.event_reason(), SuccessfulCreateNode | Running)
        });
        if started {
            break;
        }
        assert!(Instant::now() < deadline, "creation never started: {e:?}");
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
    let finished = killed.elapsed();
    println!(
        "failover: lease taken over {:.2} s after kill -9 (lease 2 s); kluster Running with 3/3 nodes {:.2} s after",
        new_leader.as_secs_f64(),
        finished.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(dir);
    Takeover {
        lease: new_leader,
        finished,
        servers,
    }
}

/// What [`dashboard_dies`] measured.
// Its figures are printed by benches/failover.rs; the tests assert on some of them.
#[allow(dead_code)]
#[derive(Debug)]
pub struct Resumed {
    /// Browsers streaming through nginx.
    pub browsers: usize,
    /// Reconnections after the kill.
    pub reconnections: usize,
    /// Longest time from a stream's end to its reconnection.
    pub longest_gap: Duration,
    /// Events the controller recorded meanwhile.
    pub events: usize,
    /// Events missing or doubled, over all browsers.
    pub lost_or_doubled: usize,
}

/// One controller, two dashboards on one PostgreSQL behind nginx; browsers stream while
/// klusters are created and one dashboard is killed with SIGKILL; they reconnect through
/// nginx with `Last-Event-ID`. Counts what each browser got against the controller's list.
pub async fn dashboard_dies() -> Resumed {
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
            sse_parser(),
            Vec::new(),
        ));
    }
    let start = get_json(&format!("{ctl_url}/api/v1/events?last=1"), token).await;
    let from = start[0]["seq"].as_i64().unwrap_or(0);
    // nginx spreads requests, not streams: the replica to kill is the one serving the most
    // streams (its own live_streams gauge says), so that some browser always loses its own.
    // A stream counts once its body is first polled: wait until all are counted.
    let mut counts = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        counts.clear();
        for d in &dash {
            counts.push(live_streams(&format!("http://{}/metrics", d.addr)).await);
        }
        if counts.iter().sum::<i64>() >= browsers.len() as i64 || Instant::now() > deadline {
            break;
        }
        for (r, buf, seen) in streams.iter_mut() {
            read_events(r, buf, seen).await;
        }
    }
    let victim = usize::from(counts[1] > counts[0]);
    // Changes keep coming while a dashboard dies; each browser reconnects through nginx.
    let mut killed = None;
    let mut gaps = Vec::new();
    for round in 0..16 {
        assert_eq!(create(&ctl_url, token, &format!("s{round}"), 0).await, 201);
        if round == 5 {
            dash[victim].kill9();
            killed = Some(Instant::now());
        }
        // Everything each browser has been sent so far: a backlog read one chunk per round
        // could hide the end of a stream whose replica died.
        for (i, (r, buf, seen)) in streams.iter_mut().enumerate() {
            if !drain_events(r, buf, seen).await {
                let lost = Instant::now();
                let mut next = None;
                while next.is_none() && lost.elapsed() < Duration::from_secs(15) {
                    next =
                        open_stream(&browsers[i], &front, seen.last().copied().or(Some(0))).await;
                }
                gaps.push(lost.elapsed());
                *r = next.expect("a browser reconnects through nginx with its session");
                *buf = sse_parser();
            }
        }
    }
    // Every kluster reaches Running (its events are the last), then the controller's own
    // record is the truth each browser is compared with.
    let events_url = format!("{ctl_url}/api/v1/events?after={from}");
    let truth: Vec<i64> = eventually(Duration::from_secs(30), "every kluster runs", || async {
        let list = get_json(&events_url, token).await;
        let list = list.as_array().cloned().unwrap_or_default();
        let running = list.iter().filter(|e| e["reason"] == "Running").count();
        if running >= 16 {
            Ok(list.iter().map(|e| e["seq"].as_i64().unwrap()).collect())
        } else {
            Err(format!("{running} of 16"))
        }
    })
    .await;
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
    let mut lost_or_doubled = 0;
    for (_, _, seen) in &streams {
        let got: Vec<i64> = seen.iter().copied().filter(|s| *s > from).collect();
        let lost = truth.iter().filter(|t| !got.contains(t)).count();
        // A repeat, or an event after a later one, counts as doubled.
        let doubled = got.windows(2).filter(|w| w[1] <= w[0]).count();
        lost_or_doubled += lost + doubled;
    }
    assert!(
        killed.is_some() && !gaps.is_empty(),
        "a browser was on the killed replica (streams per dashboard: {counts:?})"
    );
    let longest_gap = gaps.iter().max().copied().unwrap_or_default();
    println!(
        "dashboard failover: {} browsers, {} reconnections, longest gap {:.2} s; events lost or doubled: {lost_or_doubled} of {}",
        browsers.len(),
        gaps.len(),
        longest_gap.as_secs_f64(),
        truth.len()
    );
    let _ = std::fs::remove_dir_all(dir);
    Resumed {
        browsers: browsers.len(),
        reconnections: gaps.len(),
        longest_gap,
        events: truth.len(),
        lost_or_doubled,
    }
}

/// The `mc_dashboard_live_streams` gauge of the dashboard whose metrics are at `url`.
async fn live_streams(url: &str) -> i64 {
    let text = reqwest::get(url)
        .await
        .expect("metrics answer")
        .text()
        .await
        .expect("metrics text");
    text.lines()
        .find_map(|l| l.strip_prefix("mc_dashboard_live_streams "))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map_or(0, |v| v as i64)
}
