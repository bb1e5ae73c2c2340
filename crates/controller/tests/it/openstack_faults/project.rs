//! One project of the test cloud seen straight through its APIs, not through the
//! controller: Nova's servers, Cinder's volumes, Octavia's load balancers, Neutron's ports
//! and router routes. What the tests make there is named `mcft…` (routes: to 10.199.0.0/16)
//! so that [`Project::sweep`] can clear what a failed run left.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::common::openstack::env;

/// Names of what the tests make in the project start with this.
pub const MARK: &str = "mcft";
/// Kluster names of these tests start with this.
pub const KLUSTERS: &str = "ft";
/// Route destinations the tests add lie in 10.199.0.0/16.
pub const ROUTES: &str = "10.199.";

/// A project of the test cloud: alice's token (no OpenStack role), a token with the admin
/// role for Octavia (its default policy wants `load-balancer_member` or admin), and the
/// project's network, subnet and router.
pub struct Project {
    http: reqwest::Client,
    /// Alice's token, scoped to the project.
    pub user: String,
    /// The controller's service user's token, scoped to the project (role admin there).
    pub admin: String,
    /// The project's id.
    pub id: String,
    /// Nova's endpoint.
    pub compute: String,
    /// Neutron's `/v2.0` URL.
    pub network: String,
    /// Cinder's URL for the project.
    pub volume: String,
    lb: String,
    /// The project's network.
    pub network_id: String,
    subnet_id: String,
    /// The project's router.
    pub router_id: String,
}

/// The endpoint `MC_TEST_OS_<name>_URL`.
fn url(name: &str) -> String {
    env(&format!("{name}_URL")).unwrap_or_else(|| panic!("MC_TEST_OS_{name}_URL is unset"))
}

impl Project {
    /// Project `p` (`DEMO`, `STAGING`) with these tokens.
    pub fn new(p: &str, user: String, admin: String) -> Project {
        let id = env(&format!("{p}_PROJECT_ID")).expect("the project's id");
        let of = |what: &str| env(&format!("{p}_{what}")).expect("the project's seeded resources");
        Project {
            http: reqwest::Client::new(),
            user,
            admin,
            id: id.clone(),
            compute: url("COMPUTE"),
            network: format!("{}/v2.0", url("NETWORK")),
            volume: url("VOLUMEV3").replace("$(project_id)s", &id),
            lb: format!("{}/v2/lbaas", url("LOAD_BALANCER")),
            network_id: of("NETWORK_ID"),
            subnet_id: of("SUBNET_ID"),
            router_id: of("ROUTER_ID"),
        }
    }

