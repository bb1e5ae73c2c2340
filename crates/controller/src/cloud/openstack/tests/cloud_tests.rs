//! Every `Cloud` method of the provider against the stand-in: what it asks OpenStack and
//! how the answers map onto the controller's types.

use std::time::Duration;

use serde_json::json;

use super::stand::{Stand, PASSWORD};
use super::{cloud, config};
use crate::cloud::openstack::OpenStackCloud;
use crate::cloud::{Cloud, ResourceKind, ServerStatus};

#[tokio::test]
async fn metadata_maps_nova_neutron_and_cinder_onto_kubernikus_metadata() {
    let stand = Stand::start().await;
    let m = cloud(&stand).metadata("p1").await.unwrap();
    let flavors: Vec<_> = m
        .flavors
        .iter()
        .map(|f| (f.name.as_str(), f.id.as_str(), f.vcpus, f.ram))
        .collect();
    assert_eq!(
        flavors,
        [("m1.small", "f1", 2, 4096), ("m1.large", "f2", 8, 16384)]
    );
    let zones: Vec<_> = m
        .availability_zones
        .iter()
        .map(|z| z.name.as_str())
        .collect();
    assert_eq!(zones, ["az-a"], "unavailable zones are left out");
    assert_eq!(m.key_pairs[0].name, "ops");
    assert_eq!(m.key_pairs[0].public_key, "ssh-ed25519 AAAA ops");
    assert_eq!(
        (
            m.security_groups[0].name.as_str(),
            m.security_groups[0].id.as_str()
        ),
        ("default", "sg1")
    );
    let types: Vec<_> = m.volume_types.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(types, ["standard"], "private volume types are left out");
    // Only the router with an external gateway, with its interfaces' network and subnets.
    assert_eq!(m.routers.len(), 1);
    let r = &m.routers[0];
    assert_eq!(
        (
            r.id.as_str(),
            r.name.as_str(),
            r.external_network_id.as_str()
        ),
        ("r1", "default-router", "ext-net")
    );
    assert_eq!(r.networks.len(), 1);
    let n = &r.networks[0];
    assert_eq!((n.id.as_str(), n.name.as_str()), ("net1", "private"));
    let subnets: Vec<_> = n
        .subnets
        .iter()
        .map(|s| (s.id.as_str(), s.cidr.as_str()))
        .collect();
    assert_eq!(subnets, [("sub1", "10.180.0.0/24")]);
    let external: Vec<_> = m
        .external_networks
        .iter()
        .map(|n| (n.id.as_str(), n.name.as_str()))
        .collect();
    assert_eq!(external, [("ext-net", "public")]);
    let routers = stand.seen("/network/v2.0/routers");
    assert!(routers[0]
        .query
        .contains(&("project_id".into(), "p1".into())));
}

#[tokio::test]
async fn images_are_the_active_names_over_every_page() {
    let stand = Stand::start().await;
    let images = cloud(&stand).images("p1").await.unwrap();
    assert_eq!(images, ["flatcar-stable-amd64", "ubuntu-24.04-amd64"]);
    assert!(
        stand.seen("/image/v2/images").len() >= 3,
        "followed Glance's next links"
    );
}

#[tokio::test]
async fn quota_maps_in_use_and_limit_with_unlimited_as_max() {
    let stand = Stand::start().await;
    let q = cloud(&stand).quota("p1").await.unwrap();
    assert_eq!((q.instances.used, q.instances.limit), (3, 10));
    assert_eq!((q.cores.used, q.cores.limit), (6, i64::MAX));
    assert_eq!((q.ram.used, q.ram.limit), (12288, 51200));
}

#[tokio::test]
async fn a_project_whose_keystone_hangs_holds_up_no_other_project() {
    let stand = Stand::start().await;
    stand.state().hang_project = Some("slow".into());
    let c = cloud(&stand);
    let slow = tokio::spawn({
        let c = c.clone();
        async move { c.servers("slow").await }
    });
    // The slow project's sign-in is in flight (it never answers) while p1 is served.
    testkit::eventually(Duration::from_secs(5), "the slow sign-in sent", || async {
        let hung = stand.state().hung;
        (hung > 0).then_some(())
    })
    .await;
    let servers = c.servers("p1").await.unwrap();
    assert_eq!(servers.len(), 2);
    assert!(
        !slow.is_finished(),
        "p1 was served only after the slow project gave up"
    );
    // The hanging one ends at its own timeout, in words.
    let e = slow.await.unwrap().unwrap_err();
    assert!(
        e.message.contains("did not answer within 5000 ms"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn servers_are_the_klusters_ones_with_mapped_status_and_age() {
    let stand = Stand::start().await;
    let servers = cloud(&stand).servers("p1").await.unwrap();
    let got: Vec<_> = servers
        .iter()
        .map(|s| (s.id.as_str(), s.kluster.as_str(), s.status))
        .collect();
    assert_eq!(
        got,
        [
            ("s1", "k1", ServerStatus::Active),
            ("s2", "k1", ServerStatus::Build)
        ]
    );
    assert!(servers.iter().all(|s| s.node.is_none()));
    assert!(
        servers[0].age >= Duration::from_secs(599) && servers[0].age < Duration::from_secs(700)
    );
    // Two pages; the second asked at the endpoint with the next link's marker.
    let calls = stand.seen("servers/detail");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].query, [("marker".to_string(), "s2".to_string())]);
    assert!(calls
        .iter()
        .all(|c| c.headers["openstack-api-version"] == "compute 2.67"));
}

#[tokio::test]
async fn one_server_is_looked_up_and_a_missing_one_is_none() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    let s = c.server("p1", "s1").await.unwrap().unwrap();
    assert_eq!(
        (s.name.as_str(), s.status),
        ("kks-k1-a-00001", ServerStatus::Active)
    );
    assert_eq!(c.server("p1", "gone").await.unwrap(), None);
    assert_eq!(
        c.server("p1", "s3").await.unwrap(),
        None,
        "not a kluster's server"
    );
}

