//! Clean deletion: what the cloud controller manager made for a kluster's service beside
//! the load balancer, and said so in its description ("… from cluster <cluster>", "…
//! Service LoadBalancer in cluster <cluster>", the cluster name `<kluster>-<uid>`), goes with the kluster: the floating IP
//! (left, it stays allocated and billed) and the security group. A tenant's own address
//! and group stay. A volume with a snapshot goes with the snapshot (Cinder refuses it
//! otherwise). Counted from the real Neutron, Octavia and Cinder. The test cloud's Octavia
//! makes no VIP port (noop driver) and takes none (it reads no address from one): the
//! addresses sit on ports the test makes, as they would on the VIP ports.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use super::project::{Kind, Project, MARK};
use super::Fixture;
use crate::common::openstack::until;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_services_addresses_and_groups_and_a_volumes_snapshots_go_with_the_kluster() {
    let Some(f) = Fixture::new("lbaddr").await else {
        return;
    };
    let p = &f.project;
    let name = f.name("lba");
    f.create(&name, 0).await;
    // The cluster name its cloud controller manager and CSI driver are handed.
    let cluster = format!("{name}-{}", f.uid(&name).await);

    let (made_port, _) = p.port(&format!("{MARK}-lba-vip1")).await;
    let (own_port, _) = p.port(&format!("{MARK}-lba-vip2")).await;
    let service =
        format!("Floating IP for Kubernetes external service default/web from cluster {cluster}");
    let made_ip = floating_ip(p, &made_port, &service).await;
    let own_ip = floating_ip(
        p,
        &own_port,
        &format!("{MARK} the tenant's reserved address"),
    )
    .await;
    let lbs = [
        p.load_balancer(&format!("kube_service_{cluster}_default_web"), "")
            .await,
        p.load_balancer(&format!("kube_service_{cluster}_default_own"), "")
            .await,
    ];
    let group = |name: &str, description: &str| {
        let body = json!({"security_group": {"name": format!("{MARK}-{name}"), "description": description}});
        p.call(
            Method::POST,
            format!("{}/security-groups", p.network),
            &p.user,
            Some(body),
        )
    };
    let mut groups = Vec::new();
    for (n, d) in [
        (
            "lba-sg",
            format!("Security Group for default/web Service LoadBalancer in cluster {cluster}"),
        ),
        ("lba-own-sg", format!("{MARK} the tenant's group")),
    ] {
        let (status, v) = group(n, &d).await;
        assert_eq!(status, 201, "{v}");
        groups.push(
            v["security_group"]["id"]
                .as_str()
                .expect("an id")
                .to_string(),
        );
    }
    let volume = p
        .volume(
            &format!("{MARK}-lba-pv"),
            json!({"cinder.csi.openstack.org/cluster": cluster}),
        )
        .await;
    available(p, &format!("volumes/{volume}"), "volume").await;
    let (status, v) = p
        .call(
            Method::POST,
            format!("{}/snapshots", p.volume),
            &p.user,
            Some(json!({"snapshot": {"volume_id": volume, "name": format!("{MARK}-lba-snap")}})),
        )
        .await;
    assert_eq!(status, 202, "{v}");
    let snapshot = v["snapshot"]["id"]
        .as_str()
        .expect("a snapshot id")
        .to_string();
    available(p, &format!("snapshots/{snapshot}"), "snapshot").await;
    f.lap("made two load balancers with addresses, a volume with a snapshot");

    f.delete(&name).await;
    f.lap("kluster deleted");
    let left: Vec<String> = p
        .load_balancers()
        .await
        .iter()
        .filter_map(|l| l["id"].as_str().map(str::to_string))
        .collect();
    assert!(
        lbs.iter().all(|lb| !left.contains(lb)),
        "load balancers left: {left:?}"
    );
    // Each as Neutron or Cinder answers for it now: gone (404) or still there (200).
    let neutron = |path: String| format!("{}/{path}", p.network);
    let cinder = |path: String| format!("{}/{path}", p.volume);
    let (made_group, own_group) = (&groups[0], &groups[1]);
    let expected = [
        (
            "the service's floating IP is deleted",
            neutron(format!("floatingips/{made_ip}")),
            404,
        ),
        (
            "the tenant's own address stays",
            neutron(format!("floatingips/{own_ip}")),
            200,
        ),
        (
            "the service's security group is deleted",
            neutron(format!("security-groups/{made_group}")),
            404,
        ),
        (
            "the tenant's own group stays",
            neutron(format!("security-groups/{own_group}")),
            200,
        ),
        (
            "the volume is deleted",
            cinder(format!("volumes/{volume}")),
            404,
        ),
        (
            "the snapshot is deleted",
            cinder(format!("snapshots/{snapshot}")),
            404,
        ),
    ];
    for (what, url, status) in expected {
        let (got, v) = p.call(Method::GET, url, &p.user, None).await;
        assert_eq!(got, status, "{what}: {v}");
    }
    eprintln!("both load balancers, the service's address and group, the volume and its snapshot gone; the tenant's address and group kept");
    p.delete(Kind::FloatingIp, &own_ip).await;
    p.delete(Kind::SecurityGroup, &groups[1]).await;
    p.delete(Kind::Port, &made_port).await;
    p.delete(Kind::Port, &own_port).await;
}

/// A floating IP on the external network, on `port`, described so: its id.
async fn floating_ip(p: &Project, port: &str, description: &str) -> String {
    let url = format!("{}/networks?router:external=true", p.network);
    let (status, v) = p.call(Method::GET, url, &p.user, None).await;
    assert_eq!(status, 200, "{v}");
    let external = v["networks"][0]["id"].clone();
    let body = json!({"floatingip": {"floating_network_id": external, "port_id": port,
        "description": description}});
    let url = format!("{}/floatingips", p.network);
    let (status, v) = p.call(Method::POST, url, &p.user, Some(body)).await;
    assert_eq!(status, 201, "{v}");
    v["floatingip"]["id"].as_str().expect("an id").to_string()
}

/// Waits until Cinder's `path` (a volume or snapshot) is `available`.
async fn available(p: &Project, path: &str, what: &str) {
    let key = if what == "volume" {
        "volume"
    } else {
        "snapshot"
    };
    until(
        Duration::from_secs(60),
        &format!("the {what} available"),
        || async {
            let url = format!("{}/{path}", p.volume);
            let (_, v) = p.call(Method::GET, url, &p.user, None).await;
            (v[key]["status"] == "available").then_some(())
        },
    )
    .await;
}
