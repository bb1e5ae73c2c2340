//! Admission against the cloud's catalog, without I/O: every pool's flavor, availability
//! zone and image must exist, and the router, network and load-balancer subnet a request
//! names must exist and belong together. A refusal names each field's path and the valid
//! choices (`spec.nodePools[0].flavor: m1.huge is not a flavor of this cloud; choose one of
//! …`), joined by `; ` like the schema's messages.

use std::time::Duration;

use axum::http::StatusCode;
use kluster::{Kluster, NodePool, OpenstackMetadata, Router};

use super::{ApiError, ApiState};

/// What the cloud offers a project: its metadata and the images servers can boot.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Flavors, zones, routers with networks and subnets.
    pub meta: OpenstackMetadata,
    /// Image names.
    pub images: Vec<String>,
    /// Static routes on the project's routers (pod ranges must not overlap them).
    pub routes: Vec<crate::cloud::RouterRoute>,
}

/// How long admission waits for the cloud's catalog.
const WAIT: Duration = Duration::from_secs(10);

impl Catalog {
    /// Reads the project's catalog from the cloud; 502/504 in words when it cannot.
    pub async fn of(st: &ApiState, project: &str) -> Result<Catalog, ApiError> {
        let read = async {
            let (meta, images, routes) = tokio::join!(
                st.cloud.metadata(project),
                st.cloud.images(project),
                st.cloud.routes(project)
            );
            Ok::<_, crate::cloud::CloudError>(Catalog {
                meta: meta?,
                images: images?,
                routes: routes?,
            })
        };
        match tokio::time::timeout(WAIT, read).await {
            Ok(Ok(c)) => Ok(c),
            Ok(Err(e)) => Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                format!("The cloud's catalog (flavors, zones, images, networks) cannot be read to check the request: {e}; try again shortly"),
            )),
            Err(_) => Err(ApiError::new(
                StatusCode::GATEWAY_TIMEOUT,
                "The cloud did not say within 10 seconds which flavors, zones, images and networks exist; try again shortly",
            )),
        }
    }

    /// The violations of pool `p` (at `spec.nodePools[i]`); an empty image is the default.
    fn pool(&self, i: usize, p: &NodePool, errs: &mut Vec<String>) {
        let at = format!("spec.nodePools[{i}]");
        let flavors: Vec<&str> = self.meta.flavors.iter().map(|f| f.name.as_str()).collect();
        if !flavors.contains(&p.flavor.as_str()) {
            errs.push(unknown(
                &format!("{at}.flavor"),
                &p.flavor,
                "a flavor of this cloud",
                &flavors,
            ));
        }
        let zones: Vec<&str> = self
            .meta
            .availability_zones
            .iter()
            .map(|z| z.name.as_str())
            .collect();
        if !zones.contains(&p.availability_zone.as_str()) {
            let what = "an availability zone of this cloud";
            errs.push(unknown(
                &format!("{at}.availabilityZone"),
                &p.availability_zone,
                what,
                &zones,
            ));
        }
        let image = if p.image.is_empty() {
            kluster::defaults::IMAGE
        } else {
            p.image.as_str()
        };
        let images: Vec<&str> = self.images.iter().map(String::as_str).collect();
        if !images.contains(&image) {
            errs.push(unknown(
                &format!("{at}.image"),
                image,
                "an image of this cloud",
                &images,
            ));
        }
    }

    /// The violations of the router, network and subnet `k` names (empty ones are found
    /// later, when exactly one fits).
    fn network(&self, k: &Kluster, errs: &mut Vec<String>) {
        let os = &k.spec.openstack;
        let routers: Vec<&Router> = if os.router_id.is_empty() {
            self.meta.routers.iter().collect()
        } else {
            match self.meta.routers.iter().find(|r| r.id == os.router_id) {
                Some(r) => vec![r],
                None => {
                    let all: Vec<String> = self
                        .meta
                        .routers
                        .iter()
                        .map(|r| named(&r.id, &r.name))
                        .collect();
                    errs.push(unknown_of(
                        "spec.openstack.routerID",
                        &os.router_id,
                        "a router of this project",
                        &all,
                    ));
                    return;
                }
            }
        };
        let networks: Vec<&kluster::Network> = routers.iter().flat_map(|r| &r.networks).collect();
        let of_router = if os.router_id.is_empty() {
            "a network of this project's routers".to_string()
        } else {
            format!("a network of router {}", os.router_id)
        };
        let networks = if os.network_id.is_empty() {
            networks
        } else {
            match networks.iter().find(|n| n.id == os.network_id) {
                Some(n) => vec![*n],
                None => {
                    let all: Vec<String> = networks.iter().map(|n| named(&n.id, &n.name)).collect();
                    errs.push(unknown_of(
                        "spec.openstack.networkID",
                        &os.network_id,
                        &of_router,
                        &all,
                    ));
                    return;
                }
            }
        };
        if os.lb_subnet_id.is_empty() {
            return;
        }
        let subnets: Vec<&kluster::Subnet> = networks.iter().flat_map(|n| &n.subnets).collect();
        if !subnets.iter().any(|s| s.id == os.lb_subnet_id) {
            let of = if !os.network_id.is_empty() {
                format!("a subnet of network {}", os.network_id)
            } else if !os.router_id.is_empty() {
                format!("a subnet of router {}'s networks", os.router_id)
            } else {
                "a subnet of this project's networks".to_string()
            };
            let all: Vec<String> = subnets.iter().map(|s| named(&s.id, &s.name)).collect();
            errs.push(unknown_of(
                "spec.openstack.lbSubnetID",
                &os.lb_subnet_id,
                &of,
                &all,
            ));
        }
    }

    /// The violation of the security group `k` names (empty: `default`).
    fn security_group(&self, k: &Kluster, errs: &mut Vec<String>) {
        let group = k.spec.openstack.security_group_name.as_str();
        let groups: Vec<&str> = self
            .meta
            .security_groups
            .iter()
            .map(|g| g.name.as_str())
            .collect();
        if !group.is_empty() && !groups.contains(&group) {
            let what = "a security group of this project";
            errs.push(unknown(
                "spec.openstack.securityGroupName",
                group,
                what,
                &groups,
            ));
        }
    }

    /// The violation of the load balancers' floating network `k` names (empty: the
    /// router's external network).
    fn floating_network(&self, k: &Kluster, errs: &mut Vec<String>) {
        let id = k.spec.openstack.lb_floating_network_id.as_str();
        let networks = self.meta.floating_networks();
        if !id.is_empty() && !networks.iter().any(|n| n.id == id) {
            let all: Vec<String> = networks.iter().map(|n| named(&n.id, &n.name)).collect();
            errs.push(unknown_of(
                "spec.openstack.lbFloatingNetworkID",
                id,
                "an external network of this cloud",
                &all,
            ));
        }
    }
}

