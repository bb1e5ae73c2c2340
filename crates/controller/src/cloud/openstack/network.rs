//! Neutron: the project's routers with an external gateway, the networks their interface
//! ports sit in and those networks' subnets (Kubernikus's discovery), security groups, and
//! router routes (listed and removed one by one through `extraroute-atomic`).

use std::collections::{BTreeSet, HashMap};

use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use super::catalog::Service;
use super::compute::segment;
use super::http::{Api, Query};
use crate::cloud::CloudError;

/// A Neutron router (the fields the provider reads).
#[derive(Clone, Debug, Deserialize)]
pub(super) struct NeutronRouter {
    pub(super) id: String,
    #[serde(default)]
    pub(super) name: String,
    #[serde(default)]
    pub(super) external_gateway_info: Option<Gateway>,
    #[serde(default)]
    pub(super) routes: Vec<Route>,
}

/// A router's external gateway.
#[derive(Clone, Debug, Deserialize)]
pub(super) struct Gateway {
    #[serde(default)]
    pub(super) network_id: Option<String>,
}

/// A router's extra route.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
pub(super) struct Route {
    pub(super) destination: String,
    pub(super) nexthop: String,
}

#[derive(Deserialize)]
struct Port {
    network_id: String,
    device_id: String,
}

#[derive(Deserialize)]
struct NeutronNetwork {
    id: String,
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
struct NeutronSubnet {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    cidr: String,
    network_id: String,
}

#[derive(Deserialize)]
struct SecurityGroup {
    id: String,
    #[serde(default)]
    name: String,
}

impl NeutronRouter {
    /// Its external network, when it has a gateway.
    pub(super) fn external_network(&self) -> Option<&str> {
        self.external_gateway_info
            .as_ref()?
            .network_id
            .as_deref()
            .filter(|n| !n.is_empty())
    }
}

/// `key=value` for each of `values` (Neutron reads a repeated key as "any of").
pub(super) fn pairs<'a>(key: &str, values: impl IntoIterator<Item = &'a str>) -> Query {
    values
        .into_iter()
        .map(|v| (key.to_string(), v.to_string()))
        .collect()
}

/// The `device_owner` of a router's ports on the networks it routes: a legacy router's,
/// a distributed (DVR) router's, and an L3-HA router's. Not the HA routers' own ports on
/// their internal HA network (`network:router_ha_interface`) nor DVR's SNAT ports.
const INTERFACE_OWNERS: [&str; 3] = [
    "network:router_interface",
    "network:router_interface_distributed",
    "network:ha_router_replicated_interface",
];

impl Api {
    /// The project's routers (`GET /v2.0/routers?project_id=`).
    pub(super) async fn routers(&self, project: &str) -> Result<Vec<NeutronRouter>, CloudError> {
        let query = pairs("project_id", [project]);
        self.list(project, Service::Network, "routers", query, "routers")
            .await
    }

