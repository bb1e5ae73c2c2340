//! Deleting a kluster takes what its workloads left, by the conventions of
//! `cloud/openstack/resources.rs` with the cluster name `<kluster>-<uid>` (`cloud::owner`:
//! volume metadata `cinder.csi.openstack.org/cluster` or `kluster`, load balancers
//! `kube_service_<cluster>_…` or "… from cluster <cluster>", routes into its pod range), and
//! nothing else: not what a kluster whose name it prefixes owns, not the project's own
//! look-alikes, not what carries its bare name. Counted from the real Cinder, Octavia and
//! Neutron. Its nodes go first, so its routes are told by their destination, not by a next
//! hop.

use std::time::Duration;

use serde_json::{json, Value};

use super::project::{Kind, Project, MARK};
use super::{address, body, Fixture};
use crate::common::openstack::until;
use controller::cloud::PodRange;

/// The klusters' pod ranges: in 10.199.0.0/16, where the fixture's sweep looks for routes
/// left behind.
const RANGE_A: &str = "10.199.16.0/20";
const RANGE_B: &str = "10.199.32.0/20";

/// Something the test made: its kind, id and what it is, for messages.
pub(super) type Made = (Kind, String, String);

/// Ids of the volumes and load balancers not being deleted, and the routes' destinations:
/// what is there, from the real APIs.
pub(super) async fn present(p: &Project) -> Vec<String> {
    let mut ids = Vec::new();
    for v in p.volumes().await {
        if v["status"] != "deleting" {
            ids.push(v["id"].as_str().unwrap_or_default().to_string());
        }
    }
    for l in p.load_balancers().await {
        if l["provisioning_status"] != "PENDING_DELETE" {
            ids.push(l["id"].as_str().unwrap_or_default().to_string());
        }
    }
    ids.extend(p.routes().await.into_iter().map(|(d, _)| d));
    ids
}

/// Asserts that each of `made` is there (`there`) or gone, and routes to `destinations`;
/// when not, says what the controller's events and the cloud show.
async fn check(f: &Fixture, made: &[Made], destinations: &[&str], there: bool, when: &str) {
    let now = present(&f.project).await;
    let mut wrong: Vec<String> = made
        .iter()
        .filter(|(_, id, _)| now.contains(id) != there)
        .map(|(_, id, what)| format!("{what} ({id})"))
        .collect();
    wrong.extend(
        destinations
            .iter()
            .filter(|d| now.iter().any(|x| x == *d) != there)
            .map(|d| format!("route to {d}")),
    );
    if wrong.is_empty() {
        return;
    }
    let (_, events) =
        crate::common::call(f.app(), "GET", "/api/v1/events", Some(&f.tok), None).await;
    let events: Vec<String> = events
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| format!("{} {}", e["reason"], e["message"]))
                .collect()
        })
        .unwrap_or_default();
    let listed = f.running.cloud.resources(&f.project.id, &[]).await;
    let servers: Vec<Value> = f
        .project
        .servers()
        .await
        .iter()
        .map(|s| s["addresses"].clone())
        .collect();
    panic!(
        "{when}: {} {wrong:?}; routes {:?}; the controller lists {listed:?}; servers {servers:?}; \
         events {events:#?}",
        if there { "gone" } else { "still there" },
        f.project.routes().await
    );
}

/// Waits until the volumes are available and the load balancers ACTIVE (deletable).
pub(super) async fn settled(p: &Project, made: &[Made]) {
    until(
        Duration::from_secs(120),
        "volumes available, LBs ACTIVE",
        || async {
            let vols = p.volumes().await;
            let lbs = p.load_balancers().await;
            let ok = |list: &[Value], id: &str, key: &str, want: &str| {
                list.iter().any(|x| x["id"] == json!(id) && x[key] == want)
            };
            made.iter()
                .all(|(kind, id, _)| match kind {
                    Kind::Volume => ok(&vols, id, "status", "available"),
                    Kind::LoadBalancer => ok(&lbs, id, "provisioning_status", "ACTIVE"),
                    _ => true,
                })
                .then_some(())
        },
    )
    .await;
}