/// Checks new kluster `k` against `catalog`: 422 naming every wrong field and its choices.
pub fn check_new(k: &Kluster, catalog: &Catalog) -> Result<(), ApiError> {
    let mut errs = Vec::new();
    for (i, p) in k.spec.node_pools.iter().enumerate() {
        catalog.pool(i, p, &mut errs);
    }
    if !k.spec.no_cloud {
        catalog.network(k, &mut errs);
        catalog.security_group(k, &mut errs);
        catalog.floating_network(k, &mut errs);
    }
    refuse(errs)
}

/// Whether updating `current` to `request` needs the catalog: it adds a pool or names
/// another security group.
pub fn update_needs_catalog(current: &Kluster, request: &Kluster) -> bool {
    let (cur, req) = (&current.spec, &request.spec);
    let adds_pool = req
        .node_pools
        .iter()
        .any(|p| !cur.node_pools.iter().any(|o| o.name == p.name));
    let group = &req.openstack.security_group_name;
    adds_pool || (!cur.no_cloud && !group.is_empty() && *group != cur.openstack.security_group_name)
}

/// Checks what an update changes that the cloud must have: the pools of `next` that
/// `current` does not have, and a security group other than the current one.
pub fn check_update(current: &Kluster, next: &Kluster, catalog: &Catalog) -> Result<(), ApiError> {
    let mut errs = Vec::new();
    for (i, p) in next.spec.node_pools.iter().enumerate() {
        if !current.spec.node_pools.iter().any(|o| o.name == p.name) {
            catalog.pool(i, p, &mut errs);
        }
    }
    let group = &next.spec.openstack.security_group_name;
    if !next.spec.no_cloud && *group != current.spec.openstack.security_group_name {
        catalog.security_group(next, &mut errs);
    }
    refuse(errs)
}

fn refuse(errs: Vec<String>) -> Result<(), ApiError> {
    if errs.is_empty() {
        Ok(())
    } else {
        Err(ApiError::unprocessable(errs.join("; ")))
    }
}

/// `field: value is not what; choose one of a, b` (or: there is none).
fn unknown(field: &str, value: &str, what: &str, choices: &[&str]) -> String {
    let choices: Vec<String> = choices.iter().map(|c| c.to_string()).collect();
    unknown_of(field, value, what, &choices)
}

fn unknown_of(field: &str, value: &str, what: &str, choices: &[String]) -> String {
    if choices.is_empty() {
        format!("{field}: {value:?} is not {what}, and there is none to choose from")
    } else {
        format!(
            "{field}: {value:?} is not {what}; choose one of {}",
            choices.join(", ")
        )
    }
}

/// `id (name)`, or the id alone when the name says nothing more.
fn named(id: &str, name: &str) -> String {
    if name.is_empty() || name == id {
        id.to_string()
    } else {
        format!("{id} ({name})")
    }
}

#[cfg(test)]
mod tests;
