//! The floating IPs of klusters' services. The cloud controller manager makes one per
//! `LoadBalancer` service and says so in its description ("Floating IP for Kubernetes
//! external service <ns>/<svc> from cluster <cluster>"); deleting the load balancer
//! leaves it allocated and billed, so it is a resource of the kluster of its own. An
//! address the tenant allocated and handed to a service (`loadBalancerIP`) carries no such
//! words and is never listed: Neutron detaches it when the load balancer's port goes.

use serde::Deserialize;

use crate::cloud::openstack::catalog::Service;
use crate::cloud::openstack::http::Api;
use crate::cloud::{CloudError, Resource, ResourceKind};

use super::ResourceId;

/// How the cloud controller manager's description of a floating IP begins.
const FIP_DESCRIPTION: &str = "Floating IP for Kubernetes external service ";

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

/// The kluster a floating IP was made for, from its description (kluster names have no
/// spaces).
pub fn address_kluster(description: &str) -> Option<&str> {
    let rest = description.strip_prefix(FIP_DESCRIPTION)?;
    let (_, kluster) = rest.rsplit_once(" from cluster ")?;
    (!kluster.is_empty() && !kluster.contains(char::is_whitespace)).then_some(kluster)
}

impl Api {
    /// The project's floating IPs made for klusters' services.
    pub(super) async fn kluster_addresses(
        &self,
        project: &str,
    ) -> Result<Vec<Resource>, CloudError> {
        let query = vec![("project_id".to_string(), project.to_string())];
        let ips: Vec<FloatingIp> = self
            .list(
                project,
                Service::Network,
                "floatingips",
                query,
                "floatingips",
            )
            .await?;
        Ok(ips
            .into_iter()
            .filter_map(|ip| {
                let kluster = address_kluster(&ip.description)?.to_string();
                Some(Resource {
                    id: ResourceId::FloatingIp(ip.id).encode(),
                    kluster,
                    kind: ResourceKind::FloatingIp,
                    name: ip.floating_ip_address,
                    deleting: ip.status == "DELETING",
                })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::address_kluster;

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
    }
}
