//! An idle project's look asks the cloud only whether a server changed since its last full
//! listing (`reconcile::listings`), and lists in full when one did: a server deleted behind
//! the controller's back is replaced all the same. While Nova's notifications are heard
//! (`controller::notices`), it asks nothing between full listings.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

use crate::common::dying::Dying;
use crate::common::world::*;
use controller::cloud::{Cloud, ServerStatus};

#[tokio::test]
async fn an_idle_project_asks_what_changed_and_lists_in_full_only_on_a_change() {
    let w = world("changes").await;
    w.up("k", &[("a", 2)]).await;
    let cloud = Arc::new(Dying::new(w.sim.clone(), usize::MAX));
    *cloud.changed.lock().unwrap() = Some(vec![]);
    let rec = reconciler(&w.store, cloud.clone());
    // Nothing listed yet: the first look lists in full.
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), 1);
    assert_eq!(cloud.change_asks.load(SeqCst), 0);
    // Then, nothing changing, only the question.
    rec.pass().await.unwrap();
    rec.pass().await.unwrap();
    assert_eq!(
        cloud.server_listings.load(SeqCst),
        1,
        "listed in full while idle"
    );
    assert_eq!(cloud.change_asks.load(SeqCst), 2);
    assert_eq!(cloud.creates_asked(), 0);
    // A server deleted behind its back, and the cloud says something changed: listed in
    // full, and replaced.
    let servers = w.sim.servers(P).await.unwrap();
    let gone = servers
        .iter()
        .find(|s| s.kluster == "k")
        .expect("a server of k");
    w.sim.delete_server(P, &gone.id).await.unwrap();
    *cloud.changed.lock().unwrap() = Some(vec![gone.id.clone()]);
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), 2);
    assert_eq!(cloud.creates_asked(), 1, "the deleted server replaced");
    // Once its teardown is over, a listing lacks it (a cloud that cannot tell lists in full).
    w.sim.clock().advance(TEARDOWN * 2);
    *cloud.changed.lock().unwrap() = None;
    rec.pass().await.unwrap();
    let listed = cloud.server_listings.load(SeqCst);
    // Nova names the deleted server again (it cleans deleted servers up minutes later):
    // gone from the listings already, it is no change.
    *cloud.changed.lock().unwrap() = Some(vec![gone.id.clone()]);
    rec.pass().await.unwrap();
    assert_eq!(
        cloud.server_listings.load(SeqCst),
        listed,
        "a gone server's change"
    );
    // A server the listing has, or one it never had, is a change.
    let kept = w.sim.servers(P).await.unwrap();
    let kept = kept
        .iter()
        .find(|s| s.kluster == "k")
        .expect("a server of k");
    *cloud.changed.lock().unwrap() = Some(vec![gone.id.clone(), kept.id.clone()]);
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), listed + 1);
    *cloud.changed.lock().unwrap() = Some(vec!["a-stranger".into()]);
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), listed + 2);
    // A cloud that cannot tell is listed in full at every look.
    *cloud.changed.lock().unwrap() = None;
    rec.pass().await.unwrap();
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), listed + 4);
    let now = w.sim.servers(P).await.unwrap();
    let up = now
        .iter()
        .filter(|s| s.kluster == "k" && s.status != ServerStatus::Deleting);
    assert_eq!(up.count(), 2);
}

#[tokio::test]
async fn a_listing_is_not_reused_when_it_lacks_a_recorded_server_or_after_a_create() {
    let w = world("changes-recorded").await;
    w.up("k", &[("a", 1)]).await;
    let cloud = Arc::new(Dying::new(w.sim.clone(), usize::MAX));
    *cloud.changed.lock().unwrap() = Some(vec![]);
    let rec = reconciler(&w.store, cloud.clone());
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), 1);
    // The store knows a server the listing lacks (another replica made it): listed in
    // full though the cloud says nothing changed.
    let mut ids: Vec<String> = w
        .sim
        .servers(P)
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    ids.push("made-elsewhere".into());
    w.store
        .record_servers(P, "k", &ids, &Default::default())
        .await
        .unwrap();
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), 2);
    // Scaled up: the server is made from the reused listing, and the pass that made it
    // has the next look list in full.
    w.store
        .modify(P, "k", |k| {
            k.spec.node_pools[0].size = 2;
            Ok::<_, ()>(())
        })
        .await
        .unwrap();
    rec.pass().await.unwrap();
    assert_eq!(
        cloud.server_listings.load(SeqCst),
        2,
        "scaled from the reused listing"
    );
    assert_eq!(cloud.creates_asked(), 1);
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), 3);
}

#[tokio::test]
async fn while_novas_notifications_are_heard_an_idle_project_asks_nothing() {
    let w = world("changes-bus").await;
    w.up("k", &[("a", 1)]).await;
    let cloud = Arc::new(Dying::new(w.sim.clone(), usize::MAX));
    *cloud.changed.lock().unwrap() = Some(vec![]);
    let rec = reconciler(&w.store, cloud.clone());
    rec.notices.connected_now();
    rec.notices.heard(None);
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), 1);
    rec.pass().await.unwrap();
    rec.pass().await.unwrap();
    assert_eq!(cloud.server_listings.load(SeqCst), 1, "the listing reused");
    assert_eq!(
        cloud.change_asks.load(SeqCst),
        0,
        "nothing asked while heard"
    );
    // The bus breaks: the question is asked again, and once more when it is back (it may
    // have missed a change); the cloud's "nothing changed" then makes the listing current,
    // and the bus is trusted from there.
    rec.notices.disconnected();
    rec.pass().await.unwrap();
    assert_eq!(cloud.change_asks.load(SeqCst), 1);
    rec.notices.connected_now();
    rec.notices.heard(None);
    rec.pass().await.unwrap();
    assert_eq!(cloud.change_asks.load(SeqCst), 2);
    rec.pass().await.unwrap();
    assert_eq!(
        cloud.change_asks.load(SeqCst),
        2,
        "trusted after the answer"
    );
    assert_eq!(cloud.server_listings.load(SeqCst), 1);
}
