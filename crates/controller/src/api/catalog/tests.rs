//! Catalog admission tests against the simulated cloud's catalog with a second router.

use super::*;
use crate::cloud::sim::{SimCloud, IMAGES};

fn catalog() -> Catalog {
    let mut meta = SimCloud::catalog("project1");
    // A second router with its own network, so that mismatches can be told apart.
    let mut other = meta.routers[0].clone();
    other.id = "router-2".into();
    other.name = "second".into();
    other.networks[0].id = "net-2".into();
    other.networks[0].subnets[0].id = "subnet-2".into();
    meta.routers.push(other);
    Catalog {
        meta,
        images: IMAGES.iter().map(|i| i.to_string()).collect(),
        routes: Vec::new(),
    }
}

fn request(json: &str) -> Kluster {
    serde_json::from_str(json).unwrap()
}

fn refused(k: &Kluster) -> String {
    let e = check_new(k, &catalog()).unwrap_err();
    assert_eq!(e.status, StatusCode::UNPROCESSABLE_ENTITY);
    e.message
}

#[test]
fn what_the_catalog_has_passes() {
    let k = request(
        r#"{"name":"a","spec":{"openstack":{"routerID":"router-project1","networkID":"net-project1","lbSubnetID":"subnet-project1"},
            "nodePools":[{"name":"p","flavor":"m1.small","availabilityZone":"az-b"},
                         {"name":"q","flavor":"m1.large","availabilityZone":"az-a","image":"ubuntu-24.04-amd64"}]}}"#,
    );
    check_new(&k, &catalog()).unwrap();
}

#[test]
fn unknown_flavors_zones_and_images_name_the_field_and_the_choices() {
    let k = request(
        r#"{"name":"a","spec":{"nodePools":[{"name":"p","flavor":"m1.small","availabilityZone":"az-a"},
            {"name":"q","flavor":"m1.huge","availabilityZone":"az-z","image":"flatcar"}]}}"#,
    );
    let m = refused(&k);
    assert_eq!(
        m,
        "spec.nodePools[1].flavor: \"m1.huge\" is not a flavor of this cloud; choose one of m1.small, m1.medium, m1.large, m1.xlarge; \
         spec.nodePools[1].availabilityZone: \"az-z\" is not an availability zone of this cloud; choose one of az-a, az-b; \
         spec.nodePools[1].image: \"flatcar\" is not an image of this cloud; choose one of flatcar-stable-amd64, ubuntu-24.04-amd64"
    );
}

#[test]
fn routers_networks_and_subnets_must_exist_and_belong_together() {
    let os = |router: &str, network: &str, subnet: &str| {
        request(&format!(
            r#"{{"name":"a","spec":{{"openstack":{{"routerID":"{router}","networkID":"{network}","lbSubnetID":"{subnet}"}}}}}}"#
        ))
    };
    assert_eq!(
        refused(&os("router-x", "", "")),
        "spec.openstack.routerID: \"router-x\" is not a router of this project; choose one of router-project1 (default-router), router-2 (second)"
    );
    assert_eq!(
        refused(&os("router-project1", "net-2", "")),
        "spec.openstack.networkID: \"net-2\" is not a network of router router-project1; choose one of net-project1 (private)"
    );
    assert_eq!(
        refused(&os("", "net-2", "subnet-project1")),
        "spec.openstack.lbSubnetID: \"subnet-project1\" is not a subnet of network net-2; choose one of subnet-2 (private-subnet)"
    );
    assert_eq!(
        refused(&os("router-2", "", "subnet-project1")),
        "spec.openstack.lbSubnetID: \"subnet-project1\" is not a subnet of router router-2's networks; choose one of subnet-2 (private-subnet)"
    );
    // A network of any router is fine when no router is named; the pair must match.
    check_new(&os("", "net-2", "subnet-2"), &catalog()).unwrap();
    check_new(&os("router-2", "net-2", ""), &catalog()).unwrap();
}

#[test]
fn updates_check_only_the_pools_they_add() {
    let mut cur = request(
        r#"{"name":"a","spec":{"nodePools":[{"name":"old","flavor":"gone","availabilityZone":"az-a"}]}}"#,
    );
    let mut next = cur.clone();
    check_update(&cur, &next, &catalog()).unwrap();
    next.spec.node_pools.push(request(r#"{"name":"x","spec":{"nodePools":[{"name":"new","flavor":"m1.tiny","availabilityZone":"az-a"}]}}"#).spec.node_pools.remove(0));
    let e = check_update(&cur, &next, &catalog()).unwrap_err();
    assert!(
        e.message
            .starts_with("spec.nodePools[1].flavor: \"m1.tiny\" is not a flavor"),
        "{}",
        e.message
    );
    cur.spec.node_pools.clear();
    assert!(check_update(&cur, &next, &catalog()).is_err());
}

#[test]
fn the_security_group_and_floating_network_must_exist() {
    let k = request(
        r#"{"name":"a","spec":{"openstack":{"securityGroupName":"nope","lbFloatingNetworkID":"ext-x"}}}"#,
    );
    assert_eq!(
        refused(&k),
        "spec.openstack.securityGroupName: \"nope\" is not a security group of this project; choose one of default, web; \
         spec.openstack.lbFloatingNetworkID: \"ext-x\" is not an external network of this cloud; choose one of net-external (public)"
    );
    let fine = request(
        r#"{"name":"a","spec":{"openstack":{"securityGroupName":"web","lbFloatingNetworkID":"net-external"}}}"#,
    );
    check_new(&fine, &catalog()).unwrap();
    // An update is checked only when it names another group.
    let mut cur = fine.clone();
    cur.spec.openstack.security_group_name = "gone".into();
    assert!(!update_needs_catalog(&cur, &cur));
    check_update(&cur, &cur, &catalog()).unwrap();
    let mut next = cur.clone();
    next.spec.openstack.security_group_name = "nope".into();
    assert!(update_needs_catalog(&cur, &next));
    let e = check_update(&cur, &next, &catalog()).unwrap_err();
    assert!(
        e.message.starts_with("spec.openstack.securityGroupName"),
        "{}",
        e.message
    );
    next.spec.openstack.security_group_name = "web".into();
    check_update(&cur, &next, &catalog()).unwrap();
}
