//! Whose a volume, load balancer or route is: the whole kluster name, never a prefix, and a
//! route only via a server on one of its router's networks.

use std::collections::HashMap;

use super::{load_balancer_kluster, range_kluster, route_node, volume_kluster, NodeAddress};
use crate::cloud::PodRange;

fn meta(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn look_alike_names_are_not_the_klusters() {
    let csi = "cinder.csi.openstack.org/cluster";
    assert_eq!(
        volume_kluster(&meta(&[(csi, "dbr10")])),
        Some("dbr10".into())
    );
    assert_eq!(
        volume_kluster(&meta(&[("kluster", "dbr1")])),
        Some("dbr1".into())
    );
    // An empty first key does not hide the second.
    let both = meta(&[(csi, ""), ("kluster", "dbr1")]);
    assert_eq!(volume_kluster(&both), Some("dbr1".into()));
    assert_eq!(volume_kluster(&meta(&[("owner", "dbr1")])), None);
    assert_eq!(volume_kluster(&meta(&[("kluster", "")])), None);

    let lb = |name: &str, description: Option<&str>| load_balancer_kluster(name, description);
    assert_eq!(
        lb("kube_service_dbr10_default_web", None),
        Some("dbr10".into())
    );
    assert_eq!(
        lb("kube_service_dbr1-old_ns_web", None),
        Some("dbr1-old".into())
    );
    assert_eq!(lb("dbr1-ingress", Some("load balancer of dbr1")), None);
    assert_eq!(lb("kube-service-dbr1", None), None);
    let described = Some("Kubernetes external service ns/web from cluster dbr10");
    assert_eq!(lb("ingress", described), Some("dbr10".into()));
    assert_eq!(lb("x", Some("from cluster dbr1 (old)")), None);
}

fn node<'a>(kluster: &'a str, network: &'a str, addr: &'a str) -> NodeAddress<'a> {
    NodeAddress {
        kluster,
        uid: None,
        server: "kks-server",
        network,
        addr,
    }
}

#[test]
fn a_route_is_a_klusters_only_via_its_server_on_the_routers_networks() {
    let nodes = [
        node("dbr1", "private", "10.180.0.5"),
        node("dbr10", "private", "10.180.0.6"),
        // The same address on another network, another router's.
        node("dbr10", "lab", "10.180.0.5"),
    ];
    let on = |nexthop: &str, networks: &[&str]| route_node(nexthop, networks, &nodes);
    assert_eq!(
        on("10.180.0.5", &["private"]).map(|n| n.kluster),
        Some("dbr1")
    );
    assert_eq!(on("10.180.0.5", &["lab"]).map(|n| n.kluster), Some("dbr10"));
    assert_eq!(
        on("10.180.0.6", &["private"]).map(|n| n.kluster),
        Some("dbr10")
    );
    // Not via a server on the router's networks, or via no server: nobody's.
    assert_eq!(on("10.180.0.6", &["lab"]), None);
    assert_eq!(on("10.180.0.250", &["private"]), None);
    // The router's networks unknown: any network, unless two klusters have the address.
    assert_eq!(on("10.180.0.6", &[]).map(|n| n.kluster), Some("dbr10"));
    assert_eq!(on("10.180.0.5", &[]), None);
    assert_eq!(on("10.180.0.5", &["private", "lab"]), None);
    // Two addresses of one kluster's servers are still that kluster's.
    let same = [
        node("dbr1", "private", "10.1.0.5"),
        node("dbr1", "lab", "10.1.0.5"),
    ];
    assert_eq!(
        route_node("10.1.0.5", &[], &same).map(|n| n.kluster),
        Some("dbr1")
    );
}

#[test]
fn a_route_into_a_klusters_pod_range_on_its_router_is_the_klusters() {
    let range = |kluster: &str, router: &str, cidr: &str| PodRange {
        kluster: kluster.into(),
        uid: format!("uid-{kluster}"),
        router: router.into(),
        cidr: cidr.into(),
    };
    let ranges = [
        range("k", "r1", "100.100.0.0/16"),
        range("k0", "r1", "100.101.0.0/16"),
        range("unrouted", "", "10.0.0.0/8"),
    ];
    let of =
        |d: &str| range_kluster("r1", d, &ranges).map(|r| (r.kluster.as_str(), r.uid.as_str()));
    assert_eq!(of("100.100.3.0/24"), Some(("k", "uid-k")));
    assert_eq!(of("100.101.0.0/24"), Some(("k0", "uid-k0")));
    // Wider than the range, on another router, outside every range, or not a range.
    assert_eq!(range_kluster("r1", "100.0.0.0/8", &ranges), None);
    assert_eq!(range_kluster("r2", "100.100.3.0/24", &ranges), None);
    assert_eq!(range_kluster("r1", "10.199.1.0/24", &ranges), None);
    assert_eq!(range_kluster("r1", "100.100.3.0", &ranges), None);
    // A kluster whose router is not known yet claims no route.
    assert_eq!(range_kluster("", "10.1.0.0/24", &ranges), None);
    // Two klusters' ranges holding it (admission keeps them apart): no one's.
    let clash = [
        range("k", "r1", "10.0.0.0/16"),
        range("j", "r1", "10.0.0.0/8"),
    ];
    assert_eq!(range_kluster("r1", "10.0.1.0/24", &clash), None);
}
