//! Benchmark: reconcile passes over 1,000 klusters (100 projects × 10, two nodes each) in a
//! real SQLite store and the simulated cloud on a manual clock. Prints the time of each
//! kind of pass: the first (Pending → Creating), the one that creates 2,000 servers, the one
//! that records them healthy, and steady-state passes with nothing to do (p50 and max).
//! Baseline in the same run: the pass's own read of every kluster from the store
//! (`list_all`, the direct call), and the steady pass's ratio to it.
//!
//! Run: `cargo bench -p controller --bench reconcile_pass` (no Keystone needed);
//! `RECONCILE_CONCURRENCY=n` reconciles n projects at once (default 8).

use std::sync::Arc;
use std::time::{Duration, Instant};

use controller::cloud::sim::{Clock, Limits, SimCloud, SimConfig};
use controller::reconcile::ground::Timing;
use controller::reconcile::Reconciler;
use controller::store::{CaRecord, Store, StoredKluster};

const PROJECTS: usize = 100;
const PER_PROJECT: usize = 10;
const STEADY: usize = 10;

#[tokio::main]
async fn main() {
    let dir = std::env::temp_dir().join(format!("mc-bench-reconcile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let store = Store::open(&dir.join("controller.db"))
        .await
        .expect("store");
    let boot = Duration::from_secs(10);
    let sim = SimCloud::new(
        SimConfig {
            boot,
            register: boot,
            teardown: boot,
            limits: Limits {
                instances: 100,
                cores: 1000,
                ram: 1 << 30,
            },
        },
        Clock::manual(),
    );
    let mut rec = Reconciler::new(
        store.clone(),
        Arc::new(sim.clone()),
        Timing {
            create: Duration::ZERO,
            upgrade: Duration::ZERO,
            creation_timeout: Duration::from_secs(3600),
            register_timeout: Duration::from_secs(3600),
            create_retry: Duration::from_secs(1),
            create_retry_cap: Duration::from_secs(4),
        },
        Duration::from_secs(30),
    );
    if let Some(n) = std::env::var("RECONCILE_CONCURRENCY")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        rec.concurrency = n;
    }
    for p in 0..PROJECTS {
        for i in 0..PER_PROJECT {
            let mut k: kluster::Kluster = serde_json::from_value(serde_json::json!({
                "name": format!("k{i}"),
                "spec": {"nodePools": [{"name": "pool", "size": 2, "flavor": "m1.small", "availabilityZone": "az-a"}]}
            }))
            .expect("kluster");
            kluster::defaults::fill(&mut k, "1.32.4");
            let stored = StoredKluster {
                kluster: k,
                creator: "bench/demo".into(),
                termination_protected: false,
            };
            let ca = CaRecord {
                cert_pem: String::new(),
                key_sealed: Vec::new(),
            };
            store
                .insert(&format!("project-{p:03}"), &stored, &ca)
                .await
                .expect("insert");
        }
    }
    let total = PROJECTS * PER_PROJECT;
    let timed = |label: &'static str| {
        let rec = rec.clone();
        async move {
            let t = Instant::now();
            let report = rec.pass().await.expect("pass");
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            println!(
                "{label:<36} {ms:>9.1} ms   (changed {}, servers created {}, deleted {})",
                report.changed, report.created, report.deleted
            );
            ms
        }
    };
    println!(
        "reconcile passes over {total} klusters in {PROJECTS} projects (2 nodes each), {} projects at once",
        rec.concurrency
    );
    timed("pass 1: Pending → Creating").await;
    timed("pass 2: → Running, 2,000 servers").await;
    sim.clock().advance(boot * 3);
    timed("pass 3: nodes registered → status").await;
    let mut steady = Vec::new();
    for _ in 0..STEADY {
        sim.clock().advance(Duration::from_secs(1));
        steady.push(timed("steady pass (nothing to do)").await);
    }
    steady.sort_by(f64::total_cmp);
    println!(
        "steady-state pass over {total} klusters: p50 {:.1} ms, max {:.1} ms",
        steady[steady.len() / 2],
        steady[steady.len() - 1]
    );
    let mut reads = Vec::new();
    for _ in 0..STEADY {
        let t = Instant::now();
        let all = store.list_all().await.expect("list_all");
        assert_eq!(all.len(), total);
        reads.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    reads.sort_by(f64::total_cmp);
    println!(
        "baseline, reading the {total} klusters from the store (list_all): p50 {:.1} ms, max {:.1} ms",
        reads[reads.len() / 2],
        reads[reads.len() - 1]
    );
    println!(
        "ratio (p50): steady pass / its read of the store = {:.2}x",
        steady[steady.len() / 2] / reads[reads.len() / 2]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
