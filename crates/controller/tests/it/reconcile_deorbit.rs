//! The deorbit reconciler over a real SQLite store and the simulated cloud on a manual
//! clock: deleting a kluster removes every resource it had and nothing of another's, its
//! nodes first and its volumes after them; deleted while a pass is going, its nodes go at
//! once, not after that pass.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::time::Duration;

use crate::common::dying::Dying;
use crate::common::world::*;
use controller::cloud::{Cloud, ResourceKind, ServerSpec};
use controller::reconcile::Reconciler;
use kluster::KlusterPhase;
use testkit::eventually;

/// Passes `rec` with the clock moving a teardown before each, until kluster `name` is
/// removed (at most 10 passes); asserts it was.
async fn until_removed(w: &World, rec: &Reconciler, name: &str) {
    for _ in 0..10 {
        if w.get(name).await.is_none() {
            return;
        }
        w.sim.clock().advance(TEARDOWN);
        rec.pass().await.unwrap();
    }
    assert!(w.get(name).await.is_none(), "{name} removed");
}

/// A world with kluster "k" up (2 nodes) and then deleted, and a reconciler over a
/// [`Dying`] cloud (that answers, until told otherwise) counting what it is asked.
async fn deleted_k(tag: &str) -> (World, Arc<Dying>, Reconciler) {
    let w = world(tag).await;
    w.up("k", &[("a", 2)]).await;
    terminate(&w, "k").await;
    let cloud = Arc::new(Dying::new(w.sim.clone(), usize::MAX));
    let rec = reconciler(&w.store, cloud.clone());
    (w, cloud, rec)
}

