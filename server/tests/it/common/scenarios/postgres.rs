//! PostgreSQL going away under a controller and a dashboard: stopped and started again, and
//! down while they start.

use std::time::{Duration, Instant};

use super::super::clients::{create, get_json};
use super::super::cluster::{self, Postgres};
use super::super::user_token;
use reqwest::header;

/// What [`postgres_restarts`] measured.
// Its figures are printed by benches/failover.rs; the tests assert on some of them.
#[allow(dead_code)]
#[derive(Debug)]
pub struct Recovered {
    /// PostgreSQL stopped → both tiers ready again (after it was started again): includes
    /// noticing the outage, the writes refused meanwhile and PostgreSQL's own restart.
    pub ready_again: Duration,
    /// PostgreSQL accepting connections again → both tiers ready.
    pub ready_after_start: Duration,
    /// Writes the controller acknowledged (201) before, during and after.
    pub acknowledged: usize,
}

/// A controller and a dashboard on PostgreSQL, which stops and starts again. Asserts that
/// readiness goes red on both, then green, no acknowledged write is lost, and sign-in works.
pub async fn postgres_restarts() -> Recovered {
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
        testkit::eventually(
            Duration::from_secs(20),
            format!("{} not ready without its database", p.name),
            || async { cluster::status_of(&format!("http://{}/readyz", p.addr)).await == 503 },
        )
        .await;
    }
    for i in 0..3 {
        let name = format!("during{i}");
        if create(&ctl_url, token, &name, 0).await == 201 {
            acknowledged.push(name);
        }
    }
    pg.restart();
    let up = Instant::now();
    for p in [&ctl, &dash] {
        cluster::wait_ok(&format!("http://{}/readyz", p.addr), 30, Some(p)).await;
    }
    let (recovered, after_start) = (down.elapsed(), up.elapsed());
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
    let _ = std::fs::remove_dir_all(dir);
    Recovered {
        ready_again: recovered,
        ready_after_start: after_start,
        acknowledged: acknowledged.len(),
    }
}

/// A controller and a dashboard started while PostgreSQL is down: both start, say they are
/// not ready, and become ready by themselves once it is up (no restart). Returns the time
/// from PostgreSQL's start to both being ready.
pub async fn postgres_late_at_start() -> Duration {
    let pg = Postgres::start("late");
    let (db, dir) = (pg.url(), cluster::scratch("late"));
    pg.stop();
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
        testkit::eventually(
            Duration::from_secs(20),
            format!("{} answers", p.name),
            || async {
                match cluster::status_of(&format!("http://{}/readyz", p.addr)).await {
                    503 => Ok(()),
                    200 => panic!("{} is ready without its database", p.name),
                    _ => Err(p.tail()),
                }
            },
        )
        .await;
    }
    let up = Instant::now();
    pg.restart();
    for p in [&ctl, &dash] {
        cluster::wait_ok(&format!("http://{}/readyz", p.addr), 40, Some(p)).await;
    }
    let ready = up.elapsed();
    let waiting = std::fs::read_to_string(&ctl.log).unwrap_or_default();
    assert!(
        waiting.matches("waiting for it").count() == 1,
        "one line when it starts waiting, not one per attempt:\n{}",
        ctl.tail()
    );
    let _ = std::fs::remove_dir_all(dir);
    ready
}
