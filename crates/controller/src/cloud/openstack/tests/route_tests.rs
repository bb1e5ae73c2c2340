//! Which routes the provider says are a kluster's: by its pod range on the router, or via
//! a kluster server's address (then the servers and the routers' interface networks are
//! asked for); the routers a pass places klusters behind.

use super::cloud;
use super::stand::Stand;
use crate::cloud::{Cloud, PodRange};

fn range(kluster: &str, cidr: &str) -> PodRange {
    PodRange {
        kluster: kluster.into(),
        uid: String::new(),
        router: "r1".into(),
        cidr: cidr.into(),
    }
}

#[tokio::test]
async fn a_route_is_a_klusters_by_its_pod_range_and_addresses_need_the_routers_networks() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    // Router r1 has a route via k1's server (198.18.0.0/24) and one via an address no
    // server has (198.18.9.0/24). Both in pod ranges: no interface networks are needed.
    let ranges = [range("k1", "198.18.0.0/21"), range("k3", "198.18.8.0/21")];
    let listed = c.resources("p1", &ranges).await.unwrap();
    let route = |k: &str| {
        listed
            .iter()
            .find(|r| r.kluster == k && r.id.starts_with("route:"))
            .map(|r| r.id.clone())
    };
    assert_eq!(
        route("k1").as_deref(),
        Some("route:r1,198.18.0.0/24,10.180.0.11")
    );
    assert_eq!(
        route("k3").as_deref(),
        Some("route:r1,198.18.9.0/24,10.180.0.99")
    );
    assert!(
        stand.seen("/ports").is_empty(),
        "no interface networks asked for"
    );
    assert!(
        stand.seen("/servers/detail").is_empty(),
        "no servers asked for: every route is in a pod range"
    );
    // Without ranges, the route via k1's server is told by its address, on one of the
    // router's networks: those are asked for.
    let listed = c.resources("p1", &[]).await.unwrap();
    let routes: Vec<_> = listed
        .iter()
        .filter(|r| r.id.starts_with("route:"))
        .collect();
    assert_eq!(routes.len(), 1, "{routes:?}");
    assert_eq!(routes[0].kluster, "k1");
    assert!(!stand.seen("/ports").is_empty());
    assert!(!stand.seen("/servers/detail").is_empty());
}

#[tokio::test]
async fn the_routers_a_pass_places_klusters_behind_come_from_neutron_alone() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    let routers = c.routers("p1").await.unwrap();
    assert!(!routers.is_empty(), "the stand has a router with a gateway");
    let asked: Vec<String> = stand.state().seen.iter().map(|s| s.path.clone()).collect();
    assert!(
        asked
            .iter()
            .all(|p| !p.contains("/compute/") && !p.contains("/volume")),
        "asked more than Neutron: {asked:?}"
    );
    assert_eq!(routers, c.metadata("p1").await.unwrap().routers);
}
