//! The OpenStack provider against a stand-in OpenStack on loopback ([`stand`]): catalog,
//! sign-in and scope, retries, errors, and every `Cloud` method's mapping.

mod stand;
mod stand_services;
mod stand_state;

use std::time::Duration;

use serde_json::json;

use super::catalog::{Catalog, Service};
use super::resources::{load_balancer_kluster, volume_kluster, ResourceId};
use super::*;
use crate::cloud::{ResourceKind, ServerStatus};
use stand::{Stand, PASSWORD};

fn config(stand: &Stand) -> OpenStackConfig {
    let mut c = OpenStackConfig::new(
        stand.auth_url(),
        "kubernikus",
        PASSWORD,
        "Default",
        "service",
    );
    c.region = "RegionOne".into();
    c.timeout = Duration::from_secs(5);
    c.retry_backoff = Duration::from_millis(1);
    c
}

fn cloud(stand: &Stand) -> OpenStackCloud {
    OpenStackCloud::new(config(stand)).unwrap()
}

/// The uid of kluster k1 in these tests.
const UID: &str = "0b6f6a52-1c3e-4d6a-9f00-1234567890ab";

fn spec(name: &str) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        kluster: "k1".into(),
        uid: UID.into(),
        flavor: "m1.large".into(),
        image: "flatcar-stable-amd64".into(),
        availability_zone: "az-a".into(),
        ..Default::default()
    }
}

fn catalog() -> Catalog {
    serde_json::from_value(json!({ "catalog": [
        { "type": "compute", "endpoints": [
            { "interface": "public", "region_id": "RegionOne", "url": "https://nova.one/v2.1" },
            { "interface": "internal", "region_id": "RegionOne", "url": "http://nova.one.internal:8774/v2.1/p1" },
            { "interface": "public", "region_id": "RegionTwo", "url": "https://nova.two/v2.1" } ] },
        { "type": "network", "endpoints": [
            { "interface": "public", "region": "RegionOne", "url": "https://neutron.one:9696" } ] },
        { "type": "block-storage", "endpoints": [
            { "interface": "public", "region_id": "RegionOne", "url": "https://cinder.one/v3/p1" } ] }
    ]}))
    .unwrap()
}

#[test]
fn the_catalog_gives_the_endpoint_of_the_region_and_interface() {
    let c = catalog();
    let url = |s, r, i| c.endpoint(s, r, i).map(|u| u.to_string());
    let compute = Service::Compute;
    assert_eq!(
        url(compute, "RegionOne", Interface::Public).unwrap(),
        "https://nova.one/v2.1/"
    );
    assert_eq!(
        url(compute, "RegionOne", Interface::Internal).unwrap(),
        "http://nova.one.internal:8774/v2.1/p1/"
    );
    assert_eq!(
        url(compute, "RegionTwo", Interface::Public).unwrap(),
        "https://nova.two/v2.1/"
    );
    // Unversioned URLs get the API version; `region` (older Keystones) counts too.
    let network = url(Service::Network, "RegionOne", Interface::Public).unwrap();
    assert_eq!(network, "https://neutron.one:9696/v2.0/");
    // The volume service under its newer type name.
    let volume = url(Service::Volume, "RegionOne", Interface::Public).unwrap();
    assert_eq!(volume, "https://cinder.one/v3/p1/");
}

#[test]
fn a_missing_service_is_named_with_the_region() {
    let c = catalog();
    let e = c
        .endpoint(Service::LoadBalancer, "RegionOne", Interface::Public)
        .unwrap_err();
    assert!(e.message.contains("load-balancer"), "{e}");
    assert!(e.message.contains("RegionOne"), "{e}");
    let e = c
        .endpoint(Service::Image, "RegionOne", Interface::Public)
        .unwrap_err();
    assert!(e.message.contains("service type image"), "{e}");
    // Nova is in RegionTwo but not on its internal interface there.
    let e = c
        .endpoint(Service::Compute, "RegionTwo", Interface::Internal)
        .unwrap_err();
    assert!(
        e.message.contains("internal") && e.message.contains("RegionTwo"),
        "{e}"
    );
    let e = c
        .endpoint(Service::Network, "RegionTwo", Interface::Public)
        .unwrap_err();
    assert!(e.message.contains("service type network") && e.message.contains("RegionTwo"));
}

