//! The reconcilers when the cloud fails: outages become events and creation times out;
//! a controller killed in the middle of a create and restarted converges without
//! duplicates. Over a real SQLite store and the simulated cloud on a manual clock.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::common::dying::Dying;
use crate::common::world::*;
use controller::cloud::sim::Faults;
use kluster::KlusterPhase;

#[tokio::test]
async fn cloud_outages_are_events_and_creation_times_out() {
    let w = world("outage").await;
    w.up("k", &[("a", 1)]).await;
    w.set_faults(Faults {
        api_timeout: true,
        ..Faults::default()
    })
    .await;
    let mut rec = w.rec.clone();
    rec.timing.creation_timeout = Duration::ZERO;
    w.add(kluster("late", &[("a", 1)])).await;
    rec.pass().await.unwrap();
    let warn = w
        .events("k")
        .await
        .into_iter()
        .find(|e| e.reason == "CloudUnavailable");
    assert!(warn.is_some_and(|e| e.kind == "Warning"));
    let late = w.get("late").await.unwrap();
    assert_eq!(late.status.phase, KlusterPhase::Pending);
    assert!(
        late.status.message.contains("not running after"),
        "{late:?}"
    );
    let timeout = w.events("late").await;
    assert_eq!(timeout[0].reason, "FailedCreate");
    rec.pass().await.unwrap();
    assert_eq!(
        w.events("late")
            .await
            .iter()
            .filter(|e| e.reason == "FailedCreate")
            .count(),
        1,
        "said once"
    );
    // The cloud comes back: the late kluster runs and its message clears.
    w.set_faults(Faults::default()).await;
    w.run(2, BOOT).await;
    let late = w.get("late").await.unwrap();
    assert_eq!(late.status.phase, KlusterPhase::Running);
    assert_eq!(late.status.message, "");
}

#[tokio::test]
async fn killed_in_the_middle_of_a_create_and_restarted_it_converges_without_duplicates() {
    let w = world("restart").await;
    w.add(kluster("k", &[("a", 4)])).await;
    w.pass().await; // Pending → Creating; the next pass creates the servers
    let dying = Arc::new(Dying::new(w.sim.clone(), 2));
    let mut first = reconciler(&w.store, dying);
    first.call_timeout = Duration::from_secs(60);
    // The pass is dropped (the task killed) after the second server was created, before
    // the pool status was written.
    let cut = tokio::time::timeout(Duration::from_millis(300), first.pass()).await;
    assert!(cut.is_err(), "the pass was cut short");
    assert_eq!(w.servers("k").await.len(), 2);
    drop(first);
    // A new process with the same store and the same cloud.
    let second = reconciler(&w.store, Arc::new(w.sim.clone()));
    for _ in 0..4 {
        w.sim.clock().advance(BOOT);
        second.pass().await.unwrap();
    }
    let names: Vec<String> = w.servers("k").await.into_iter().map(|s| s.name).collect();
    assert_eq!(names.len(), 4, "exactly the pool size: {names:?}");
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4);
    let pool = &w.get("k").await.unwrap().status.node_pools[0];
    assert_eq!((pool.running, pool.healthy), (4, 4));
}

#[tokio::test]
async fn past_the_quota_a_pool_stops_after_one_wave_of_creates() {
    let w = world("waves").await;
    w.add(kluster("k", &[("a", 20)])).await; // the project may have 6 servers
    w.pass().await; // Pending → Creating; the next pass creates the servers
    let counting = Arc::new(Dying::new(w.sim.clone(), 1_000));
    let rec = reconciler(&w.store, counting.clone());
    rec.pass().await.unwrap();
    let asked = 1_000 - counting.creates.load(Ordering::SeqCst);
    assert_eq!(w.servers("k").await.len(), 6);
    // One wave of 8 goes out together; once the cloud refused, the other 12 are not sent.
    assert_eq!(asked, 8, "creates sent in the pass");
}
