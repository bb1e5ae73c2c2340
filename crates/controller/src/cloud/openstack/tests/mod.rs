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

fn spec(name: &str) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        kluster: "k1".into(),
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
    // Without Cinder and Octavia there are no volumes or load balancers to list.
    stand
        .state()
        .services
        .retain(|s| !matches!(*s, "volumev3" | "load-balancer"));
    let resources = cloud(&stand).resources("p1", &[]).await.unwrap();
    assert!(resources.iter().all(|r| r.kind == ResourceKind::Route));
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
async fn a_token_near_its_expiry_is_renewed_with_the_same_scope() {
    let stand = Stand::start().await;
    stand.state().lifetime = time::Duration::milliseconds(400);
    let c = cloud(&stand);
    c.quota("p1").await.unwrap();
    // Calls go on until the session is renewed (at half the token's 400 ms life); the
    // stand never expires tokens, so only the renewal time can make a second sign-in.
    testkit::eventually(Duration::from_secs(5), "a second sign-in", || async {
        c.quota("p1").await.unwrap();
        stand.state().sign_ins.len() >= 2
    })
    .await;
    let s = stand.state();
    assert_eq!(s.sign_ins.len(), 2, "renewed before the token expired");
    assert!(s.sign_ins.iter().all(|v| v["project"]["id"] == "p1"));
}