    /// The project's routers with an external gateway, each with the networks of its
    /// interface ports (of any kind of router: [`INTERFACE_OWNERS`]) and their subnets, in
    /// the order Neutron lists them.
    pub(super) async fn router_tree(
        &self,
        project: &str,
    ) -> Result<Vec<kluster::Router>, CloudError> {
        let routers: Vec<NeutronRouter> = self
            .routers(project)
            .await?
            .into_iter()
            .filter(|r| r.external_network().is_some())
            .collect();
        if routers.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = pairs("device_owner", INTERFACE_OWNERS);
        query.extend(pairs("device_id", routers.iter().map(|r| r.id.as_str())));
        let ports: Vec<Port> = self
            .list(project, Service::Network, "ports", query, "ports")
            .await?;
        let mut by_router: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        for p in &ports {
            by_router
                .entry(p.device_id.as_str())
                .or_default()
                .insert(p.network_id.as_str());
        }
        let ids: BTreeSet<&str> = ports.iter().map(|p| p.network_id.as_str()).collect();
        let (networks, subnets) = if ids.is_empty() {
            (Vec::new(), Vec::new())
        } else {
            let nets = self.list::<NeutronNetwork>(
                project,
                Service::Network,
                "networks",
                pairs("id", ids.iter().copied()),
                "networks",
            );
            let subs = self.list::<NeutronSubnet>(
                project,
                Service::Network,
                "subnets",
                pairs("network_id", ids.iter().copied()),
                "subnets",
            );
            tokio::try_join!(nets, subs)?
        };
        let network = |id: &str| kluster::Network {
            name: networks
                .iter()
                .find(|n| n.id == id)
                .map(|n| n.name.clone())
                .unwrap_or_default(),
            id: id.to_string(),
            subnets: subnets
                .iter()
                .filter(|s| s.network_id == id)
                .map(|s| kluster::Subnet {
                    name: s.name.clone(),
                    id: s.id.clone(),
                    cidr: s.cidr.clone(),
                })
                .collect(),
        };
        Ok(routers
            .iter()
            .map(|r| kluster::Router {
                name: r.name.clone(),
                id: r.id.clone(),
                external_network_id: r.external_network().unwrap_or_default().to_string(),
                networks: by_router
                    .get(r.id.as_str())
                    .map(|ids| ids.iter().map(|id| network(id)).collect())
                    .unwrap_or_default(),
            })
            .collect())
    }

    /// The external networks the project sees (`GET /v2.0/networks?router:external=true`),
    /// where load balancers get floating IPs.
    pub(super) async fn external_networks(
        &self,
        project: &str,
    ) -> Result<Vec<kluster::IdName>, CloudError> {
        let query = pairs("router:external", ["true"]);
        let nets: Vec<NeutronNetwork> = self
            .list(project, Service::Network, "networks", query, "networks")
            .await?;
        Ok(nets
            .into_iter()
            .map(|n| kluster::IdName {
                name: n.name,
                id: n.id,
            })
            .collect())
    }

    /// The project's security groups (`GET /v2.0/security-groups?project_id=`).
    pub(super) async fn security_groups(
        &self,
        project: &str,
    ) -> Result<Vec<kluster::IdName>, CloudError> {
        let query = pairs("project_id", [project]);
        let groups: Vec<SecurityGroup> = self
            .list(
                project,
                Service::Network,
                "security-groups",
                query,
                "security_groups",
            )
            .await?;
        Ok(groups
            .into_iter()
            .map(|g| kluster::IdName {
                name: g.name,
                id: g.id,
            })
            .collect())
    }

    /// The network a server goes in when the kluster names none: the only network behind
    /// the project's routers with an external gateway.
    pub(super) async fn default_network(&self, project: &str) -> Result<String, CloudError> {
        let routers = self.router_tree(project).await?;
        let ids: BTreeSet<&str> = routers
            .iter()
            .flat_map(|r| r.networks.iter().map(|n| n.id.as_str()))
            .collect();
        match ids.len() {
            1 => Ok(ids.into_iter().collect::<String>()),
            0 => Err(CloudError::new(format!(
                "Project {project} has no network behind a router with an external gateway"
            ))),
            n => Err(CloudError::new(format!(
                "Project {project} has {n} networks behind routers with an external gateway \
                 ({}): the kluster must name one",
                ids.into_iter().collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// Removes one route from a router (`PUT /v2.0/routers/{id}/remove_extraroutes`);
    /// a router that is gone has no routes left.
    pub(super) async fn remove_route(
        &self,
        project: &str,
        router: &str,
        route: &Route,
    ) -> Result<(), CloudError> {
        let path = format!("routers/{}/remove_extraroutes", segment(router));
        let body = json!({ "router": { "routes": [route] } });
        let reply = self
            .send(
                project,
                Service::Network,
                Method::PUT,
                &path,
                &[],
                Some(&body),
            )
            .await?;
        if reply.status == 404 {
            return Ok(());
        }
        reply.ok().map(drop)
    }
}
