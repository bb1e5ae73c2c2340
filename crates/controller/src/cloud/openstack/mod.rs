//! A real OpenStack behind the [`Cloud`] trait: Nova, Neutron, Glance, Cinder and Octavia,
//! called with a token per kluster project that the controller's service user gets from
//! Keystone by password (it needs a role on every kluster's project).
//!
//! [`config`] (settings; `Debug` hides the password), [`catalog`] (endpoints by service
//! type, region and interface), [`auth`] (a token per project, renewed with the same scope
//! before expiry or on a 401), [`http`] (timeouts, retries of GETs, OpenStack's error
//! bodies, pagination), [`compute`] (Nova and Glance), [`boot`] (new servers), [`network`]
//! (Neutron), [`resources`] (volumes, load balancers and routes klusters left) and
//! [`identity`] (klusters' own Keystone users, when a domain for them is configured).
//!
//! Servers carry no node state: on a real cloud that comes from the kluster's own
//! Kubernetes API, which this provider does not read.

pub mod auth;
pub mod boot;
pub mod catalog;
pub mod compute;
pub mod config;
pub mod failure;
pub mod http;
pub mod identity;
pub mod images;
pub mod microversion;
pub mod network;
pub mod pages;
pub mod resources;
pub mod retries;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use kluster::OpenstackMetadata;
use time::OffsetDateTime;

use super::{
    BoxFuture, Cloud, CloudError, KlusterUser, Owner, PodRange, Quota, Resource, Server,
    ServerBrief, ServerSpec,
};
use auth::Scope;
use catalog::Service;
use http::Api;

pub use boot::Placement;
pub use config::{Interface, OpenStackConfig};

/// The OpenStack provider. Cheap to clone; clones share tokens and connections.
#[derive(Clone, Debug)]
pub struct OpenStackCloud {
    api: Arc<Api>,
}

impl OpenStackCloud {
    /// A provider for `config`; nothing is called until the first request.
    pub fn new(config: OpenStackConfig) -> Result<Self, CloudError> {
        Ok(OpenStackCloud {
            api: Arc::new(Api::new(config)?),
        })
    }

    /// Signs in to the service user's own project and checks that its catalog has every
    /// service the provider needs (Nova, Neutron, Glance required; Cinder and Octavia
    /// reported when missing), for a start-up check.
    pub async fn verify(&self) -> Result<(), CloudError> {
        let session = self.api.session(&Scope::Service).await?;
        let c = self.api.config();
        for service in [Service::Compute, Service::Network, Service::Image] {
            session.catalog.endpoint(service, &c.region, c.interface)?;
        }
        for service in [Service::Volume, Service::LoadBalancer] {
            if let Err(e) = session.catalog.endpoint(service, &c.region, c.interface) {
                tracing::warn!(error = %e, "OpenStack: {} is not available", service.label());
            }
        }
        Ok(())
    }

    /// Boots `spec` in `placement`'s network and security group (or the defaults: the
    /// project's only network behind a router with an external gateway, and the configured
    /// security group). [`Cloud::create_server`] takes them from the spec.
    pub async fn create_server_with(
        &self,
        project: &str,
        spec: &ServerSpec,
        placement: &Placement,
    ) -> Result<Server, CloudError> {
        let network = match placement.network_id.as_deref().filter(|n| !n.is_empty()) {
            Some(n) => n.to_string(),
            None => self.api.default_network(project).await?,
        };
        let group = placement
            .security_group
            .as_deref()
            .filter(|g| !g.is_empty())
            .unwrap_or(&self.api.config().security_group);
        self.api.boot(project, spec, &network, group).await
    }
}

impl Cloud for OpenStackCloud {
    /// Nova knows servers, not nodes: their health is unknown here.
    fn node_source(&self) -> super::NodeSource {
        super::NodeSource::Unknown
    }