#[tokio::test]
async fn a_failed_renewal_keeps_the_valid_token_until_it_expires() {
    let stand = Stand::start().await;
    stand.state().lifetime = time::Duration::seconds(3);
    let c = cloud(&stand);
    c.quota("p1").await.unwrap();
    let down = json!({ "error": { "code": 503, "message": "Keystone is down" } });
    stand.state().fail = vec![("auth/tokens".into(), 503, down); 100];
    // Past the renewal time (half the life) every call still works with the old token.
    let started = std::time::Instant::now();
    testkit::eventually(Duration::from_secs(5), "a failed renewal", || async {
        c.quota("p1").await.expect("the token is still valid");
        stand.state().fail.len() < 100
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(3));
    // Once it has expired, the failure is the call's.
    let e = testkit::eventually(
        Duration::from_secs(6),
        "the expired token's end",
        || async { c.quota("p1").await.err() },
    )
    .await;
    assert!(e.message.contains("Signing in as"), "{e}");
    let tries = 100 - stand.state().fail.len();
    assert!(
        tries < 20,
        "renewal tried again now and then, not at every call: {tries}"
    );
}

#[tokio::test]
async fn a_401_twice_is_an_error_not_a_loop() {
    let stand = Stand::start().await;
    let body = json!({ "error": { "code": 401, "message": "nope" } });
    stand.state().fail = vec![
        ("os-quota-sets".into(), 401, body.clone()),
        ("os-quota-sets".into(), 401, body),
    ];
    let e = cloud(&stand).quota("p1").await.unwrap_err();
    assert!(e.message.contains("HTTP 401"), "{e}");
    assert_eq!(stand.state().sign_ins.len(), 2);
}

#[tokio::test]
async fn gets_are_retried_on_5xx_but_creates_are_not() {
    let stand = Stand::start().await;
    let unavailable = json!({ "message": "Service Unavailable" });
    stand.state().fail = vec![
        ("servers/detail".into(), 503, unavailable.clone()),
        ("servers/detail".into(), 502, unavailable.clone()),
    ];
    let c = cloud(&stand);
    assert_eq!(c.servers("p1").await.unwrap().len(), 2);
    stand.state().fail = vec![("servers/detail".into(), 503, unavailable.clone()); 3];
    let e = c.servers("p1").await.unwrap_err();
    assert!(e.message.contains("HTTP 503"), "{e}");
    let placement = Placement {
        network_id: Some("net1".into()),
        security_group: None,
    };
    stand.state().fail = vec![("/compute/v2.1/servers".into(), 500, unavailable)];
    let before = stand.seen("/compute/v2.1/servers").len();
    let e = c
        .create_server_with("p1", &spec("kks-k1-a-xxxxx"), &placement)
        .await
        .unwrap_err();
    assert!(e.message.contains("HTTP 500"), "{e}");
    let posts = stand.seen("/compute/v2.1/servers");
    assert_eq!(posts.len() - before, 1, "a failed create is not sent again");
}

#[tokio::test]
async fn rate_limits_are_waited_out_for_every_method() {
    let stand = Stand::start().await;
    let limited = |after: Option<&str>| {
        let mut body = json!({ "overLimit": { "code": 429, "message": "Rate limit exceeded" } });
        if let Some(a) = after {
            body["retryAfter"] = json!(a);
        }
        body
    };
    let c = cloud(&stand);
    let placement = Placement {
        network_id: Some("net1".into()),
        security_group: None,
    };
    // A create answered 429 with Retry-After: 1 is sent again after that second.
    stand.state().fail = vec![("/compute/v2.1/servers".into(), 429, limited(Some("1")))];
    let before = stand.seen("/compute/v2.1/servers").len();
    let t = std::time::Instant::now();
    c.create_server_with("p1", &spec("kks-k1-a-yyyyy"), &placement)
        .await
        .expect("created on the second try");
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(stand.seen("/compute/v2.1/servers").len() - before, 2);
    // A delete answered 429 without Retry-After, then 503 with it: sent a third time.
    stand.state().fail = vec![
        ("/servers/s1".into(), 429, limited(None)),
        (
            "/servers/s1".into(),
            503,
            json!({ "message": "busy", "retryAfter": "0" }),
        ),
    ];
    c.delete_server("p1", "s1")
        .await
        .expect("deleted on the third try");
    assert!(stand.state().fail.is_empty(), "both limits were met");
    // Past its tries, the cloud's words come back.
    stand.state().fail = vec![("os-quota-sets".into(), 429, limited(Some("0"))); 6];
    let e = c.quota("p1").await.unwrap_err();
    assert!(e.message.contains("Rate limit exceeded"), "{e}");
}

#[tokio::test]
async fn novas_microversion_is_negotiated_once_with_a_floor() {
    let stand = Stand::start().await;
    stand.state().nova_version = "2.60";
    let c = cloud(&stand);
    c.servers("p1").await.unwrap();
    c.quota("p1").await.unwrap();
    c.servers("p2").await.unwrap();
    let (asked, sent) = {
        let s = stand.state();
        let asked = s.seen.iter().filter(|x| x.path == "/compute/v2.1/").count();
        let sent: Vec<_> = s
            .seen
            .iter()
            .filter(|x| x.path.starts_with("/compute/v2.1/") && x.path != "/compute/v2.1/")
            .map(|x| {
                let h = x.headers.get("openstack-api-version");
                h.and_then(|v| v.to_str().ok()).map(String::from)
            })
            .collect();
        (asked, sent)
    };
    assert_eq!(asked, 1, "the version document is read once");
    assert!(!sent.is_empty());
    assert!(
        sent.iter().all(|h| h.as_deref() == Some("compute 2.60")),
        "{sent:?}"
    );
    let old = Stand::start().await;
    old.state().nova_version = "2.38";
    let e = cloud(&old).servers("p1").await.unwrap_err();
    assert!(e.message.contains("needs 2.52 or newer"), "{e}");
}

#[test]
fn retry_after_is_read_in_seconds_and_only_limits_are_resent_for_every_method() {
    use super::retries::{again, retry_after, Again};
    assert_eq!(retry_after(Some("2")), Some(Duration::from_secs(2)));
    assert_eq!(retry_after(Some(" 0.5 ")), Some(Duration::from_millis(500)));
    assert_eq!(retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
    assert_eq!(retry_after(Some("-1")), None);
    assert_eq!(retry_after(None), None);
    let r = |status, after: Option<u64>| Some((status, after.map(Duration::from_secs)));
    let limited = Some(Again::Limited(Some(Duration::from_secs(3))));
    assert_eq!(again(r(429, Some(3)), false), limited);
    assert_eq!(again(r(503, Some(3)), false), limited);
    assert_eq!(again(r(429, None), false), Some(Again::Limited(None)));
    assert_eq!(
        again(r(503, None), false),
        None,
        "a POST may have been processed"
    );
    assert_eq!(again(r(503, None), true), Some(Again::Failed));
    assert_eq!(again(r(500, None), false), None);
    assert_eq!(again(r(404, None), true), None);
    assert_eq!(again(None, false), None);
    assert_eq!(again(None, true), Some(Again::Failed));
}

#[tokio::test]
async fn a_get_that_cannot_connect_is_tried_again_then_names_the_service() {
    let stand = Stand::start().await;
    stand.state().dead.push("network");
    let started = std::time::Instant::now();
    let e = cloud(&stand).metadata("p1").await.unwrap_err();
    assert!(e.message.starts_with("Neutron could not be reached"), "{e}");
    assert!(
        !e.message.contains("SECRET") && !e.message.contains("127.0.0.1:9"),
        "{e}"
    );
    // Three tries with 1 ms and 2 ms pauses: bounded, and quick on a refused connection.
    assert!(started.elapsed() < Duration::from_secs(4));
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

mod cloud_tests;
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
