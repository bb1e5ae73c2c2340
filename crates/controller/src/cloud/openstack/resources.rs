//! What klusters' workloads create by themselves, found by the names and metadata
//! Kubernetes' OpenStack integrations give it: Cinder volumes (the CSI driver's
//! `cinder.csi.openstack.org/cluster` metadata, or our `kluster` key), Octavia load
//! balancers (the cloud controller manager's `kube_service_<cluster>_<namespace>_<service>`
//! names, or its "… from cluster <cluster>" description — the simulator uses the same name
//! pattern), the floating IPs and security groups it made for those services (`ccm_made`), and router routes into a kluster's pod range on its router ([`range_kluster`];
//! named `route-<destination>`) or whose next hop is a kluster's server on one of the
//! router's networks (named `route-<server>` like the simulator's; see [`route_node`]).
//! Every match is on the whole kluster name, never a prefix. Each gets an id saying what it is, for
//! [`Api::delete_resource`].

use std::collections::HashMap;

use serde::Deserialize;

use super::catalog::Service;
use super::compute::{segment, KLUSTER_KEY};
use super::http::{Api, Query};
use super::network::{pairs, Route};
use crate::cloud::owner::split_cluster_name;
use crate::cloud::{CloudError, PodRange, Resource, ResourceKind};
use kluster::net::Cidr;

mod ccm_made;
mod id;
pub use id::ResourceId;

/// Volume metadata keys naming the cluster a volume was made for.
pub const VOLUME_CLUSTER_KEYS: &[&str] = &["cinder.csi.openstack.org/cluster", KLUSTER_KEY];

/// Name prefix of load balancers of `LoadBalancer` services.
pub const LB_PREFIX: &str = "kube_service_";

#[derive(Deserialize)]
struct Volume {
    id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    status: String,
    #[serde(default)]
    metadata: HashMap<String, String>,
}

#[derive(Deserialize)]
struct VolumeType {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default = "public")]
    is_public: bool,
}

fn public() -> bool {
    true
}

#[derive(Deserialize)]
struct LoadBalancer {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    provisioning_status: String,
}

/// The kluster a volume was made for, from its metadata (the first key with a value).
pub fn volume_kluster(metadata: &HashMap<String, String>) -> Option<String> {
    VOLUME_CLUSTER_KEYS
        .iter()
        .filter_map(|k| metadata.get(*k))
        .find(|k| !k.is_empty())
        .cloned()
}

/// One address of a kluster's server, as Nova lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeAddress<'a> {
    /// The server's kluster.
    pub kluster: &'a str,
    /// That kluster's uid, when the server carries it.
    pub uid: Option<&'a str>,
    /// The server's name.
    pub server: &'a str,
    /// The name of the network the address is on.
    pub network: &'a str,
    /// The address.
    pub addr: &'a str,
}

/// The kluster server a route via `nexthop` leads to, on a router whose interfaces are on
/// `networks` (names; empty when unknown, then any network counts): the servers with that
/// address there, if they are all one kluster's. `None` when no kluster's server has it, or
/// servers of two klusters do (an address reused on another network): then the route is
/// no kluster's to delete.
pub fn route_node<'a>(
    nexthop: &str,
    networks: &[&str],
    nodes: &'a [NodeAddress<'a>],
) -> Option<&'a NodeAddress<'a>> {
    let mut there = nodes
        .iter()
        .filter(|n| n.addr == nexthop && (networks.is_empty() || networks.contains(&n.network)));
    let first = there.next()?;
    let same = |n: &NodeAddress| n.kluster == first.kluster && n.uid == first.uid;
    there.all(same).then_some(first)
}

/// The pod range on `router` holding all of `destination`, if exactly one kluster's
/// does. Its nodes may be gone already (deleted first): the range still says
/// whose the route is. Two klusters' ranges holding it (admission prevents that): no one's.
pub fn range_kluster<'a>(
    router: &str,
    destination: &str,
    ranges: &'a [PodRange],
) -> Option<&'a PodRange> {
    let d = Cidr::parse(destination)?;
    let holds = |c: Cidr| c.contains(d.network()) && c.contains(d.last());
    let mut holders = ranges
        .iter()
        .filter(|r| !r.router.is_empty() && r.router == router)
        .filter(|r| Cidr::parse(&r.cidr).is_some_and(holds));
    let first = holders.next()?;
    holders
        .all(|r| r.kluster == first.kluster && r.uid == first.uid)
        .then_some(first)
}

