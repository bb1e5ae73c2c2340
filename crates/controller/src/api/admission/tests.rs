//! Admission's unit tests: defaults, clashes and their words, routes on the router.

use super::*;

fn request(name: &str, cidr: Option<&str>, router: &str) -> Kluster {
    let mut k = Kluster {
        name: name.into(),
        ..Default::default()
    };
    k.spec.cluster_cidr = cidr.map(String::from);
    k.spec.openstack.router_id = router.into();
    k
}

fn admitted(name: &str, cidr: Option<&str>, others: &[Kluster]) -> Kluster {
    admit(
        request(name, cidr, ""),
        others,
        &ApiSettings::default(),
        "p1",
    )
    .unwrap()
}

fn refused(k: Kluster, others: &[Kluster], settings: &ApiSettings) -> (u16, String) {
    let e = admit(k, others, settings, "p1").unwrap_err();
    (e.status.as_u16(), e.message)
}

/// The refusal's reason and the paths of the fields it names.
fn typed(k: Kluster, others: &[Kluster]) -> (Option<ErrorReason>, Vec<String>) {
    let e = admit(k, others, &ApiSettings::default(), "p1").unwrap_err();
    (e.reason, e.fields.into_iter().map(|f| f.path).collect())
}

#[test]
fn defaults_pending_status_and_the_apiserver_url() {
    let k = admitted("a", None, &[]);
    assert_eq!(k.spec.cluster_cidr.as_deref(), Some("100.100.0.0/16"));
    assert_eq!(k.spec.version, ApiSettings::default().default_version);
    assert_eq!(k.status.phase, KlusterPhase::Pending);
    assert_eq!(
        k.status.apiserver,
        "https://a-p1.kluster.mission-control.local"
    );
}

#[test]
fn default_pod_ranges_skip_the_ones_taken_on_the_router() {
    let a = admitted("a", None, &[]);
    let b = admitted("b", None, std::slice::from_ref(&a));
    assert_eq!(b.spec.cluster_cidr.as_deref(), Some("100.101.0.0/16"));
    let c = admitted("c", None, &[a, b]);
    assert_eq!(c.spec.cluster_cidr.as_deref(), Some("100.102.0.0/16"));
    // On another router the first range is free again.
    let mut elsewhere = admitted("x", None, &[]);
    elsewhere.spec.openstack.router_id = "r2".into();
    let d = admit(
        request("d", None, "r1"),
        &[elsewhere],
        &ApiSettings::default(),
        "p1",
    )
    .unwrap();
    assert_eq!(d.spec.cluster_cidr.as_deref(), Some("100.100.0.0/16"));
}

#[test]
fn a_router_without_a_free_default_range_says_so_and_what_to_do() {
    let settings = ApiSettings::default();
    let mut others = Vec::new();
    for n in DEFAULT_POD_RANGES {
        let k = admit(
            request(&format!("k{n}"), None, "r1"),
            &others,
            &settings,
            "p1",
        );
        others.push(k.unwrap());
    }
    let (status, m) = refused(request("full", None, "r1"), &others, &settings);
    assert_eq!(status, 409);
    assert!(
        m.starts_with("spec.clusterCIDR: no free default pod range is left on router r1: all 28 default ranges (100.100.0.0/16 to 100.127.0.0/16)"),
        "{m}"
    );
    assert!(m.contains("Give this kluster its own pod range"), "{m}");
    assert!(
        !m.contains("overlaps"),
        "no range the user never chose: {m}"
    );
    // An own range still fits; so does another router.
    assert!(admit(
        request("own", Some("10.9.0.0/16"), "r1"),
        &others,
        &settings,
        "p1"
    )
    .is_ok());
    assert!(admit(request("r2", None, "r2"), &others, &settings, "p1").is_ok());
}