/// Marks kluster `name` deleted, as the API's DELETE does.
async fn terminate(w: &World, name: &str) {
    w.store
        .modify(P, name, |k| {
            k.status.phase = KlusterPhase::Terminating;
            Ok::<_, ()>(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn deleting_a_kluster_leaves_no_debris() {
    let w = world("deorbit").await;
    w.up("k", &[("a", 2)]).await;
    w.up("other", &[("a", 1)]).await;
    let mut kinds: Vec<String> = w
        .sim
        .resources(P, &[])
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.kluster == "k")
        .map(|r| format!("{:?}", r.kind))
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["LoadBalancer", "Route", "Route", "Volume"]);
    terminate(&w, "k").await;
    for _ in 0..10 {
        if w.get("k").await.is_none() {
            break;
        }
        w.run(1, TEARDOWN).await;
    }
    assert!(w.get("k").await.is_none(), "removed");
    assert_eq!(w.sim.debris(P, "k").await.unwrap(), Vec::<String>::new());
    assert_eq!(
        w.sim.debris(P, "other").await.unwrap().len(),
        4,
        "the other kluster is untouched"
    );
    let reasons = w.reasons("k").await;
    let pos = |r: &str| {
        reasons
            .iter()
            .position(|x| x == r)
            .unwrap_or_else(|| panic!("{r} missing from {reasons:?}"))
    };
    // Nodes, load balancers and routes go together; the volume once the nodes are gone.
    assert!(pos("SuccessfulDeleteNode") < pos("WaitingForDeorbitNodes"));
    assert!(pos("WaitingForDeorbitLoadBalancers") < pos("SuccessfulDeorbitLoadBalancers"));
    assert!(pos("WaitingForDeorbitRoutes") < pos("SuccessfulDeorbitRoutes"));
    assert!(pos("WaitingForDeorbitNodes") < pos("WaitingForDeorbitVolumes"));
    assert!(pos("WaitingForDeorbitVolumes") < pos("SuccessfulDeorbitVolumes"));
    assert!(pos("SuccessfulDeorbitVolumes") < pos("SuccessfulDeorbit"));
}

#[tokio::test]
async fn a_deleted_klusters_known_nodes_go_at_once_even_when_the_listings_hang() {
    let (w, cloud, rec) = deleted_k("deorbit-first").await;
    cloud.blind.store(true, SeqCst);
    // The listings time out; the deletes of the servers the store knows went out anyway.
    rec.pass().await.unwrap();
    assert_eq!(cloud.deletes.load(SeqCst), 2);
    assert!(w.servers("k").await.is_empty(), "both servers are going");
    let reasons = w.reasons("k").await;
    let deleted = reasons
        .iter()
        .filter(|r| *r == "SuccessfulDeleteNode")
        .count();
    assert_eq!(deleted, 2, "{reasons:?}");
    assert!(
        reasons.iter().any(|r| r == "CloudUnavailable"),
        "{reasons:?}"
    );
    // Each is sent once: the next pass sends none again.
    rec.pass().await.unwrap();
    assert_eq!(cloud.deletes.load(SeqCst), 2);
    // The cloud answers again: the rest goes, and the kluster with it.
    cloud.blind.store(false, SeqCst);
    until_removed(&w, &rec, "k").await;
    assert_eq!(w.sim.debris(P, "k").await.unwrap(), Vec::<String>::new());
    assert_eq!(cloud.deletes.load(SeqCst), 2, "no server deleted twice");
}

#[tokio::test]
async fn while_its_nodes_go_a_kluster_does_not_list_the_resources_again() {
    let (w, cloud, rec) = deleted_k("deorbit-quiet").await;
    // The first pass deletes the nodes (each once), and the load balancer and routes with
    // them; the volume waits for the nodes.
    rec.pass().await.unwrap();
    assert_eq!(cloud.listings.load(SeqCst), 1);
    assert_eq!(cloud.deletes.load(SeqCst), 2, "each node deleted once");
    let left = w.sim.resources(P, &[]).await.unwrap();
    let going = |kind| {
        left.iter()
            .any(|r| r.kluster == "k" && r.kind == kind && r.deleting)
    };
    assert!(going(ResourceKind::LoadBalancer) && going(ResourceKind::Route));
    let volume = left
        .iter()
        .find(|r| r.kluster == "k" && r.kind == ResourceKind::Volume);
    assert!(
        volume.is_some_and(|v| !v.deleting),
        "the volume waits: {left:?}"
    );
    // The nodes are going (the clock stands still): passes look at the servers only.
    rec.pass().await.unwrap();
    rec.pass().await.unwrap();
    assert_eq!(
        cloud.listings.load(SeqCst),
        1,
        "no resource listing while nodes go"
    );
    // They are gone: the resources are listed again, and the rest goes.
    until_removed(&w, &rec, "k").await;
    assert!(cloud.listings.load(SeqCst) > 1);
    assert_eq!(w.sim.debris(P, "k").await.unwrap(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kluster_deleted_while_a_pass_lists_has_its_nodes_deleted_before_that_pass_ends() {
    let w = world("deorbit-aside").await;
    w.up("k", &[("a", 2)]).await;
    let cloud = Arc::new(Dying::new(w.sim.clone(), usize::MAX));
    cloud.held.send_replace(true);
    cloud.held_deletes.send_replace(true);
    let rec = reconciler(&w.store, cloud.clone());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(rec.clone().run(Duration::from_millis(40), async {
        let _ = stopped.await;
    }));
    let within = Duration::from_secs(10);
    eventually(within, "a pass listing the servers", || async {
        cloud.waiting.load(SeqCst) > 0
    })
    .await;

    // Deleted while that pass (which saw it Running) still lists: both nodes go now.
    terminate(&w, "k").await;
    eventually(within, "both known nodes deleted", || async {
        cloud.deletes.load(SeqCst) == 2
    })
    .await;
    assert!(cloud.waiting.load(SeqCst) > 0, "the pass is still listing");

    // That pass ends; the next waits for the deletes' answers rather than sending them
    // again (counted as they are sent).
    cloud.held.send_replace(false);
    eventually(within, "the pass that was going ended", || async {
        rec.metrics.render().lines().any(|l| {
            l.starts_with("mc_controller_reconcile_pass_duration_seconds_count")
                && !l.ends_with(" 0")
        })
    })
    .await;
    cloud.held_deletes.send_replace(false);
    eventually(within, "both servers going", || async {
        w.servers("k").await.is_empty()
    })
    .await;

    // The pass listed them going and left k alone (no replacements); the next reports
    // the deletes, once, without sending them again; then k goes.
    eventually(within, "the deletes reported", || async {
        let reasons = w.reasons("k").await;
        let n = reasons
            .iter()
            .filter(|r| *r == "SuccessfulDeleteNode")
            .count();
        (n == 2).then_some(()).ok_or(format!("{reasons:?}"))
    })
    .await;
    // Its volumes go after its nodes: the clock moves a teardown at each look.
    eventually(within, "k removed", || async {
        w.sim.clock().advance(TEARDOWN);
        w.get("k").await.is_none()
    })
    .await;
    let _ = stop.send(());
    running.await.unwrap();
    assert_eq!(
        cloud.creates_asked(),
        0,
        "a pass replaced nodes that were going"
    );
    assert_eq!(cloud.deletes.load(SeqCst), 2, "a node deleted twice");
    assert_eq!(w.sim.debris(P, "k").await.unwrap(), Vec::<String>::new());
    let reasons = w.reasons("k").await;
    let n = reasons
        .iter()
        .filter(|r| *r == "SuccessfulDeleteNode")
        .count();
    assert_eq!(n, 2, "{reasons:?}");
}

#[tokio::test]
async fn while_its_nodes_go_a_kluster_asks_only_for_their_ids_between_full_listings() {
    let (w, cloud, rec) = deleted_k("deorbit-ids").await;
    // The first pass sends the deletes, then asks for the ids alone: the cloud accepted
    // both deletes and lists no other server of k, so both are going.
    rec.pass().await.unwrap();
    assert_eq!(cloud.deletes.load(SeqCst), 2);
    assert_eq!(cloud.server_listings.load(SeqCst), 0, "listed in full");
    assert_eq!(cloud.id_listings.load(SeqCst), 1);
    let reasons = w.reasons("k").await;
    let deleted: Vec<String> = w
        .events("k")
        .await
        .into_iter()
        .filter(|e| e.reason == "SuccessfulDeleteNode")
        .map(|e| e.message)
        .collect();
    assert_eq!(deleted.len(), 2, "{reasons:?}");
    assert!(
        deleted.iter().all(|m| m.contains("node kks-k-a-")),
        "events name the nodes: {deleted:?}"
    );
    // Then, while they go, only their ids (within 5 s of knowing them going).
    rec.pass().await.unwrap();
    rec.pass().await.unwrap();
    assert_eq!(
        cloud.server_listings.load(SeqCst),
        0,
        "listed in full while the nodes go"
    );
    assert_eq!(cloud.id_listings.load(SeqCst), 3);
    let reasons = w.reasons("k").await;
    let waited = reasons.iter().filter(|r| *r == "WaitingForDeorbitNodes");
    assert!(waited.count() >= 1, "{reasons:?}");
    // Gone: the ids say none is left, a full listing confirms it, and the rest follows.
    until_removed(&w, &rec, "k").await;
    assert!(cloud.server_listings.load(SeqCst) > 0);
    assert_eq!(cloud.deletes.load(SeqCst), 2, "a node deleted twice");
    assert_eq!(w.sim.debris(P, "k").await.unwrap(), Vec::<String>::new());
}

#[tokio::test]
async fn a_server_the_store_does_not_know_makes_the_first_pass_list_in_full() {
    let (w, cloud, rec) = deleted_k("deorbit-unknown").await;
    // A server of k whose create answered nothing (so its id was never recorded): it
    // carries k's uid, as everything the controller boots does.
    let stored = w.store.get(P, "k").await.unwrap().unwrap().kluster;
    let spec = ServerSpec {
        name: "k-a-stray".into(),
        kluster: "k".into(),
        uid: stored.metadata.map(|m| m.uid).unwrap_or_default(),
        flavor: "m1.small".into(),
        image: controller::cloud::sim::IMAGES[0].into(),
        availability_zone: "az-a".into(),
        ..Default::default()
    };
    w.sim.create_server(P, &spec).await.unwrap();
    rec.pass().await.unwrap();
    assert_eq!(cloud.id_listings.load(SeqCst), 1);
    assert_eq!(cloud.server_listings.load(SeqCst), 1, "not listed in full");
    assert_eq!(
        cloud.deletes.load(SeqCst),
        3,
        "the stray server not deleted"
    );
    until_removed(&w, &rec, "k").await;
    assert_eq!(w.sim.debris(P, "k").await.unwrap(), Vec::<String>::new());
}