#[tokio::test]
async fn deleting_a_server_that_is_gone_is_fine() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    c.delete_server("p1", "s1").await.unwrap();
    c.delete_server("p1", "gone").await.unwrap();
    let s = c.server("p1", "s1").await.unwrap().unwrap();
    assert_eq!(s.status, ServerStatus::Deleting);
}

#[tokio::test]
async fn resources_are_the_klusters_volumes_load_balancers_routes_and_addresses() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    let mut got: Vec<_> = c
        .resources("p1", &[])
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.kind, r.kluster, r.name, r.deleting, r.id))
        .collect();
    got.sort();
    let want = [
        (ResourceKind::Volume, "k1", "pv-1f2e", false, "volume:v1"),
        (ResourceKind::Volume, "k2", "v2", true, "volume:v2"),
        (
            ResourceKind::LoadBalancer,
            "k1",
            "kube_service_k1_default_ingress",
            false,
            "loadbalancer:lb1",
        ),
        (
            ResourceKind::LoadBalancer,
            "k2",
            "",
            true,
            "loadbalancer:lb2",
        ),
        (
            ResourceKind::Route,
            "k1",
            "route-kks-k1-a-00001",
            false,
            "route:r1,198.18.0.0/24,10.180.0.11",
        ),
        // The cloud controller manager's address for k1's service (the tenant's is none's).
        (
            ResourceKind::FloatingIp,
            "k1",
            "203.0.113.7",
            false,
            "floatingip:fip1",
        ),
        // Its security group (not the project's default).
        (
            ResourceKind::SecurityGroup,
            "k1",
            "lb-sg-1",
            false,
            "securitygroup:sg2",
        ),
    ];
    let want: Vec<_> = want
        .iter()
        .map(|(k, kl, n, d, id)| (*k, kl.to_string(), n.to_string(), *d, id.to_string()))
        .collect();
    assert_eq!(got, want);
    c.delete_resource("p1", "volume:v1").await.unwrap();
    c.delete_resource("p1", "loadbalancer:lb1").await.unwrap();
    c.delete_resource("p1", "route:r1,198.18.0.0/24,10.180.0.11")
        .await
        .unwrap();
    let lb = stand.seen("/lb/v2/lbaas/loadbalancers/lb1");
    let deleted = lb.iter().find(|c| c.method == reqwest::Method::DELETE);
    assert!(deleted.is_some_and(|c| c.query.contains(&("cascade".into(), "true".into()))));
    c.delete_resource("p1", "floatingip:fip1").await.unwrap();
    let fip = stand.seen("floatingips/fip1");
    assert_eq!(fip[0].method, reqwest::Method::DELETE);
    let vol = stand.seen("/volumes/v1");
    assert!(
        vol[0].query.contains(&("cascade".into(), "true".into())),
        "snapshots go too"
    );
    let put = stand.seen("remove_extraroutes");
    let route = json!({ "router": { "routes": [{ "destination": "198.18.0.0/24", "nexthop": "10.180.0.11" }] } });
    assert_eq!(put[0].body.as_ref(), Some(&route));
    assert!(c.delete_resource("p1", "res-1").await.is_err());
}

#[tokio::test]
async fn secrets_never_show_in_debug_output_or_errors() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    c.servers("p1").await.unwrap();
    let shown = format!("{c:?} {:?}", config(&stand));
    assert!(!shown.contains(PASSWORD), "{shown}");
    assert!(!shown.contains("SECRET"), "{shown}");
    assert!(shown.contains("<redacted>"));
    // A wrong password: the error names the user and the project, not the password.
    let mut wrong = config(&stand);
    wrong.password = "wrong-Pa55word".into();
    let e = OpenStackCloud::new(wrong)
        .unwrap()
        .servers("p1")
        .await
        .unwrap_err();
    assert!(
        e.message.contains("kubernikus") && e.message.contains("p1"),
        "{e}"
    );
    assert!(!e.message.contains("wrong-Pa55word") && !format!("{e:?}").contains("wrong-Pa55word"));
    // Errors of services carry the cloud's words, never the token.
    stand.state().fail = vec![(
        "os-quota-sets".into(),
        400,
        json!({ "badRequest": { "code": 400, "message": "bad" } }),
    )];
    let e = c.quota("p1").await.unwrap_err();
    assert_eq!(e.message, "bad (HTTP 400)");
    assert!(!format!("{e:?}").contains("SECRET"));
}