#[test]
fn clashes_are_409_and_bad_requests_422_in_words() {
    let settings = ApiSettings::default();
    let a = admitted("a", Some("10.1.0.0/16"), &[]);
    let (status, m) = refused(request("a", None, ""), std::slice::from_ref(&a), &settings);
    assert_eq!(
        (status, m.as_str()),
        (409, "A kluster named \"a\" already exists")
    );
    let (status, m) = refused(request("b", Some("10.1.128.0/17"), ""), &[a], &settings);
    assert_eq!(status, 409);
    assert!(
        m.contains("overlaps the clusterCIDR of kluster \"a\""),
        "{m}"
    );
    let (status, m) = refused(request("b", Some("198.19.1.0/24"), ""), &[], &settings);
    assert_eq!(status, 409);
    assert!(
        m.contains("overlaps the control plane's range 198.19.0.0/16"),
        "{m}"
    );
    let mut old = request("b", None, "");
    old.spec.version = "1.20.0".into();
    let (status, m) = refused(old, &[], &settings);
    assert_eq!(status, 422);
    assert!(
        m.starts_with("spec.version: 1.20.0 is not available"),
        "{m}"
    );
    let (status, m) = refused(request("Bad_Name", None, ""), &[], &settings);
    assert_eq!(status, 422);
    assert!(m.starts_with("name: "), "{m}");
}

#[test]
fn refusals_say_why_and_which_field_in_types() {
    let a = admitted("a", Some("10.1.0.0/16"), &[]);
    let one = std::slice::from_ref(&a);
    let f = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        typed(request("a", None, ""), one),
        (Some(ErrorReason::NameTaken), f(&["name"]))
    );
    assert_eq!(
        typed(request("b", Some("10.1.128.0/17"), ""), one),
        (Some(ErrorReason::CidrOverlap), f(&["spec.clusterCIDR"]))
    );
    let mut service = request("c", None, "");
    service.spec.service_cidr = "198.19.0.0/17".into();
    assert_eq!(
        typed(service, &[]),
        (Some(ErrorReason::CidrOverlap), f(&["spec.serviceCIDR"]))
    );
    let mut old = request("b", None, "");
    old.spec.version = "1.20.0".into();
    assert_eq!(
        typed(old, &[]),
        (Some(ErrorReason::Validation), f(&["spec.version"]))
    );
    let mut bad = request("Bad_Name", None, "");
    bad.spec.node_pools.push(kluster::NodePool {
        name: "p".into(),
        size: 500,
        flavor: "m1.small".into(),
        availability_zone: "az-a".into(),
        ..Default::default()
    });
    assert_eq!(
        typed(bad, &[]),
        (
            Some(ErrorReason::Validation),
            f(&["name", "spec.nodePools[0].size"])
        )
    );
}

#[test]
fn a_route_on_the_router_keeps_its_range_from_pod_ranges() {
    let routes = [RouterRoute {
        router: "r1".into(),
        destination: "100.100.0.0/16".into(),
        nexthop: "10.0.0.250".into(),
    }];
    let settings = ApiSettings::default();
    let place_on = |k: Kluster| {
        let k = prepare(k, &settings).unwrap();
        place(k, &[], &routes, &settings, "p1")
    };
    let k = place_on(request("d", None, "r1")).unwrap();
    assert_eq!(
        k.spec.cluster_cidr.as_deref(),
        Some("100.101.0.0/16"),
        "the next free default"
    );
    let e = place_on(request("own", Some("100.100.8.0/24"), "r1")).unwrap_err();
    assert_eq!(e.status.as_u16(), 409);
    assert!(
        e.message
            .contains("overlaps the route to 100.100.0.0/16 (next hop 10.0.0.250) on router r1"),
        "{}",
        e.message
    );
    assert_eq!(e.reason, Some(ErrorReason::CidrOverlap));
    // Another router's route is no clash.
    let k = place_on(request("r2", Some("100.100.0.0/16"), "r2")).unwrap();
    assert_eq!(k.spec.cluster_cidr.as_deref(), Some("100.100.0.0/16"));
}
