//! The launch and flight reconcilers' executors over a real SQLite store and the simulated
//! cloud on a manual clock: every pass is called by hand, so each fault is exact and the
//! test is fast. Deorbit is in `reconcile_deorbit.rs`, outages and restarts in
//! `reconcile_faults.rs`.

use std::time::Duration;

use crate::common::world::*;
use controller::cloud::sim::Faults;
use controller::cloud::{Cloud, Server};
use kluster::KlusterPhase;

#[tokio::test]
async fn a_kluster_gets_its_nodes_and_pool_status_follows_them() {
    let w = world("nodes").await;
    w.add(kluster("k", &[("a", 2), ("b", 1)])).await;
    w.pass().await; // Pending → Creating
    w.pass().await; // → Running, servers created
    let k = w.get("k").await.unwrap();
    assert_eq!(k.status.phase, KlusterPhase::Running);
    assert_eq!(
        k.status.node_pools[0].running, 0,
        "booting servers are no running nodes yet"
    );
    assert_eq!(k.status.node_pools[0].healthy, 0);
    let names: Vec<String> = w.servers("k").await.into_iter().map(|s| s.name).collect();
    assert_eq!(names.len(), 3);
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("kks-k-a-") || n.starts_with("kks-k-b-")),
        "{names:?}"
    );
    assert!(names
        .iter()
        .all(|n| n.rsplit('-').next().unwrap().len() == 5));
    w.run(1, BOOT + REGISTER).await;
    let k = w.get("k").await.unwrap();
    assert_eq!(
        (
            k.status.node_pools[0].healthy,
            k.status.node_pools[0].schedulable
        ),
        (2, 2)
    );
    // A cordoned node is healthy but not schedulable.
    w.sim.cordon(P, &names[0], true).await.unwrap();
    w.pass().await;
    let pools = w.get("k").await.unwrap().status.node_pools;
    assert_eq!(
        pools.iter().map(|p| p.schedulable).sum::<i64>(),
        2,
        "{pools:?}"
    );
    let created = w
        .reasons("k")
        .await
        .iter()
        .filter(|r| *r == "SuccessfulCreateNode")
        .count();
    assert_eq!(created, 3);
    // Idle passes change nothing and create nothing.
    w.run(3, BOOT).await;
    assert_eq!(w.servers("k").await.len(), 3);
}

#[tokio::test]
async fn scaling_past_quota_says_which_quota_and_keeps_pool_status_current() {
    let w = world("quota").await;
    w.up("k", &[("a", 2)]).await;
    w.resize("k", 0, 9).await; // the project may have 6 servers
    w.run(3, Duration::from_secs(1)).await;
    assert_eq!(w.servers("k").await.len(), 6);
    let pool = &w.get("k").await.unwrap().status.node_pools[0];
    assert_eq!(pool.running, 2, "the new ones are still booting");
    w.run(1, BOOT).await;
    let failed: Vec<_> = w
        .events("k")
        .await
        .into_iter()
        .filter(|e| e.reason == "FailedCreateNode")
        .collect();
    assert_eq!(failed.len(), 1, "identical failures aggregate: {failed:?}");
    assert_eq!(failed[0].kind, "Warning");
    assert_eq!(
        failed[0].message,
        "Failed to create node: Quota exceeded for instances: Requested 1, but already used 6 of 6 instances. (HTTP 403)"
    );
    assert!(failed[0].count >= 2, "one event, counted: {failed:?}");
    assert_eq!(
        failed[0].detail,
        Some(kluster::EventDetail::QuotaExceeded),
        "typed: advice keys on this, not on the words"
    );
    let pool = &w.get("k").await.unwrap().status.node_pools[0];
    assert_eq!(
        (pool.size, pool.running),
        (9, 6),
        "status written despite the quota"
    );
    // Scaling down removes the unregistered servers first.
    let young: Vec<String> = w
        .servers("k")
        .await
        .into_iter()
        .filter(|s| s.node.is_none())
        .map(|s| s.name)
        .collect();
    assert_eq!(young.len(), 4);
    w.resize("k", 0, 2).await;
    w.pass().await;
    let left: Vec<Server> = w.servers("k").await;
    assert_eq!(left.len(), 2);
    assert!(
        left.iter().all(|s| s.node.is_some()),
        "registered nodes stay"
    );
    assert!(w
        .reasons("k")
        .await
        .contains(&"SuccessfulDeleteNode".to_string()));
}