#[tokio::test]
async fn calls_go_to_the_configured_region_and_interface() {
    let stand = Stand::start().await;
    let mut c = config(&stand);
    c.interface = Interface::Internal;
    OpenStackCloud::new(c).unwrap().servers("p1").await.unwrap();
    let mut c = config(&stand);
    c.region = "RegionTwo".into();
    // The stand-in serves RegionTwo only at its /r2 prefix (and not Nova's answers there).
    let _ = OpenStackCloud::new(c).unwrap().quota("p1").await;
    let vias: Vec<String> = stand
        .seen("/compute/")
        .iter()
        .map(|s| s.via.clone())
        .collect();
    assert!(vias.iter().take(2).all(|v| v == "/internal"), "{vias:?}");
    assert_eq!(vias.last().map(String::as_str), Some("/r2"));
}

#[tokio::test]
async fn a_missing_service_fails_the_call_naming_it() {
    let stand = Stand::start().await;
    stand.state().services.retain(|s| *s != "image");
    let e = cloud(&stand).images("p1").await.unwrap_err();
    assert!(e.message.contains("service type image"), "{e}");
    assert!(e.message.contains("RegionOne"), "{e}");
    // Without Cinder and Octavia there are no volumes or load balancers to list (Neutron's
    // routes, addresses and groups remain).
    stand
        .state()
        .services
        .retain(|s| !matches!(*s, "volumev3" | "load-balancer"));
    let resources = cloud(&stand).resources("p1", &[]).await.unwrap();
    use ResourceKind::{FloatingIp, Route, SecurityGroup};
    let neutron = |k: ResourceKind| matches!(k, Route | FloatingIp | SecurityGroup);
    assert!(resources.iter().all(|r| neutron(r.kind)), "{resources:?}");
}

#[tokio::test]
async fn each_project_gets_a_token_scoped_to_it() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    c.servers("p1").await.unwrap();
    c.servers("p2").await.unwrap();
    c.servers("p1").await.unwrap();
    let s = stand.state();
    let scopes: Vec<&str> = s
        .sign_ins
        .iter()
        .map(|v| v["project"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(scopes, ["p1", "p2"]);
    let tokens: Vec<&str> = s
        .seen
        .iter()
        .filter(|c| c.path.ends_with("servers/detail"))
        .map(|c| c.token.split('|').nth(1).unwrap())
        .collect();
    assert!(tokens.len() >= 3);
    assert!(tokens.iter().all(|t| *t == "p1" || *t == "p2"));
}

#[tokio::test]
async fn a_401_signs_in_again_with_the_same_project_scope() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    c.quota("p1").await.unwrap();
    // Keystone revokes every token (or the token expired early): Nova answers 401.
    stand.state().valid.clear();
    let q = c.quota("p1").await.unwrap();
    assert_eq!(q.instances.used, 3);
    let s = stand.state();
    assert_eq!(s.sign_ins.len(), 2);
    for scope in &s.sign_ins {
        // The scope is the project by id, every time (gophercloud once dropped it).
        assert_eq!(scope, &json!({ "project": { "id": "p1" } }));
    }
    let quota_calls: Vec<_> = s
        .seen
        .iter()
        .filter(|c| c.path.contains("os-quota-sets"))
        .collect();
    assert_eq!(quota_calls.len(), 3);
    assert_ne!(quota_calls[1].token, quota_calls[2].token);
    assert!(quota_calls[2].token.contains("|p1|"));
}

#[tokio::test]
async fn verify_signs_in_to_the_service_project_and_checks_the_catalog() {
    let stand = Stand::start().await;
    cloud(&stand).verify().await.unwrap();
    let scope = stand.state().sign_ins[0].clone();
    let by_name = json!({ "project": { "name": "service", "domain": { "name": "Default" } } });
    assert_eq!(scope, by_name);
    stand.state().services.retain(|s| *s != "network");
    let e = cloud(&stand).verify().await.unwrap_err();
    assert!(
        e.message
            .contains("service type network in region RegionOne"),
        "{e}"
    );
}

