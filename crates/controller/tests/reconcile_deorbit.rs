//! The deorbit reconciler over a real SQLite store and the simulated cloud on a manual
//! clock: deleting a kluster removes every resource it had and nothing of another's.

mod common;

use common::world::*;
use controller::cloud::Cloud;
use kluster::KlusterPhase;

#[tokio::test]
async fn deleting_a_kluster_leaves_no_debris() {
    let w = world("deorbit").await;
    w.up("k", &[("a", 2)]).await;
    w.up("other", &[("a", 1)]).await;
    let mut kinds: Vec<String> = w
        .sim
        .resources(P)
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.kluster == "k")
        .map(|r| format!("{:?}", r.kind))
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["LoadBalancer", "Route", "Route", "Volume"]);
    w.store
        .modify(P, "k", |k| {
            k.status.phase = KlusterPhase::Terminating;
            Ok::<_, ()>(())
        })
        .await
        .unwrap();
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
    assert!(pos("WaitingForDeorbitVolumes") < pos("SuccessfulDeorbitVolumes"));
    assert!(pos("WaitingForDeorbitLoadBalancers") < pos("SuccessfulDeorbitLoadBalancers"));
    assert!(pos("SuccessfulDeorbitRoutes") < pos("WaitingForDeorbitNodes"));
    assert!(pos("WaitingForDeorbitNodes") < pos("SuccessfulDeorbit"));
}