/// The pod ranges of this test's klusters `a` and `b` (name, uid) on the project's router.
fn ranges(f: &Fixture, a: (&str, &str), b: (&str, &str)) -> Vec<PodRange> {
    [(a, RANGE_A), (b, RANGE_B)]
        .map(|((kluster, uid), cidr)| PodRange {
            kluster: kluster.to_string(),
            uid: uid.to_string(),
            router: f.project.router_id.clone(),
            cidr: cidr.to_string(),
        })
        .to_vec()
}

/// Asserts that the controller's cloud, told the klusters' pod `ranges`, lists exactly
/// `made` and `routes` as kluster `k`'s.
async fn controller_sees(
    f: &Fixture,
    ranges: &[PodRange],
    k: &str,
    made: &[Made],
    routes: &[String],
) {
    let listed = f.running.cloud.resources(&f.project.id, ranges).await;
    let listed = listed.expect("the controller lists the project's resources");
    let mut got: Vec<&str> = listed
        .iter()
        .filter(|r| r.kluster == k && r.uid.is_some())
        .map(|r| r.id.as_str())
        .collect();
    got.sort();
    let mut want: Vec<String> = made
        .iter()
        .map(|(kind, id, _)| match kind {
            Kind::LoadBalancer => format!("loadbalancer:{id}"),
            _ => format!("volume:{id}"),
        })
        .chain(routes.iter().cloned())
        .collect();
    want.sort();
    if got != want {
        let servers: Vec<(Value, Value, Value)> = f
            .project
            .servers()
            .await
            .iter()
            .map(|s| {
                (
                    s["name"].clone(),
                    s["metadata"].clone(),
                    s["addresses"].clone(),
                )
            })
            .collect();
        panic!("{k}'s resources as the controller sees them: {got:?}, not {want:?}; servers: {servers:?}");
    }
}

pub(super) async fn volume(p: &Project, name: String, metadata: Value) -> Made {
    let id = p.volume(&name, metadata.clone()).await;
    (Kind::Volume, id, format!("volume {name} {metadata}"))
}