#[tokio::test]
async fn an_unreachable_keystone_is_a_clear_error() {
    let mut c = OpenStackConfig::new("http://127.0.0.1:9/v3", "u", PASSWORD, "Default", "s");
    c.timeout = Duration::from_secs(2);
    let e = OpenStackCloud::new(c)
        .unwrap()
        .servers("p1")
        .await
        .unwrap_err();
    assert!(
        e.message
            .contains("Signing in as u (domain Default) to project p1 failed"),
        "{e}"
    );
    assert!(!e.message.contains(PASSWORD));
}

mod bad_answer_tests;
mod changes_tests;
mod cloud_tests;
mod create_tests;
mod retry_tests;
mod route_tests;

#[test]
fn kluster_attribution_follows_the_integrations_conventions() {
    let meta = |k: &str, v: &str| [(k.to_string(), v.to_string())].into_iter().collect();
    assert_eq!(
        volume_kluster(&meta("cinder.csi.openstack.org/cluster", "k1")),
        Some("k1".into())
    );
    assert_eq!(volume_kluster(&meta("kluster", "k2")), Some("k2".into()));
    assert_eq!(volume_kluster(&meta("other", "k2")), None);
    assert_eq!(
        load_balancer_kluster("kube_service_k1_default_web", None),
        Some("k1".into())
    );
    // The simulator's name for a kluster's load balancer reads the same way.
    assert_eq!(
        load_balancer_kluster("kube_service_demo_ingress", None),
        Some("demo".into())
    );
    let described = Some("Kubernetes external service a/b from cluster k3");
    assert_eq!(load_balancer_kluster("", described), Some("k3".into()));
    assert_eq!(load_balancer_kluster("kube_service_", Some("mine")), None);
    for id in [
        ResourceId::Volume("v1".into()),
        ResourceId::LoadBalancer("lb1".into()),
        ResourceId::Route {
            router: "r1".into(),
            destination: "198.18.0.0/24".into(),
            nexthop: "10.180.0.11".into(),
        },
    ] {
        assert_eq!(ResourceId::parse(&id.encode()), Some(id));
    }
    assert_eq!(ResourceId::parse("res-123"), None);
}

#[test]
fn nova_statuses_map_onto_the_controllers() {
    use super::compute::status_of;
    assert_eq!(status_of("BUILD", Some("scheduling")), ServerStatus::Build);
    assert_eq!(status_of("ACTIVE", None), ServerStatus::Active);
    assert_eq!(status_of("ERROR", None), ServerStatus::Error);
    assert_eq!(
        status_of("ACTIVE", Some("deleting")),
        ServerStatus::Deleting
    );
    assert_eq!(status_of("ERROR", Some("deleting")), ServerStatus::Deleting);
    assert_eq!(status_of("DELETED", None), ServerStatus::Deleting);
    assert_eq!(status_of("SOFT_DELETED", None), ServerStatus::Deleting);
    for stopped in [
        "SHUTOFF",
        "SUSPENDED",
        "PAUSED",
        "SHELVED",
        "SHELVED_OFFLOADED",
    ] {
        assert_eq!(status_of(stopped, None), ServerStatus::Stopped, "{stopped}");
    }
    assert_eq!(
        status_of("SHUTOFF", Some("powering-on")),
        ServerStatus::Active
    );
    assert_eq!(
        status_of("SHUTOFF", Some("powering-off")),
        ServerStatus::Stopped
    );
    assert_eq!(status_of("HARD_REBOOT", None), ServerStatus::Active);
    assert_eq!(status_of("RESIZE", None), ServerStatus::Active);
}

#[tokio::test]
async fn the_same_listing_asked_at_once_is_sent_once() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    c.servers("p1").await.unwrap(); // signed in; the stand's list has two pages
    let pages = || stand.seen("servers/detail").len();
    let before = pages();
    assert_eq!(before, 2);
    let (a, b) = tokio::join!(c.servers("p1"), c.servers("p1"));
    let ids = |v: Vec<Server>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(a.unwrap()), ids(b.unwrap()));
    assert_eq!(
        pages() - before,
        2,
        "two askers at once: each page asked once"
    );
    c.servers("p1").await.unwrap();
    assert_eq!(pages() - before, 4, "a later asker asks anew");
}
