//! Create-time checks against the cloud's catalog, through the real router (real SQLite,
//! real Keystone, the simulated cloud): a flavor, zone or image the cloud does not have, or
//! a router, network and subnet that do not belong together, are 422 naming the field and
//! the valid choices, and nothing is stored; an update's new pools are checked the same way.

use crate::common::*;
use serde_json::json;

fn pool(flavor: &str, zone: &str, image: Option<&str>) -> serde_json::Value {
    let mut p = json!({"name": "p", "size": 1, "flavor": flavor, "availabilityZone": zone});
    if let Some(i) = image {
        p["image"] = json!(i);
    }
    p
}

#[tokio::test]
async fn flavors_zones_and_images_the_cloud_lacks_are_refused_before_anything_is_stored() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let body =
        |p: serde_json::Value| json!({"name": "cat", "spec": {"nodePools": [p]}}).to_string();
    let (s, e) = create(
        &app,
        &alice,
        body(pool("m1.small", "az-a", Some("flatcar"))),
    )
    .await;
    assert_eq!(s, 422, "{e}");
    assert_eq!(
        e["message"],
        "spec.nodePools[0].image: \"flatcar\" is not an image of this cloud; choose one of flatcar-stable-amd64, ubuntu-24.04-amd64"
    );
    let (s, e) = create(&app, &alice, body(pool("m1.huge", "az-c", None))).await;
    assert_eq!(s, 422, "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(
        m.starts_with("spec.nodePools[0].flavor: \"m1.huge\" is not a flavor of this cloud; choose one of m1.small, m1.medium, m1.large, m1.xlarge; spec.nodePools[0].availabilityZone: \"az-c\""),
        "{m}"
    );
    assert!(m.ends_with("choose one of az-a, az-b"), "{m}");
    let (_, list) = call(&app, "GET", "/api/v1/clusters", Some(&alice), None).await;
    assert_eq!(list, json!([]), "nothing stored");
    assert_eq!(
        create(&app, &alice, body(pool("m1.small", "az-b", None)))
            .await
            .0,
        201
    );
}

#[tokio::test]
async fn a_router_network_and_subnet_must_belong_together() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let (_, meta) = call(
        &app,
        "GET",
        "/api/v1/openstack/metadata",
        Some(&alice),
        None,
    )
    .await;
    let router = meta["routers"][0]["id"].as_str().unwrap().to_string();
    let network = meta["routers"][0]["networks"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let subnet = meta["routers"][0]["networks"][0]["subnets"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let body = |os: serde_json::Value| {
        json!({"name": "net", "spec": {"openstack": os, "nodePools": [pool("m1.small", "az-a", None)]}})
            .to_string()
    };
    let (s, e) = create(&app, &alice, body(json!({"routerID": "router-elsewhere"}))).await;
    assert_eq!(s, 422, "{e}");
    assert_error(&e, 422, "spec.openstack.routerID: \"router-elsewhere\" is not a router of this project; choose one of ");
    assert_error(&e, 422, &router);
    let (s, e) = create(
        &app,
        &alice,
        body(json!({"routerID": router, "networkID": "net-other"})),
    )
    .await;
    assert_eq!(s, 422, "{e}");
    assert_error(&e, 422, &format!("spec.openstack.networkID: \"net-other\" is not a network of router {router}; choose one of {network}"));
    let (s, e) = create(
        &app,
        &alice,
        body(json!({"networkID": network, "lbSubnetID": "subnet-other"})),
    )
    .await;
    assert_eq!(s, 422, "{e}");
    assert_error(&e, 422, &format!("spec.openstack.lbSubnetID: \"subnet-other\" is not a subnet of network {network}; choose one of {subnet}"));
    let fits = json!({"routerID": router, "networkID": network, "lbSubnetID": subnet});
    assert_eq!(create(&app, &alice, body(fits)).await.0, 201);
}

#[tokio::test]
async fn a_pool_an_update_adds_is_checked_too() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let (_, mut k) = create(&app, &alice, kluster("grow", None)).await;
    let mut added = pool("m1.tiny", "az-a", None);
    added["name"] = json!("more");
    k["spec"]["nodePools"].as_array_mut().unwrap().push(added);
    let (s, e) = call(
        &app,
        "PUT",
        "/api/v1/clusters/grow",
        Some(&alice),
        Some(k.to_string()),
    )
    .await;
    assert_eq!(s, 422, "{e}");
    assert_error(
        &e,
        422,
        "spec.nodePools[1].flavor: \"m1.tiny\" is not a flavor of this cloud",
    );
    k["spec"]["nodePools"][1]["flavor"] = json!("m1.medium");
    let (s, k) = call(
        &app,
        "PUT",
        "/api/v1/clusters/grow",
        Some(&alice),
        Some(k.to_string()),
    )
    .await;
    assert_eq!(s, 200, "{k}");
    assert_eq!(k["spec"]["nodePools"][1]["flavor"], "m1.medium");
}

#[tokio::test]
async fn the_security_group_and_floating_network_must_exist_at_create_and_on_update() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let (_, meta) = call(
        &app,
        "GET",
        "/api/v1/openstack/metadata",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(meta["externalNetworks"][0]["id"], "net-external", "{meta}");
    let mut body: serde_json::Value = serde_json::from_str(&kluster("guard", None)).unwrap();
    body["spec"]["openstack"] =
        json!({"securityGroupName": "nope", "lbFloatingNetworkID": "ext-x"});
    let (s, e) = create(&app, &alice, body.to_string()).await;
    assert_eq!(s, 422, "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("spec.openstack.securityGroupName: \"nope\" is not a security group of this project; choose one of default, web")
            && m.contains("spec.openstack.lbFloatingNetworkID: \"ext-x\" is not an external network of this cloud; choose one of net-external (public)"),
        "{m}"
    );
    body["spec"]["openstack"] =
        json!({"securityGroupName": "web", "lbFloatingNetworkID": "net-external"});
    let (s, mut k) = create(&app, &alice, body.to_string()).await;
    assert_eq!(s, 201, "{k}");
    // An update naming a group the project lacks changes nothing.
    k["spec"]["openstack"]["securityGroupName"] = json!("gone");
    let put = |k: &serde_json::Value| {
        call(
            &app,
            "PUT",
            "/api/v1/clusters/guard",
            Some(&alice),
            Some(k.to_string()),
        )
    };
    let (s, e) = put(&k).await;
    assert_error(
        &e,
        422,
        "spec.openstack.securityGroupName: \"gone\" is not a security group of this project",
    );
    assert_eq!(s, 422);
    let (_, now) = call(&app, "GET", "/api/v1/clusters/guard", Some(&alice), None).await;
    assert_eq!(now["spec"]["openstack"]["securityGroupName"], "web");
    k["spec"]["openstack"]["securityGroupName"] = json!("default");
    let (s, k) = put(&k).await;
    assert_eq!(s, 200, "{k}");
    assert_eq!(k["spec"]["openstack"]["securityGroupName"], "default");
}
