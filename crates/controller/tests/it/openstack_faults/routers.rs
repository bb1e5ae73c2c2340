//! Routers of every kind: a distributed (DVR) and an L3-HA router, made in the project by
//! the cloud admin (tenants may neither make them nor read which kind a router is), show
//! their networks in the controller's metadata, and a kluster is placed behind each. Their
//! interface ports are not `network:router_interface` (DVR: `…_distributed`, HA:
//! `network:ha_router_replicated_interface`); before they were read, both showed no
//! network and every kluster behind them was refused.

use reqwest::Method;
use serde_json::{json, Value};

use super::project::MARK;
use super::{body, Fixture};
use crate::common::openstack::{cloud_env, env, Admin};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distributed_and_ha_routers_show_their_networks_and_take_klusters() {
    let Some(f) = Fixture::new("routers").await else {
        return;
    };
    let auth_url = cloud_env().expect("the test cloud");
    let neutron = Neutron {
        admin: Admin::sign_in(&auth_url).await,
        url: format!(
            "{}/v2.0",
            env("NETWORK_URL").expect("MC_TEST_OS_NETWORK_URL")
        ),
        project: f.project.id.clone(),
    };
    neutron.sweep().await;
    let external = neutron.external().await;
    let mut made = Vec::new();
    for (i, kind) in ["distributed", "ha"].into_iter().enumerate() {
        made.push((kind, neutron.router(kind, i, &external).await));
    }

    let meta = "/api/v1/openstack/metadata";
    let (status, v) = crate::common::call(f.app(), "GET", meta, Some(&f.tok), None).await;
    assert_eq!(status, 200, "{v}");
    let routers = v["routers"].as_array().cloned().unwrap_or_default();
    for (kind, r) in &made {
        let shown = routers
            .iter()
            .find(|x| x["id"] == r.router.as_str())
            .unwrap_or_else(|| panic!("the {kind} router in the metadata: {v}"));
        let networks: Vec<&str> = shown["networks"]
            .as_array()
            .map(|n| n.iter().filter_map(|n| n["id"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(networks, [r.network.as_str()], "the {kind} router: {shown}");
        assert_eq!(
            shown["networks"][0]["subnets"][0]["id"], r.subnet,
            "the {kind} router's subnet: {shown}"
        );
        eprintln!("{kind} router: its network {} shown", r.network);
    }

    for (kind, r) in &made {
        let name = f.name(&kind[..2]);
        let mut b = body(&name, 0);
        b["spec"]["openstack"] =
            json!({"routerID": r.router, "networkID": r.network, "lbSubnetID": r.subnet});
        f.create_with(b).await;
        let path = format!("/api/v1/clusters/{name}");
        let (_, k) = crate::common::call(f.app(), "GET", &path, Some(&f.tok), None).await;
        assert_eq!(k["spec"]["openstack"]["routerID"], r.router.as_str(), "{k}");
        f.delete(&name).await;
        eprintln!("a kluster placed behind the {kind} router");
    }
    neutron.sweep().await;
}

/// What the test made for one router.
struct Made {
    router: String,
    network: String,
    subnet: String,
}

/// Neutron as the cloud admin, making things in the test's project.
struct Neutron {
    admin: Admin,
    url: String,
    project: String,
}

impl Neutron {
    /// `method path` (under `/v2.0`): the status and the JSON answer.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}/{path}", self.url);
        self.admin.call_at(method, url, body).await
    }

    /// Makes `key` (`network`, `subnet`, `router`) with `fields` in the project: its id.
    async fn make(&self, key: &str, mut fields: Value) -> String {
        fields["project_id"] = json!(self.project);
        let (status, v) = self
            .call(
                Method::POST,
                &format!("{key}s"),
                Some(json!({ key: fields })),
            )
            .await;
        assert_eq!(status, 201, "make {key}: {v}");
        v[key]["id"].as_str().expect("an id").to_string()
    }

    /// The cloud's external network.
    async fn external(&self) -> String {
        let (status, v) = self
            .call(Method::GET, "networks?router:external=true", None)
            .await;
        assert_eq!(status, 200, "{v}");
        v["networks"][0]["id"]
            .as_str()
            .expect("an external network")
            .to_string()
    }

    /// A router of `kind` (`distributed`, `ha`) with a gateway on `external` and an
    /// interface on a network and subnet of its own (192.168.20i.0/24).
    async fn router(&self, kind: &str, i: usize, external: &str) -> Made {
        let network = self
            .make("network", json!({"name": format!("{MARK}-{kind}-net")}))
            .await;
        let cidr = format!("192.168.{}.0/24", 200 + i);
        let subnet = self
            .make(
                "subnet",
                json!({"name": format!("{MARK}-{kind}-sub"), "network_id": network,
                    "ip_version": 4, "cidr": cidr}),
            )
            .await;
        let router = self
            .make(
                "router",
                json!({"name": format!("{MARK}-{kind}"), kind: true,
                    "external_gateway_info": {"network_id": external}}),
            )
            .await;
        let path = format!("routers/{router}/add_router_interface");
        let body = json!({ "subnet_id": subnet });
        let (status, v) = self.call(Method::PUT, &path, Some(body)).await;
        assert_eq!(status, 200, "add the {kind} router's interface: {v}");
        Made {
            router,
            network,
            subnet,
        }
    }

    /// Deletes the project's routers and networks named `mcft…` (the interfaces first).
    async fn sweep(&self) {
        let q = format!("project_id={}", self.project);
        let marked = |v: &Value| v["name"].as_str().is_some_and(|n| n.starts_with(MARK));
        let (_, routers) = self.call(Method::GET, &format!("routers?{q}"), None).await;
        for r in routers["routers"].as_array().into_iter().flatten() {
            if !marked(r) {
                continue;
            }
            let id = r["id"].as_str().unwrap_or_default();
            let (_, ports) = self
                .call(Method::GET, &format!("ports?device_id={id}"), None)
                .await;
            for p in ports["ports"].as_array().into_iter().flatten() {
                let owner = p["device_owner"].as_str().unwrap_or_default();
                if owner == "network:router_gateway" || owner.contains("snat") {
                    continue;
                }
                let body = json!({ "port_id": p["id"] });
                let path = format!("routers/{id}/remove_router_interface");
                let (status, v) = self.call(Method::PUT, &path, Some(body)).await;
                assert!(matches!(status, 200 | 404), "remove {owner}: {v}");
            }
            let (status, v) = self
                .call(Method::DELETE, &format!("routers/{id}"), None)
                .await;
            assert!(
                matches!(status, 204 | 404),
                "delete router {}: {v}",
                r["name"]
            );
        }
        let (_, networks) = self.call(Method::GET, &format!("networks?{q}"), None).await;
        for n in networks["networks"].as_array().into_iter().flatten() {
            if marked(n) {
                let path = format!("networks/{}", n["id"].as_str().unwrap_or_default());
                let (status, v) = self.call(Method::DELETE, &path, None).await;
                assert!(
                    matches!(status, 204 | 404),
                    "delete network {}: {v}",
                    n["name"]
                );
            }
        }
    }
}