/// The kluster of a load balancer: `kube_service_<kluster>_…` (kluster names have no
/// `_`), or a description ending in `from cluster <kluster>`.
pub fn load_balancer_kluster(name: &str, description: Option<&str>) -> Option<String> {
    if let Some(rest) = name.strip_prefix(LB_PREFIX) {
        if let Some((kluster, _)) = rest.split_once('_') {
            if !kluster.is_empty() {
                return Some(kluster.to_string());
            }
        }
    }
    let (_, kluster) = description?.rsplit_once("from cluster ")?;
    let kluster = kluster.trim();
    (!kluster.is_empty() && !kluster.contains(char::is_whitespace)).then(|| kluster.to_string())
}

impl Api {
    /// Public volume types (`GET /types`), as Kubernikus offers them.
    pub(super) async fn volume_types(
        &self,
        project: &str,
    ) -> Result<Vec<kluster::IdName>, CloudError> {
        let types: Vec<VolumeType> = self
            .list(
                project,
                Service::Volume,
                "types",
                Query::new(),
                "volume_types",
            )
            .await?;
        Ok(types
            .into_iter()
            .filter(|t| t.is_public)
            .map(|t| kluster::IdName {
                name: t.name,
                id: t.id,
            })
            .collect())
    }

    /// The project's volumes made for a kluster; none when the catalog has no Cinder.
    async fn kluster_volumes(&self, project: &str) -> Result<Vec<Resource>, CloudError> {
        if !self.offers(project, Service::Volume).await? {
            return Ok(Vec::new());
        }
        let volumes: Vec<Volume> = self
            .list(
                project,
                Service::Volume,
                "volumes/detail",
                Query::new(),
                "volumes",
            )
            .await?;
        Ok(volumes
            .into_iter()
            .filter_map(|v| {
                let mark = split_cluster_name(&volume_kluster(&v.metadata)?);
                let name = v.name.filter(|n| !n.is_empty()).unwrap_or(v.id.clone());
                Some(Resource {
                    id: ResourceId::Volume(v.id).encode(),
                    kluster: mark.name,
                    uid: mark.uid,
                    kind: ResourceKind::Volume,
                    name,
                    deleting: v.status == "deleting",
                })
            })
            .collect())
    }

    /// The project's load balancers of klusters' services; none without Octavia.
    async fn kluster_load_balancers(&self, project: &str) -> Result<Vec<Resource>, CloudError> {
        if !self.offers(project, Service::LoadBalancer).await? {
            return Ok(Vec::new());
        }
        let query = pairs("project_id", [project]);
        let lbs: Vec<LoadBalancer> = self
            .list(
                project,
                Service::LoadBalancer,
                "lbaas/loadbalancers",
                query,
                "loadbalancers",
            )
            .await?;
        Ok(lbs
            .into_iter()
            .filter_map(|lb| {
                let cluster = load_balancer_kluster(&lb.name, lb.description.as_deref())?;
                let mark = split_cluster_name(&cluster);
                Some(Resource {
                    id: ResourceId::LoadBalancer(lb.id).encode(),
                    kluster: mark.name,
                    uid: mark.uid,
                    kind: ResourceKind::LoadBalancer,
                    name: lb.name,
                    deleting: lb.provisioning_status == "PENDING_DELETE",
                })
            })
            .collect())
    }

