//! OpenStack views: `GET /api/v1/openstack/metadata` and the quota extension.

use serde::{Deserialize, Serialize};

/// `GET /api/v1/openstack/metadata`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenstackMetadata {
    /// Availability zones.
    #[serde(rename = "availabilityZones")]
    pub availability_zones: Vec<Named>,
    /// Flavors.
    pub flavors: Vec<Flavor>,
    /// Security groups.
    #[serde(rename = "securityGroups")]
    pub security_groups: Vec<IdName>,
    /// Key pairs.
    #[serde(rename = "keyPairs")]
    pub key_pairs: Vec<KeyPair>,
    /// Routers with their networks and subnets.
    pub routers: Vec<Router>,
    /// Volume types.
    #[serde(rename = "volumeTypes")]
    pub volume_types: Vec<IdName>,
    /// Image names servers can boot (Mission Control's extension; a Kubernikus sends none:
    /// a pool then gets the default image).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
    /// External networks, where load balancers get floating IPs (Mission Control's
    /// extension; from a Kubernikus that sends none, the routers' gateways stand in).
    #[serde(
        default,
        rename = "externalNetworks",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub external_networks: Vec<IdName>,
}

impl OpenstackMetadata {
    /// The external networks to offer for load balancers' floating IPs: the listed ones,
    /// else each router's gateway network once (named by its id).
    pub fn floating_networks(&self) -> Vec<IdName> {
        if !self.external_networks.is_empty() {
            return self.external_networks.clone();
        }
        let mut out: Vec<IdName> = Vec::new();
        for r in &self.routers {
            let id = &r.external_network_id;
            if !id.is_empty() && !out.iter().any(|n| &n.id == id) {
                out.push(IdName {
                    name: id.clone(),
                    id: id.clone(),
                });
            }
        }
        out
    }
}

/// Something with a name only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    /// Name.
    pub name: String,
}

/// Something with an id and a name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdName {
    /// Name.
    pub name: String,
    /// Id.
    pub id: String,
}

/// A Nova flavor.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flavor {
    /// Name.
    pub name: String,
    /// Id.
    pub id: String,
    /// RAM in MiB.
    pub ram: i64,
    /// Virtual CPUs.
    pub vcpus: i64,
}

/// A Nova key pair.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyPair {
    /// Name.
    pub name: String,
    /// The public key.
    #[serde(rename = "publicKey")]
    pub public_key: String,
}

/// A Neutron router.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Router {
    /// Name.
    pub name: String,
    /// Id.
    pub id: String,
    /// External network id.
    #[serde(rename = "externalNetworkID")]
    pub external_network_id: String,
    /// Networks attached to the router.
    pub networks: Vec<Network>,
}

/// A Neutron network.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Network {
    /// Name.
    pub name: String,
    /// Id.
    pub id: String,
    /// Subnets.
    pub subnets: Vec<Subnet>,
}

/// A Neutron subnet.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subnet {
    /// Name.
    pub name: String,
    /// Id.
    pub id: String,
    /// Address range.
    #[serde(rename = "CIDR")]
    pub cidr: String,
}

/// Extension (`GET /api/v1/openstack/quota`): one quota, limit and use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// The most the project may use.
    pub limit: i64,
    /// What it uses now.
    pub used: i64,
}

impl Usage {
    /// What is left (never negative).
    pub fn remaining(&self) -> i64 {
        (self.limit - self.used).max(0)
    }
}

/// Extension (`GET /api/v1/openstack/quota`): a project's compute quota.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quota {
    /// Servers.
    pub instances: Usage,
    /// vCPUs.
    pub cores: Usage,
    /// RAM in MiB.
    pub ram: Usage,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floating_networks_are_the_listed_ones_else_the_routers_gateways() {
        let router = |ext: &str| Router {
            external_network_id: ext.into(),
            ..Default::default()
        };
        let mut m = OpenstackMetadata {
            routers: vec![
                router("ext-1"),
                router("ext-1"),
                router(""),
                router("ext-2"),
            ],
            ..Default::default()
        };
        let ids: Vec<String> = m.floating_networks().into_iter().map(|n| n.id).collect();
        assert_eq!(ids, ["ext-1", "ext-2"]);
        m.external_networks = vec![IdName {
            name: "public".into(),
            id: "ext-9".into(),
        }];
        assert_eq!(m.floating_networks()[0].name, "public");
        assert_eq!(m.floating_networks().len(), 1);
        // A Kubernikus's answer without the extension still reads.
        let json = serde_json::to_string(&OpenstackMetadata::default()).unwrap();
        assert!(!json.contains("externalNetworks"));
        let back: OpenstackMetadata = serde_json::from_str(&json).unwrap();
        assert!(back.external_networks.is_empty());
    }
}
