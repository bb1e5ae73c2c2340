//! Benchmark: failover with real processes (the failure tests' scenarios, run several
//! times): PostgreSQL, controller and dashboard replicas, nginx in front, SIGKILL. Prints
//! the reconcile takeover time (kill → the other replica holds the lease, and → the kluster
//! is Running with all nodes), the streaming browsers' gap and the events lost or doubled,
//! and the time both tiers take to be ready again after PostgreSQL restarts.
//!
//! Run: `cargo bench -p server --bench failover` with the demo Keystone
//! (`MC_TEST_KEYSTONE_URL`, its demo env sourced for KS_ADMIN_PASSWORD) and the
//! kubernikus-controller binary built (`cargo build -p controller`, same profile).
//! `FAILOVER_RUNS=n` repeats each scenario (default 3).

#[path = "../tests/it/common/mod.rs"]
// The bench uses the failure scenarios only.
#[allow(dead_code, unused_imports)]
mod common;

use std::time::Duration;

fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    let s = |d: Duration| format!("{:.2} s", d.as_secs_f64());
    format!(
        "min {} median {} max {}",
        s(v[0]),
        s(v[v.len() / 2]),
        s(v[v.len() - 1])
    )
}

#[tokio::main]
async fn main() {
    let runs: usize = std::env::var("FAILOVER_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let (mut lease, mut finished) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = common::scenarios::reconciler_dies().await;
        lease.push(t.lease);
        finished.push(t.finished);
    }
    println!("reconciling controller kill -9 (lease 2 s, {runs} runs):");
    println!("  → other replica holds the lease: {}", stats(lease));
    println!(
        "  → 3-node kluster Running, 3/3 healthy, exactly 3 servers: {}",
        stats(finished)
    );
    let (mut gaps, mut lost, mut events) = (Vec::new(), 0, 0);
    for _ in 0..runs {
        let r = common::scenarios::dashboard_dies().await;
        gaps.push(r.longest_gap);
        lost += r.lost_or_doubled;
        events += r.events * r.browsers;
    }
    println!("dashboard kill -9 under 3 streaming browsers ({runs} runs):");
    println!("  longest reconnection gap through nginx: {}", stats(gaps));
    println!("  events lost or doubled: {lost} of {events} delivered");
    let (mut ready, mut after_start) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let r = common::scenarios::postgres_restarts().await;
        ready.push(r.ready_again);
        after_start.push(r.ready_after_start);
    }
    println!("PostgreSQL stop, 3 writes refused meanwhile, start ({runs} runs):");
    println!("  stop → both tiers ready again: {}", stats(ready));
    println!(
        "  PostgreSQL accepting again → both tiers ready: {}",
        stats(after_start)
    );
}