    /// Routes of the project's routers into a kluster's pod range ([`range_kluster`]) or
    /// whose next hop is a kluster's server on one of the router's networks ([`route_node`]).
    async fn kluster_routes(
        &self,
        project: &str,
        ranges: &[PodRange],
    ) -> Result<Vec<Resource>, CloudError> {
        let routers = self.routers(project).await?;
        // A route in a kluster's pod range is the kluster's: the servers are asked for only
        // when another route could lead via one of them.
        let unclaimed = routers.iter().any(|r| {
            let mut routes = r.routes.iter();
            routes.any(|route| range_kluster(&r.id, &route.destination, ranges).is_none())
        });
        let servers = match unclaimed {
            true => self.nova_servers(project).await?,
            false => Vec::new(),
        };
        let mut nodes = Vec::new();
        for s in &servers {
            let Some(kluster) = s.kluster() else { continue };
            for (network, addrs) in &s.addresses {
                nodes.extend(addrs.iter().map(|a| NodeAddress {
                    kluster,
                    uid: s.uid(),
                    server: s.name.as_str(),
                    network: network.as_str(),
                    addr: a.addr.as_str(),
                }));
            }
        }
        // The networks of the routers' interfaces tell apart servers with one address on
        // two networks: asked only when a route's next hop is a kluster server's address.
        let by_address = routers.iter().any(|r| {
            r.routes.iter().any(|route| {
                range_kluster(&r.id, &route.destination, ranges).is_none()
                    && nodes.iter().any(|n| n.addr == route.nexthop)
            })
        });
        let tree = match by_address {
            true => self.router_tree(project).await?,
            false => Vec::new(),
        };
        let mut out = Vec::new();
        for r in &routers {
            // The networks of its interfaces (known for routers with a gateway).
            let networks: Vec<&str> = tree
                .iter()
                .filter(|t| t.id == r.id)
                .flat_map(|t| t.networks.iter().map(|n| n.name.as_str()))
                .collect();
            for route in &r.routes {
                let (kluster, uid, name) = match range_kluster(&r.id, &route.destination, ranges) {
                    Some(k) => {
                        let uid = Some(k.uid.as_str()).filter(|u| !u.is_empty());
                        (
                            k.kluster.as_str(),
                            uid,
                            format!("route-{}", route.destination),
                        )
                    }
                    None => match route_node(&route.nexthop, &networks, &nodes) {
                        Some(node) => (node.kluster, node.uid, format!("route-{}", node.server)),
                        None => continue,
                    },
                };
                out.push(Resource {
                    id: ResourceId::Route {
                        router: r.id.clone(),
                        destination: route.destination.clone(),
                        nexthop: route.nexthop.clone(),
                    }
                    .encode(),
                    kluster: kluster.to_string(),
                    uid: uid.map(str::to_string),
                    kind: ResourceKind::Route,
                    name,
                    deleting: false,
                });
            }
        }
        Ok(out)
    }

    /// Volumes, load balancers, routes, and the services' addresses and security groups of
    /// the project's klusters (`ranges`: their pod ranges).
    pub(super) async fn kluster_resources(
        &self,
        project: &str,
        ranges: &[PodRange],
    ) -> Result<Vec<Resource>, CloudError> {
        let (volumes, lbs, routes, addresses, groups) = tokio::try_join!(
            self.kluster_volumes(project),
            self.kluster_load_balancers(project),
            self.kluster_routes(project, ranges),
            self.kluster_addresses(project),
            self.kluster_security_groups(project)
        )?;
        let all = volumes.into_iter().chain(lbs).chain(routes);
        Ok(all.chain(addresses).chain(groups).collect())
    }

    /// Deletes a resource listed by [`Api::kluster_resources`]: a volume (with its
    /// snapshots), a load balancer (with everything in it: `cascade`), a floating IP, a
    /// security group, or a route. One that is gone already is fine.
    pub(super) async fn delete_resource(&self, project: &str, id: &str) -> Result<(), CloudError> {
        let cascade = || vec![("cascade".to_string(), "true".to_string())];
        match ResourceId::parse(id) {
            Some(ResourceId::Volume(v)) => {
                let path = format!("volumes/{}", segment(&v));
                self.delete(project, Service::Volume, &path, &cascade())
                    .await
            }
            Some(ResourceId::FloatingIp(ip)) => {
                let path = format!("floatingips/{}", segment(&ip));
                self.delete(project, Service::Network, &path, &[]).await
            }
            Some(ResourceId::SecurityGroup(g)) => {
                let path = format!("security-groups/{}", segment(&g));
                self.delete(project, Service::Network, &path, &[]).await
            }
            Some(ResourceId::LoadBalancer(lb)) => {
                let path = format!("lbaas/loadbalancers/{}", segment(&lb));
                self.delete(project, Service::LoadBalancer, &path, &cascade())
                    .await
            }
            Some(ResourceId::Route {
                router,
                destination,
                nexthop,
            }) => {
                let route = Route {
                    destination,
                    nexthop,
                };
                self.remove_route(project, &router, &route).await
            }
            None => Err(CloudError::new(format!(
                "Resource {id} could not be found."
            ))),
        }
    }

    /// Whether the project's catalog has `service` in the configured region and interface.
    pub(super) async fn offers(&self, project: &str, service: Service) -> Result<bool, CloudError> {
        let scope = super::auth::Scope::Project(project.to_string());
        let session = self.session(&scope).await?;
        let c = self.config();
        Ok(session
            .catalog
            .endpoint(service, &c.region, c.interface)
            .is_ok())
    }
}

#[cfg(test)]
mod tests;