#[tokio::test]
async fn a_spurious_empty_listing_never_doubles_the_nodes() {
    let w = world("empty").await;
    w.up("k", &[("a", 3)]).await;
    w.set_faults(Faults {
        empty_listings: 1,
        ..Faults::default()
    })
    .await;
    w.pass().await;
    assert_eq!(w.servers("k").await.len(), 3, "no second set of nodes");
    assert_eq!(
        w.sim.project(P).await.unwrap().faults.empty_listings,
        0,
        "the fault fired"
    );
    // Servers that are really gone are replaced after the confirming listing.
    for s in w.servers("k").await {
        w.sim.delete_server(P, &s.id).await.unwrap();
    }
    w.run(1, TEARDOWN).await;
    assert_eq!(w.servers("k").await.len(), 3, "replaced");
}

#[tokio::test]
async fn consecutive_empty_listings_never_add_servers() {
    let w = world("empty3").await;
    w.up("k", &[("a", 3)]).await;
    let before: Vec<String> = w.servers("k").await.into_iter().map(|s| s.id).collect();
    w.set_faults(Faults {
        empty_listings: 3,
        ..Faults::default()
    })
    .await;
    w.run(3, BOOT / 4).await;
    assert_eq!(
        w.sim.project(P).await.unwrap().faults.empty_listings,
        0,
        "three passes met three empty listings"
    );
    // Every server of the project, those being deleted too: the same three, untouched.
    let mut all: Vec<String> = w
        .sim
        .servers(P)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    all.sort();
    let mut before = before;
    before.sort();
    assert_eq!(all, before, "no server created or deleted");
    let reasons = w.reasons("k").await;
    assert!(
        !reasons.contains(&"SuccessfulDeleteNode".to_string()),
        "{reasons:?}"
    );
    let k = w.get("k").await.unwrap();
    assert_eq!(k.status.node_pools[0].running, 3, "the status held too");
}

#[tokio::test]
async fn flight_replaces_errored_and_never_registered_servers() {
    let w = world("flight").await;
    w.set_faults(Faults {
        server_error: true,
        ..Faults::default()
    })
    .await;
    w.add(kluster("k", &[("a", 1)])).await;
    w.pass().await;
    w.pass().await;
    w.set_faults(Faults::default()).await;
    w.run(1, BOOT).await; // ERROR now: flight deletes it and the pool waits (1 s here)
    let events = w.events("k").await;
    let failed: Vec<_> = events
        .iter()
        .filter(|e| e.reason == "FailedCreateNode")
        .collect();
    assert_eq!(failed.len(), 1, "{events:?}");
    assert!(failed[0].message.contains("in ERROR"));
    assert!(w.servers("k").await.is_empty(), "deleted");
    // After the wait a new one is asked for, and comes up.
    testkit::eventually(Duration::from_secs(5), "a new node", || async {
        w.run(1, BOOT + REGISTER).await;
        let live = w.servers("k").await;
        match live.as_slice() {
            [s] if s.node.is_some() => Ok(()),
            _ => Err(format!("{live:?}")),
        }
    })
    .await;

    // A server that never registers is deleted after the registration timeout.
    w.set_faults(Faults {
        no_register: true,
        ..Faults::default()
    })
    .await;
    w.resize("k", 0, 2).await;
    w.pass().await;
    w.set_faults(Faults::default()).await;
    w.run(1, Duration::from_secs(59)).await;
    assert_eq!(w.servers("k").await.len(), 2, "not yet");
    w.run(1, Duration::from_secs(2)).await;
    let msgs: Vec<String> = w.events("k").await.into_iter().map(|e| e.message).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("did not register as a node within 1 minute")),
        "{msgs:?}"
    );
    w.run(3, BOOT + REGISTER).await;
    let live = w.servers("k").await;
    assert_eq!(live.len(), 2);
    assert!(live.iter().all(|s| s.node.is_some()));
}