    /// One call with `token`: the status and the JSON body (`Null` if none).
    pub(super) async fn call(
        &self,
        method: Method,
        url: String,
        token: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let nova = url.starts_with(&self.compute);
        let mut r = self
            .http
            .request(method, url)
            .header("X-Auth-Token", token)
            .header("Connection", "close")
            .timeout(Duration::from_secs(30));
        if nova {
            r = r.header("OpenStack-API-Version", "compute 2.67");
        }
        if let Some(b) = body {
            r = r.json(&b);
        }
        let r = r.send().await.expect("OpenStack answers");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// `GET` with `token`, 200 asserted: the body's `key` array.
    async fn list(&self, url: String, token: &str, key: &str) -> Vec<Value> {
        let (status, v) = self.call(Method::GET, url, token, None).await;
        assert_eq!(status, 200, "{v}");
        v[key].as_array().cloned().unwrap_or_default()
    }

    /// Every server of the project (any kluster's or none), as Nova lists them.
    pub async fn servers(&self) -> Vec<Value> {
        let url = format!("{}/servers/detail", self.compute);
        self.list(url, &self.user, "servers").await
    }

    /// A volume of 1 GiB named `name` with `metadata`; its id.
    pub async fn volume(&self, name: &str, metadata: Value) -> String {
        let body = json!({"volume": {"size": 1, "name": name, "metadata": metadata}});
        let url = format!("{}/volumes", self.volume);
        let (status, v) = self.call(Method::POST, url, &self.user, Some(body)).await;
        assert_eq!(status, 202, "{v}");
        v["volume"]["id"].as_str().expect("a volume id").to_string()
    }

    /// A server of the tenant's own named `name`, tagged and marked `kluster=<kluster>` as
    /// a kluster's would be but with no uid (the seeded flavor and image, the project's
    /// network); its id.
    pub async fn tenant_server(&self, name: &str, kluster: &str) -> String {
        let flavor = env("FLAVOR").unwrap_or("m1.small".into());
        let url = format!("{}/flavors", self.compute);
        let flavors = self.list(url, &self.user, "flavors").await;
        let flavor = flavors
            .iter()
            .find(|f| f["name"] == flavor.as_str())
            .and_then(|f| f["id"].as_str())
            .expect("the seeded flavor");
        let image = env("IMAGE_ID").expect("MC_TEST_OS_IMAGE_ID");
        let body = json!({"server": {"name": name, "flavorRef": flavor, "imageRef": image,
            "networks": [{"uuid": self.network_id}], "metadata": {"kluster": kluster},
            "tags": [format!("kluster={kluster}")]}});
        let url = format!("{}/servers", self.compute);
        let (status, v) = self.call(Method::POST, url, &self.user, Some(body)).await;
        assert_eq!(status, 202, "{v}");
        v["server"]["id"].as_str().expect("a server id").to_string()
    }

    /// The project's volumes.
    pub async fn volumes(&self) -> Vec<Value> {
        let url = format!("{}/volumes/detail", self.volume);
        self.list(url, &self.user, "volumes").await
    }

    /// A load balancer on the project's subnet, made with the admin token; its id.
    pub async fn load_balancer(&self, name: &str, description: &str) -> String {
        let body = json!({"loadbalancer": {"name": name, "description": description,
            "vip_subnet_id": self.subnet_id}});
        let url = format!("{}/loadbalancers", self.lb);
        let (status, v) = self.call(Method::POST, url, &self.admin, Some(body)).await;
        assert_eq!(status, 201, "{v}");
        v["loadbalancer"]["id"]
            .as_str()
            .expect("a load balancer id")
            .to_string()
    }

    /// The project's load balancers (those being deleted too, not the deleted ones).
    pub async fn load_balancers(&self) -> Vec<Value> {
        let url = format!("{}/loadbalancers?project_id={}", self.lb, self.id);
        let all = self.list(url, &self.admin, "loadbalancers").await;
        all.into_iter()
            .filter(|l| l["provisioning_status"] != "DELETED")
            .collect()
    }

    /// A port on the project's network named `name` (an appliance's address); its id and
    /// address.
    pub async fn port(&self, name: &str) -> (String, String) {
        let body = json!({"port": {"name": name, "network_id": self.network_id}});
        let url = format!("{}/ports", self.network);
        let (status, v) = self.call(Method::POST, url, &self.user, Some(body)).await;
        assert_eq!(status, 201, "{v}");
        let id = v["port"]["id"].as_str().expect("a port id").to_string();
        let ip = v["port"]["fixed_ips"][0]["ip_address"]
            .as_str()
            .expect("an address");
        (id, ip.to_string())
    }

    /// The routes of the project's router, as `(destination, nexthop)`.
    pub async fn routes(&self) -> Vec<(String, String)> {
        let url = format!("{}/routers/{}", self.network, self.router_id);
        let (status, v) = self.call(Method::GET, url, &self.user, None).await;
        assert_eq!(status, 200, "{v}");
        let routes = v["router"]["routes"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        routes
            .iter()
            .map(|r| {
                let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
                (s("destination"), s("nexthop"))
            })
            .collect()
    }

    /// Adds (`add`) or removes a route of the project's router (`extraroute-atomic`).
    pub async fn route(&self, add: bool, destination: &str, nexthop: &str) {
        let verb = if add { "add" } else { "remove" };
        let url = format!(
            "{}/routers/{}/{verb}_extraroutes",
            self.network, self.router_id
        );
        let body =
            json!({"router": {"routes": [{"destination": destination, "nexthop": nexthop}]}});
        let (status, v) = self.call(Method::PUT, url, &self.user, Some(body)).await;
        assert_eq!(status, 200, "{verb} route {destination} via {nexthop}: {v}");
    }

    /// Deletes a server, volume or load balancer (cascading), port or floating IP by id; one that is gone
    /// already, or cannot go yet (still being made), is left.
    pub async fn delete(&self, what: Kind, id: &str) {
        let (url, token) = match what {
            Kind::Server => (format!("{}/servers/{id}", self.compute), &self.user),
            Kind::Volume => (
                format!("{}/volumes/{id}?cascade=true", self.volume),
                &self.user,
            ),
            Kind::LoadBalancer => (
                format!("{}/loadbalancers/{id}?cascade=true", self.lb),
                &self.admin,
            ),
            Kind::Port => (format!("{}/ports/{id}", self.network), &self.user),
            Kind::FloatingIp => (format!("{}/floatingips/{id}", self.network), &self.user),
            Kind::SecurityGroup => (format!("{}/security-groups/{id}", self.network), &self.user),
        };
        let (status, v) = self.call(Method::DELETE, url, token, None).await;
        assert!(
            matches!(status, 202 | 204 | 404 | 400 | 409),
            "delete {what:?} {id}: {status} {v}"
        );
    }

    /// Deletes what an earlier run of these tests left in the project: servers of klusters
    /// named `ft…`, volumes, load balancers and ports named `mcft…`, routes to
    /// 10.199.0.0/16. Says what it found.
    pub async fn sweep(&self) {
        let mut left = Vec::new();
        for s in self.servers().await {
            if s["metadata"]["kluster"]
                .as_str()
                .is_some_and(|k| k.starts_with(KLUSTERS))
            {
                left.push(format!("server {}", s["name"]));
                self.delete(Kind::Server, s["id"].as_str().unwrap_or_default())
                    .await;
            }
        }
        let marked = |v: &Value, key: &str| v[key].as_str().is_some_and(|n| n.contains(MARK));
        for v in self.volumes().await.iter().filter(|v| marked(v, "name")) {
            left.push(format!("volume {}", v["name"]));
            self.delete(Kind::Volume, v["id"].as_str().unwrap_or_default())
                .await;
        }
        for l in self.load_balancers().await {
            if (marked(&l, "name") || marked(&l, "description"))
                && l["provisioning_status"] != "PENDING_DELETE"
            {
                left.push(format!("load balancer {}", l["name"]));
                self.delete(Kind::LoadBalancer, l["id"].as_str().unwrap_or_default())
                    .await;
            }
        }
        for (destination, nexthop) in self.routes().await {
            if destination.starts_with(ROUTES) {
                left.push(format!("route {destination}"));
                self.route(false, &destination, &nexthop).await;
            }
        }
        let url = format!("{}/ports?project_id={}", self.network, self.id);
        for p in self
            .list(url, &self.user, "ports")
            .await
            .iter()
            .filter(|p| marked(p, "name"))
        {
            left.push(format!("port {}", p["name"]));
            self.delete(Kind::Port, p["id"].as_str().unwrap_or_default())
                .await;
        }
        // Floating IPs: the tests' own (`mcft…`) and those made "for" their klusters.
        let url = format!("{}/floatingips?project_id={}", self.network, self.id);
        for ip in self.list(url, &self.user, "floatingips").await {
            let d = ip["description"].as_str().unwrap_or_default();
            if d.contains(MARK) || d.contains(&format!("from cluster {KLUSTERS}")) {
                left.push(format!("floating IP {}", ip["floating_ip_address"]));
                self.delete(Kind::FloatingIp, ip["id"].as_str().unwrap_or_default())
                    .await;
            }
        }
        let url = format!("{}/security-groups?project_id={}", self.network, self.id);
        for g in self.list(url, &self.user, "security_groups").await {
            if marked(&g, "name") {
                left.push(format!("security group {}", g["name"]));
                self.delete(Kind::SecurityGroup, g["id"].as_str().unwrap_or_default())
                    .await;
            }
        }
        if !left.is_empty() {
            eprintln!("swept what an earlier run left: {}", left.join(", "));
        }
    }
}

/// What [`Project::delete`] deletes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A Nova server.
    Server,
    /// A Cinder volume.
    Volume,
    /// An Octavia load balancer.
    LoadBalancer,
    /// A Neutron port.
    Port,
    /// A Neutron floating IP.
    FloatingIp,
    /// A Neutron security group.
    SecurityGroup,
}