    fn check(&self) -> BoxFuture<'_, Result<(), CloudError>> {
        Box::pin(self.verify())
    }

    fn metadata<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<OpenstackMetadata, CloudError>> {
        Box::pin(async move {
            let api = &self.api;
            let volume_types = async {
                match api.offers(project, Service::Volume).await? {
                    true => api.volume_types(project).await,
                    false => Ok(Vec::new()),
                }
            };
            let neutron_and_cinder = async {
                tokio::try_join!(
                    api.router_tree(project),
                    api.security_groups(project),
                    volume_types,
                    api.external_networks(project)
                )
            };
            let (flavors, zones, key_pairs, (routers, groups, types, external)) = tokio::try_join!(
                api.flavors(project),
                api.zones(project),
                api.key_pairs(project),
                neutron_and_cinder
            )?;
            Ok(OpenstackMetadata {
                availability_zones: zones
                    .into_iter()
                    .map(|name| kluster::Named { name })
                    .collect(),
                flavors: flavors
                    .into_iter()
                    .map(|f| kluster::Flavor {
                        name: f.name,
                        id: f.id,
                        ram: f.ram,
                        vcpus: f.vcpus,
                    })
                    .collect(),
                security_groups: groups,
                key_pairs,
                routers,
                volume_types: types,
                // The API adds `Cloud::images` to the answer.
                images: Vec::new(),
                external_networks: external,
            })
        })
    }

    fn routers<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<kluster::Router>, CloudError>> {
        Box::pin(self.api.router_tree(project))
    }

    fn images<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<String>, CloudError>> {
        Box::pin(self.api.image_names(project))
    }

    fn quota<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Quota, CloudError>> {
        Box::pin(self.api.quota(project))
    }

    fn servers<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<Server>, CloudError>> {
        Box::pin(async move {
            let now = OffsetDateTime::now_utc();
            let all = self.api.nova_servers(project).await?;
            Ok(all.iter().filter_map(|s| s.to_server(now)).collect())
        })
    }

    fn server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Server>, CloudError>> {
        Box::pin(async move {
            let now = OffsetDateTime::now_utc();
            let found = self.api.nova_server(project, id).await?;
            Ok(found.and_then(|s| s.to_server(now)))
        })
    }

    fn changed_since<'a>(
        &'a self,
        project: &'a str,
        since: OffsetDateTime,
    ) -> BoxFuture<'a, Result<Option<Vec<String>>, CloudError>> {
        Box::pin(async move { self.api.changed_since(project, since).await.map(Some) })
    }

    fn kluster_servers_brief<'a>(
        &'a self,
        project: &'a str,
        owner: Owner<'a>,
    ) -> BoxFuture<'a, Result<Vec<ServerBrief>, CloudError>> {
        Box::pin(self.api.kluster_servers_brief(project, owner.uid))
    }

    fn create_server<'a>(
        &'a self,
        project: &'a str,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Server, CloudError>> {
        Box::pin(async move {
            let placement = Placement {
                network_id: Some(spec.network_id.clone()),
                security_group: Some(spec.security_group.clone()),
            };
            self.create_server_with(project, spec, &placement).await
        })
    }

    fn start_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(self.api.start_server(project, id))
    }

    fn delete_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(async move {
            let path = format!("servers/{}", compute::segment(id));
            self.api.delete(project, Service::Compute, &path, &[]).await
        })
    }

    fn resources<'a>(
        &'a self,
        project: &'a str,
        ranges: &'a [PodRange],
    ) -> BoxFuture<'a, Result<Vec<Resource>, CloudError>> {
        Box::pin(self.api.kluster_resources(project, ranges))
    }

    fn routes<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<crate::cloud::RouterRoute>, CloudError>> {
        Box::pin(async move {
            let routers = self.api.routers(project).await?;
            // Only routers klusters can use (with an external gateway, as in the metadata).
            Ok(routers
                .into_iter()
                .filter(|r| r.external_network().is_some())
                .flat_map(|r| {
                    r.routes
                        .into_iter()
                        .map(move |route| crate::cloud::RouterRoute {
                            router: r.id.clone(),
                            destination: route.destination,
                            nexthop: route.nexthop,
                        })
                })
                .collect())
        })
    }

    fn delete_resource<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(self.api.delete_resource(project, id))
    }

    fn kluster_user_domain(&self) -> Option<&str> {
        Some(self.api.config().kluster_user_domain.as_str()).filter(|d| !d.is_empty())
    }

    fn ensure_kluster_user<'a>(
        &'a self,
        project: &'a str,
        user: &'a KlusterUser,
    ) -> BoxFuture<'a, Result<String, CloudError>> {
        Box::pin(self.api.ensure_kluster_user(project, user))
    }

    fn delete_kluster_user<'a>(
        &'a self,
        project: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(self.api.delete_kluster_user(project, name))
    }
}
