//! The kluster as the user asks for it: [`Kluster`], its spec, OpenStack resources, node pools.

use serde::{Deserialize, Serialize};

use super::status::KlusterStatus;

/// A Kubernetes cluster managed by Kubernikus.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kluster {
    /// Name of the cluster: `^[a-z]([-a-z0-9]*[a-z0-9])?$`, at most 20 characters.
    pub name: String,
    /// Extension (our controller only): identity and version; `None` from a real
    /// Kubernikus. Read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<crate::KlusterMetadata>,
    /// What the user asked for.
    #[serde(default)]
    pub spec: KlusterSpec,
    /// What the controllers observed (read-only for clients).
    #[serde(default)]
    pub status: KlusterStatus,
}

/// The desired state of a kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KlusterSpec {
    /// OpenStack resources the kluster lives in.
    #[serde(default)]
    pub openstack: OpenstackSpec,
    /// Audit log sink: elasticsearch, swift, http or stdout; `null` for none.
    #[serde(default)]
    pub audit: Option<String>,
    /// A kluster without OpenStack integration.
    #[serde(default, rename = "noCloud", skip_serializing_if = "is_false")]
    pub no_cloud: bool,
    /// Deploy the Kubernetes dashboard.
    #[serde(default)]
    pub dashboard: Option<bool>,
    /// Deploy dex (OIDC).
    #[serde(default)]
    pub dex: Option<bool>,
    /// CIDR range for services. Cannot be updated.
    #[serde(default, rename = "serviceCIDR")]
    pub service_cidr: String,
    /// CIDR range for pods (may be empty only with `noCloud`). Cannot be updated.
    #[serde(
        default,
        rename = "clusterCIDR",
        skip_serializing_if = "Option::is_none"
    )]
    pub cluster_cidr: Option<String>,
    /// Node pools.
    #[serde(default, rename = "nodePools", skip_serializing_if = "Vec::is_empty")]
    pub node_pools: Vec<NodePool>,
    /// Address the apiserver advertises.
    #[serde(default, rename = "advertiseAddress")]
    pub advertise_address: String,
    /// Port the apiserver advertises.
    #[serde(default, rename = "advertisePort")]
    pub advertise_port: i64,
    /// Cluster DNS service address (inside the service CIDR).
    #[serde(
        default,
        rename = "dnsAddress",
        skip_serializing_if = "String::is_empty"
    )]
    pub dns_address: String,
    /// Cluster DNS domain.
    #[serde(default, rename = "dnsDomain")]
    pub dns_domain: String,
    /// SSH public key injected into nodes (at most 10000 characters).
    #[serde(
        default,
        rename = "sshPublicKey",
        skip_serializing_if = "String::is_empty"
    )]
    pub ssh_public_key: String,
    /// Kubernetes version (semver).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Legacy: empty or equal to the kluster's name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Etcd backup: on, off or externalAWS.
    #[serde(default)]
    pub backup: String,
    /// The user brings their own CNI.
    #[serde(default, rename = "customCNI")]
    pub custom_cni: bool,
    /// Control plane via kubeadm on the seed.
    #[serde(default, rename = "seedKubeadm", skip_serializing_if = "is_false")]
    pub seed_kubeadm: bool,
    /// Virtual control plane on the seed.
    #[serde(default, rename = "seedVirtual", skip_serializing_if = "is_false")]
    pub seed_virtual: bool,
    /// Deprecated OIDC settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oidc: Option<Oidc>,
    /// Structured authentication configuration (YAML).
    #[serde(
        default,
        rename = "authenticationConfiguration",
        skip_serializing_if = "Option::is_none"
    )]
    pub authentication_configuration: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Deprecated OIDC settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Oidc {
    /// Issuer URL.
    #[serde(default, rename = "issuerURL")]
    pub issuer_url: String,
    /// Client id.
    #[serde(default, rename = "clientID")]
    pub client_id: String,
}

/// OpenStack resources of a kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenstackSpec {
    /// Neutron router id.
    #[serde(default, rename = "routerID", skip_serializing_if = "String::is_empty")]
    pub router_id: String,
    /// Neutron network id.
    #[serde(
        default,
        rename = "networkID",
        skip_serializing_if = "String::is_empty"
    )]
    pub network_id: String,
    /// Subnet for load balancers.
    #[serde(
        default,
        rename = "lbSubnetID",
        skip_serializing_if = "String::is_empty"
    )]
    pub lb_subnet_id: String,
    /// Floating IP network for load balancers.
    #[serde(
        default,
        rename = "lbFloatingNetworkID",
        skip_serializing_if = "String::is_empty"
    )]
    pub lb_floating_network_id: String,
    /// Security group of the nodes.
    #[serde(
        default,
        rename = "securityGroupName",
        skip_serializing_if = "String::is_empty"
    )]
    pub security_group_name: String,
}

/// A group of identical nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodePool {
    /// Pool name: `^[a-z0-9]([-\.a-z0-9]*)?$`, at most 20 characters.
    pub name: String,
    /// Number of nodes, 0–127.
    #[serde(default)]
    pub size: i64,
    /// Nova flavor name.
    pub flavor: String,
    /// Glance image name.
    #[serde(default)]
    pub image: String,
    /// Availability zone.
    #[serde(rename = "availabilityZone")]
    pub availability_zone: String,
    /// Cinder root disk size in GB, 64–1024.
    #[serde(
        default,
        rename = "customRootDiskSize",
        skip_serializing_if = "Option::is_none"
    )]
    pub custom_root_disk_size: Option<i64>,
    /// Taints `key=value:Effect` added at registration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<String>,
    /// Labels `key=value` added at registration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// Reboot/replace policy.
    #[serde(default)]
    pub config: Option<NodePoolConfig>,
}

/// Node pool maintenance policy.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodePoolConfig {
    /// Allow automatic drain and reboot of nodes.
    #[serde(default, rename = "allowReboot")]
    pub allow_reboot: Option<bool>,
    /// Allow automatic drain and replacement of nodes.
    #[serde(default, rename = "allowReplace")]
    pub allow_replace: Option<bool>,
}