pub(super) async fn load_balancer(p: &Project, name: String, description: String) -> Made {
    let id = p.load_balancer(&name, &description).await;
    (
        Kind::LoadBalancer,
        id,
        format!("load balancer {name} ({description})"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_kluster_takes_its_debris_and_nothing_that_looks_like_it() {
    let Some(f) = Fixture::new("debris").await else {
        return;
    };
    let p = &f.project;
    // Two klusters, the first's name a prefix of the second's.
    let a = f.name("d");
    let b = format!("{a}0");
    for (name, cidr) in [(&a, RANGE_A), (&b, RANGE_B)] {
        let mut kluster = body(name, 1);
        kluster["spec"]["clusterCIDR"] = json!(cidr);
        f.create_with(kluster).await;
    }
    let sa = f.active(&a, 1, Duration::from_secs(120)).await;
    let sb = f.active(&b, 1, Duration::from_secs(120)).await;
    let (ip_a, ip_b) = (address(&sa[0]), address(&sb[0]));
    let (ip_a, ip_b) = (ip_a.expect("an address"), ip_b.expect("an address"));
    f.lap(&format!("{a} and {b} ACTIVE"));
    let (uid_a, uid_b) = (f.uid(&a).await, f.uid(&b).await);
    let (ca, cb) = (format!("{a}-{uid_a}"), format!("{b}-{uid_b}"));

    // What the klusters' CSI driver and cloud controller manager would have made, handed
    // the cluster names.
    let csi = "cinder.csi.openstack.org/cluster";
    let of_a = vec![
        volume(p, format!("{MARK}-pvc-a"), json!({ csi: ca })).await,
        volume(p, format!("{MARK}-own-a"), json!({ "kluster": ca })).await,
        load_balancer(p, format!("kube_service_{ca}_{MARK}_web"), String::new()).await,
        load_balancer(
            p,
            format!("{MARK}-ingress-a"),
            format!("Kubernetes external service {MARK}/ingress from cluster {ca}"),
        )
        .await,
    ];
    let of_b = vec![
        volume(p, format!("{MARK}-pvc-b"), json!({ csi: cb })).await,
        load_balancer(p, format!("kube_service_{cb}_{MARK}_web"), String::new()).await,
    ];
    // The project's own, named like kluster a's things but not made by it: a's bare
    // name is no mark of a's.
    let (port, appliance) = p.port(&format!("{MARK}-{a}-appliance")).await;
    let old = format!("{a}-old");
    let theirs = vec![
        volume(p, format!("{MARK}-{a}-data"), json!({ "owner": a })).await,
        volume(p, format!("{MARK}-{a}-old"), json!({ "kluster": old })).await,
        volume(p, format!("{MARK}-{a}-bare"), json!({ csi: a })).await,
        load_balancer(p, format!("{MARK}-{a}"), format!("load balancer of {a}")).await,
        load_balancer(p, format!("kube_service_{old}_{MARK}_web"), String::new()).await,
        load_balancer(p, format!("kube_service_{a}_{MARK}_bare"), String::new()).await,
    ];
    // Routes: into a's pod range via its server and into b's via b's (as their cloud
    // controller managers make them); into a's range via an address no node has (one its
    // cloud controller manager left behind); the project's own via its appliance.
    let routes = [
        ("10.199.17.0/24", ip_a.as_str()),
        ("10.199.18.0/24", appliance.as_str()),
        ("10.199.33.0/24", ip_b.as_str()),
        ("10.199.3.0/24", appliance.as_str()),
    ];
    for (destination, nexthop) in routes {
        p.route(true, destination, nexthop).await;
    }
    let all: Vec<Made> = [&of_a[..], &of_b[..], &theirs[..]].concat();
    settled(p, &all).await;
    check(
        &f,
        &all,
        &[
            "10.199.17.0/24",
            "10.199.18.0/24",
            "10.199.33.0/24",
            "10.199.3.0/24",
        ],
        true,
        "made",
    )
    .await;
    // The controller's provider tells them apart the same way.
    let route = |d: &str, via: &str| format!("route:{},{d},{via}", p.router_id);
    let ranges = ranges(&f, (&a, &uid_a), (&b, &uid_b));
    let of_a_routes = [
        route("10.199.17.0/24", &ip_a),
        route("10.199.18.0/24", &appliance),
    ];
    controller_sees(&f, &ranges, &a, &of_a, &of_a_routes).await;
    let of_b_routes = [route("10.199.33.0/24", &ip_b)];
    controller_sees(&f, &ranges, &b, &of_b, &of_b_routes).await;
    f.lap("debris made");

    // a deleted: its volumes, load balancers, route and server gone; the rest there.
    f.delete(&a).await;
    f.lap(&format!("{a} deleted"));
    let a_routes = ["10.199.17.0/24", "10.199.18.0/24"];
    check(&f, &of_a, &a_routes, false, "a deleted").await;
    let rest: Vec<Made> = [&of_b[..], &theirs[..]].concat();
    check(
        &f,
        &rest,
        &["10.199.33.0/24", "10.199.3.0/24"],
        true,
        "a deleted",
    )
    .await;
    let left = f.direct.servers(&b).await;
    assert_eq!(left.len(), 1, "{b}'s server: {left:?}");
    assert_eq!(left[0]["id"], sb[0]["id"]);

    // b deleted: its own go too; the project's stay, for the test to remove.
    f.delete(&b).await;
    f.lap(&format!("{b} deleted"));
    check(&f, &of_b, &["10.199.33.0/24"], false, "b deleted").await;
    check(&f, &theirs, &["10.199.3.0/24"], true, "b deleted").await;
    p.route(false, "10.199.3.0/24", &appliance).await;
    for (kind, id, _) in &theirs {
        p.delete(*kind, id).await;
    }
    p.delete(Kind::Port, &port).await;
}
