//! What the cloud controller manager makes for a `LoadBalancer` service beside its load
//! balancer, and says so in the description: a floating IP ("Floating IP for Kubernetes
//! external service <ns>/<svc> from cluster <cluster>") and, where it manages security
//! groups, a group on the nodes' ports ("Security Group for <ns>/<svc> Service
//! LoadBalancer in cluster <cluster>"). Deleting the load balancer leaves both (the address
//! allocated and billed), so each is a resource of the kluster of its own. What a tenant
//! made and handed to a service (a reserved `loadBalancerIP`, a group of their own) has no
//! such words and is never listed: Neutron detaches such an address when the load
//! balancer's port goes.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::cloud::openstack::catalog::Service;
use crate::cloud::openstack::http::Api;
use crate::cloud::openstack::network::pairs;
use crate::cloud::owner::split_cluster_name;
use crate::cloud::{CloudError, Resource, ResourceKind};

use super::ResourceId;

/// How the cloud controller manager's description of a floating IP begins, and what comes
/// before the cluster's name.
const ADDRESS: (&str, &str) = (
    "Floating IP for Kubernetes external service ",
    " from cluster ",
);
/// The same for a security group.
const GROUP: (&str, &str) = ("Security Group for ", " Service LoadBalancer in cluster ");

#[derive(Deserialize)]
struct FloatingIp {
    id: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    floating_ip_address: String,
    #[serde(default)]
    status: String,
}

#[derive(Deserialize)]
struct SecurityGroup {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
}

/// The cluster name at the end of `description` when it has the cloud controller
/// manager's form `(start, before)` (kluster names have no spaces).
fn named<'a>(description: &'a str, (start, before): (&str, &str)) -> Option<&'a str> {
    let rest = description.strip_prefix(start)?;
    let (_, kluster) = rest.rsplit_once(before)?;
    (!kluster.is_empty() && !kluster.contains(char::is_whitespace)).then_some(kluster)
}

/// The cluster name of the kluster a floating IP was made for, from its description.
pub fn address_kluster(description: &str) -> Option<&str> {
    named(description, ADDRESS)
}

/// The cluster name of the kluster a security group was made for, from its description.
pub fn group_kluster(description: &str) -> Option<&str> {
    named(description, GROUP)
}

impl Api {
    /// The project's floating IPs made for klusters' services.
    pub(super) async fn kluster_addresses(
        &self,
        project: &str,
    ) -> Result<Vec<Resource>, CloudError> {
        self.made_for_klusters(project, "floatingips", "floatingips", |ip: FloatingIp| {
            let mark = split_cluster_name(address_kluster(&ip.description)?);
            Some(Resource {
                kluster: mark.name,
                uid: mark.uid,
                id: ResourceId::FloatingIp(ip.id).encode(),
                kind: ResourceKind::FloatingIp,
                name: ip.floating_ip_address,
                deleting: ip.status == "DELETING",
            })
        })
        .await
    }

    /// The project's security groups made for klusters' services.
    pub(super) async fn kluster_security_groups(
        &self,
        project: &str,
    ) -> Result<Vec<Resource>, CloudError> {
        let path = "security-groups";
        self.made_for_klusters(project, path, "security_groups", |g: SecurityGroup| {
            let mark = split_cluster_name(group_kluster(&g.description)?);
            Some(Resource {
                kluster: mark.name,
                uid: mark.uid,
                id: ResourceId::SecurityGroup(g.id).encode(),
                kind: ResourceKind::SecurityGroup,
                name: g.name,
                deleting: false,
            })
        })
        .await
    }

    /// The project's Neutron `path` listing (items under `key`), each item that `made`
    /// finds a kluster's as that resource.
    async fn made_for_klusters<T: DeserializeOwned>(
        &self,
        project: &str,
        path: &str,
        key: &str,
        made: impl Fn(T) -> Option<Resource>,
    ) -> Result<Vec<Resource>, CloudError> {
        let query = pairs("project_id", [project]);
        let items: Vec<T> = self
            .list(project, Service::Network, path, query, key)
            .await?;
        Ok(items.into_iter().filter_map(made).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::{address_kluster, group_kluster};

    #[test]
    fn only_the_cloud_controller_managers_words_name_a_kluster() {
        let ccm = "Floating IP for Kubernetes external service default/web from cluster prod";
        assert_eq!(address_kluster(ccm), Some("prod"));
        assert_eq!(address_kluster("my address from cluster prod"), None);
        assert_eq!(
            address_kluster("Floating IP for Kubernetes external service x"),
            None
        );
        let spaced = "Floating IP for Kubernetes external service a from cluster two words";
        assert_eq!(address_kluster(spaced), None);
        let group = "Security Group for default/web Service LoadBalancer in cluster prod";
        assert_eq!(group_kluster(group), Some("prod"));
        assert_eq!(group_kluster("Security Group for prod"), None);
        assert_eq!(group_kluster(ccm), None);
    }
}
