//! Servers the cloud cannot place or that stop: Nova's reason on the timeline, a pool that
//! waits longer after each failure instead of asking again at once, a node announced only
//! once it is up, and stopped servers started once, then replaced where the pool allows.
//! The world's timing: a pool waits 1 s after its first failure, doubling up to 4 s.

use std::time::Duration;

use controller::cloud::sim::{Faults, NO_VALID_HOST};
use controller::cloud::ServerStatus;
use kluster::{EventDetail, NodePoolConfig};
use tokio::time::Instant;

use crate::common::world::{kluster, world, World, BOOT, P, REGISTER};

/// The kluster's events with `reason`.
async fn with_reason(w: &World, k: &str, reason: &str) -> Vec<kluster::Event> {
    let mut all = w.events(k).await;
    all.retain(|e| e.reason == reason);
    all
}

#[tokio::test]
async fn an_unplaceable_pool_waits_longer_each_time_and_says_why() {
    let w = world("capacity").await;
    w.set_faults(Faults {
        server_error: true,
        ..Faults::default()
    })
    .await;
    w.add(kluster("k", &[("a", 1)])).await;
    // For 6 s of wall time, passes as fast as they go, each half a boot time later on the
    // simulated clock: a pass sees each server asked for booting, the next one in ERROR.
    let until = Instant::now() + Duration::from_secs(6);
    let mut passes = 0;
    while Instant::now() < until {
        w.run(1, BOOT / 2).await;
        passes += 1;
    }
    let asked = with_reason(&w, "k", "CreatingNode").await.len();
    // Waits of 1, 2 and 4 s after the failures: at most 4 servers in 6 s (without the
    // wait, one every other pass; with a wait that forgot its failures while a server
    // booted, one a second).
    assert!(
        (2..=4).contains(&asked),
        "{asked} servers asked for in {passes} passes"
    );
    assert!(passes > 20, "the passes ran freely: {passes}");
    let failed = with_reason(&w, "k", "FailedCreateNode").await;
    assert_eq!(failed.len(), 1, "repeats fold into one entry: {failed:?}");
    let f = &failed[0];
    assert!(f.count >= 2, "{f:?}");
    assert_eq!(f.detail, Some(EventDetail::NoValidHost));
    assert!(
        f.message.contains(NO_VALID_HOST),
        "Nova's words: {}",
        f.message
    );
    assert!(
        f.message
            .contains("No host in zone az-a can place flavor m1.small: pick another flavor or zone, or ask your cloud admin"),
        "{}",
        f.message
    );
    assert!(
        with_reason(&w, "k", "SuccessfulCreateNode")
            .await
            .is_empty(),
        "no server came up, so none is announced"
    );
    let k = w.get("k").await.unwrap();
    let pool = &k.status.node_pools[0];
    assert_eq!(pool.running, 0, "nothing ran: {pool:?}");
    let retry = pool.create_retry.as_ref().expect("the pool says it waits");
    assert_eq!(retry.failures as usize, asked.min(f.count as usize));
    assert!(retry.reason.contains(NO_VALID_HOST), "{retry:?}");

    // Room again: the next try (within the cap) succeeds, the node is announced once it
    // is up, and the wait is over.
    w.set_faults(Faults::default()).await;
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        w.run(1, BOOT + REGISTER).await;
        let done = !with_reason(&w, "k", "SuccessfulCreateNode")
            .await
            .is_empty();
        if done {
            break;
        }
        assert!(Instant::now() < until, "no node came up after the wait");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pool = w.get("k").await.unwrap().status.node_pools[0].clone();
    assert_eq!((pool.running, pool.create_retry), (1, None));
    assert_eq!(w.servers("k").await.len(), 1);
}

#[tokio::test]
async fn a_node_is_announced_when_it_is_up_not_when_it_is_asked_for() {
    let w = world("announce").await;
    w.add(kluster("k", &[("a", 2)])).await;
    w.run(2, Duration::from_millis(10)).await;
    assert_eq!(w.servers("k").await.len(), 2);
    assert_eq!(with_reason(&w, "k", "CreatingNode").await.len(), 2);
    assert!(with_reason(&w, "k", "SuccessfulCreateNode")
        .await
        .is_empty());
    assert_eq!(w.get("k").await.unwrap().status.node_pools[0].running, 0);
    w.run(1, BOOT).await;
    let up = with_reason(&w, "k", "SuccessfulCreateNode").await;
    assert_eq!(up.len(), 2, "{up:?}");
    assert_eq!(w.get("k").await.unwrap().status.node_pools[0].running, 2);
    w.run(3, BOOT).await;
    let up = with_reason(&w, "k", "SuccessfulCreateNode").await;
    assert!(up.iter().all(|e| e.count == 1), "announced once: {up:?}");
}

#[tokio::test]
async fn a_stopped_node_is_started_once_then_replaced() {
    let w = world("stopped").await;
    w.up("k", &[("a", 2)]).await;
    let victim = w.servers("k").await[0].clone();
    assert!(w.sim.stop(P, &victim.name).await.unwrap());
    w.pass().await;
    let started = with_reason(&w, "k", "StoppedNode").await;
    assert_eq!(started.len(), 1, "{started:?}");
    assert!(started[0].message.contains("it was started"), "{started:?}");
    let again = w.servers("k").await;
    let s = again.iter().find(|s| s.id == victim.id).unwrap();
    assert_eq!(s.status, ServerStatus::Active, "started");
    // It stops again: replaced (the pool allows replacement by default).
    assert!(w.sim.stop(P, &victim.name).await.unwrap());
    w.run(2, Duration::from_millis(10)).await;
    let now = w.servers("k").await;
    assert!(
        now.iter().all(|s| s.id != victim.id),
        "the stopped one went"
    );
    assert_eq!(now.len(), 2, "and a new one came: {now:?}");
    let replaced = with_reason(&w, "k", "DeletedBrokenNode").await;
    assert!(
        replaced[0].message.contains("stopped again"),
        "{replaced:?}"
    );
}

#[tokio::test]
async fn a_pool_that_forbids_replacement_keeps_its_stopped_node_and_says_so() {
    let w = world("stopped-held").await;
    let mut k = kluster("k", &[("a", 1)]);
    k.spec.node_pools[0].config = Some(NodePoolConfig {
        allow_reboot: Some(true),
        allow_replace: Some(false),
    });
    w.add(k).await;
    w.run(6, BOOT / 2).await;
    let s = w.servers("k").await[0].clone();
    for _ in 0..2 {
        assert!(w.sim.stop(P, &s.name).await.unwrap());
        w.pass().await;
    }
    let left = w.servers("k").await;
    assert_eq!(left.len(), 1);
    assert_eq!(
        (left[0].id.as_str(), left[0].status),
        (s.id.as_str(), ServerStatus::Stopped),
        "kept, stopped"
    );
    let said = with_reason(&w, "k", "StoppedNode").await;
    assert!(
        said.iter()
            .any(|e| e.message.contains("does not allow replacing nodes")),
        "{said:?}"
    );
    let pool = &w.get("k").await.unwrap().status.node_pools[0];
    assert_eq!(
        (pool.size, pool.running),
        (1, 0),
        "a stopped node is not running"
    );
}
