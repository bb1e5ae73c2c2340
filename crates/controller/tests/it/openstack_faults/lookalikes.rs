//! Ownership by uid (`cloud::owner`), on the real Nova, Octavia and Cinder: what carries a
//! kluster's bare name is not the kluster's. A tenant's server tagged `kluster=<name>` is
//! not deleted by the running kluster (whose launch would take it for a node of a removed
//! pool) nor by its deletion; a load balancer `kube_service_kubernetes_…` of a cloud
//! controller manager left at its default cluster name stays when kluster `kubernetes` is
//! deleted; what an earlier kluster of the same name left stays when the new one is
//! deleted. Each is said once on the kluster's timeline (`NotOwned`); what the kluster's
//! own cluster name marks goes.

use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use super::debris::{load_balancer, present, settled, volume, Made};
use super::project::{Kind, MARK};
use super::Fixture;
use crate::common::openstack::until;

/// The project's events (removed klusters' too) with reason `NotOwned`: their messages.
async fn not_owned(f: &Fixture) -> Vec<String> {
    let (_, events) =
        crate::common::call(f.app(), "GET", "/api/v1/events", Some(&f.tok), None).await;
    let all = events.as_array().cloned().unwrap_or_default();
    all.iter()
        .filter(|e| e["reason"] == "NotOwned")
        .filter_map(|e| e["message"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_carries_a_klusters_bare_name_or_an_earlier_uid_is_left_alone() {
    let Some(f) = Fixture::new("lookalike").await else {
        return;
    };
    let p = &f.project;
    let e = f.name("e");
    let csi = "cinder.csi.openstack.org/cluster";

    // An earlier kluster of the name, deleted: its uid marks what it left.
    f.create(&e, 0).await;
    let earlier = format!("{e}-{}", f.uid(&e).await);
    f.delete(&e).await;
    f.create(&e, 1).await;
    f.create("kubernetes", 0).await;
    let node = f.active(&e, 1, Duration::from_secs(120)).await;
    let own = format!("{e}-{}", f.uid(&e).await);
    f.lap(&format!("{e} made again, ACTIVE; kluster kubernetes made"));

    let tenants = format!("{MARK}-{e}-tenant");
    let server = p.tenant_server(&tenants, &e).await;
    let mine: Vec<Made> = vec![
        load_balancer(p, format!("kube_service_{own}_{MARK}_web"), String::new()).await,
        volume(p, format!("{MARK}-{e}-pv"), serde_json::json!({ csi: own })).await,
    ];
    let strangers: Vec<Made> = vec![
        load_balancer(
            p,
            format!("kube_service_kubernetes_{MARK}_web"),
            String::new(),
        )
        .await,
        load_balancer(
            p,
            format!("kube_service_{earlier}_{MARK}_web"),
            String::new(),
        )
        .await,
        volume(
            p,
            format!("{MARK}-{e}-old-pv"),
            serde_json::json!({ csi: earlier }),
        )
        .await,
    ];
    let all: Vec<Made> = [&mine[..], &strangers[..]].concat();
    settled(p, &all).await;

    // The running kluster sees the tenant's server, says so, and leaves it.
    let said = format!("Server {tenants} carries the name {e} but not this kluster's uid");
    until(
        Duration::from_secs(60),
        "NotOwned for the tenant's server",
        || async {
            let events = f.events(&e).await;
            let told = |v: &Value| {
                v["reason"] == "NotOwned"
                    && v["message"].as_str().is_some_and(|m| m.contains(&said))
            };
            events.iter().any(told).then_some(())
        },
    )
    .await;
    f.lap("the tenant's server said to be left alone");

    f.delete(&e).await;
    f.delete("kubernetes").await;
    f.lap("both deleted");

    // The tenant's server is there and not going.
    let url = format!("{}/servers/{server}", p.compute);
    let (status, v) = p.call(Method::GET, url, &p.user, None).await;
    assert_eq!(status, 200, "the tenant's server: {v}");
    assert_ne!(v["server"]["OS-EXT-STS:task_state"], "deleting", "{v}");
    let kept = node.iter().all(|n| n["id"] != v["server"]["id"]);
    assert!(kept, "the tenant's server is not the kluster's node");
    // The kluster's own went; the strangers stay.
    let now = present(p).await;
    for (_, id, what) in &mine {
        assert!(!now.contains(id), "the kluster's own {what} is gone");
    }
    for (_, id, what) in &strangers {
        assert!(now.contains(id), "{what} stays");
    }
    let told = not_owned(&f).await;
    for want in [
        format!("Load balancer kube_service_kubernetes_{MARK}_web carries the name kubernetes"),
        format!("Load balancer kube_service_{earlier}_{MARK}_web was made for an earlier kluster named {e}"),
        format!("Volume {MARK}-{e}-old-pv was made for an earlier kluster named {e}"),
        said.clone(),
    ] {
        assert!(
            told.iter().any(|m| m.starts_with(&want) || m.contains(&want)),
            "NotOwned says {want:?}: {told:#?}"
        );
    }
    eprintln!(
        "left alone and said so: the tenant's server, kube_service_kubernetes_…, the earlier \
         {e}'s load balancer and volume; {e}'s own load balancer and volume deleted"
    );
    p.delete(Kind::Server, &server).await;
    for (kind, id, _) in &strangers {
        p.delete(*kind, id).await;
    }
}
