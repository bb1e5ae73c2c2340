//! Serde types for the swagger definitions (`reference/kubernikus-swagger.yml`).

use serde::{Deserialize, Serialize};

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

/// Lifecycle phase of a kluster.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KlusterPhase {
    /// Accepted, waiting for the ground controller.
    #[default]
    Pending,
    /// Control plane coming up.
    Creating,
    /// Ready.
    Running,
    /// Moving to a new version.
    Upgrading,
    /// Being deleted.
    Terminating,
}

/// Observed state of a kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KlusterStatus {
    /// Lifecycle phase.
    #[serde(default)]
    pub phase: KlusterPhase,
    /// Whether migrations are pending.
    #[serde(default, rename = "migrationsPending")]
    pub migrations_pending: bool,
    /// Per-pool node counts.
    #[serde(default, rename = "nodePools", skip_serializing_if = "Vec::is_empty")]
    pub node_pools: Vec<NodePoolInfo>,
    /// Apiserver URL.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub apiserver: String,
    /// Dashboard URL.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dashboard: String,
    /// Version the apiserver runs.
    #[serde(
        default,
        rename = "apiserverVersion",
        skip_serializing_if = "String::is_empty"
    )]
    pub apiserver_version: String,
    /// Helm chart name.
    #[serde(
        default,
        rename = "chartName",
        skip_serializing_if = "String::is_empty"
    )]
    pub chart_name: String,
    /// Helm chart version.
    #[serde(
        default,
        rename = "chartVersion",
        skip_serializing_if = "String::is_empty"
    )]
    pub chart_version: String,
    /// Wormhole URL.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub wormhole: String,
    /// Running Kubernetes version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Spec generation the status reflects.
    #[serde(default, rename = "specVersion")]
    pub spec_version: i64,
    /// Extension (not in the Kubernikus spec): why the kluster is stuck, e.g. creation timed
    /// out; empty while all is well.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

/// Node counts of one pool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodePoolInfo {
    /// Pool name.
    pub name: String,
    /// Desired size.
    pub size: i64,
    /// Running (and starting) servers.
    pub running: i64,
    /// Nodes that are Ready.
    pub healthy: i64,
    /// Nodes that are not cordoned.
    pub schedulable: i64,
}

/// Extension (the controller's event stream): an event of a project with its identity.
/// `id` names the event (an aggregated repeat keeps it); `seq` grows with every change, so a
/// reader resumes after the last `seq` it saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectEvent {
    /// Stable id of the (aggregated) event.
    pub id: i64,
    /// Change sequence number, monotonic across the controller.
    pub seq: i64,
    /// The kluster the event is about.
    pub kluster: String,
    /// The event in the Kubernikus shape.
    #[serde(flatten)]
    pub event: Event,
}

/// A Kubernetes-style event about a kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// How often it occurred.
    pub count: i64,
    /// Most recent occurrence (RFC 3339).
    #[serde(rename = "lastTimestamp")]
    pub last_timestamp: String,
    /// First occurrence (RFC 3339).
    #[serde(rename = "firstTimestamp")]
    pub first_timestamp: String,
    /// Machine-readable reason, e.g. `FailedCreateNode`.
    pub reason: String,
    /// Human-readable message.
    pub message: String,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Extension: what the event is about, in a word a client can act on (e.g.
    /// `QuotaExceeded` on a `FailedCreateNode`); absent from a real Kubernikus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<crate::event::EventDetail>,
}

/// `GET /info`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// Build version.
    #[serde(rename = "gitVersion")]
    pub git_version: String,
    /// Version used when a create request names none.
    #[serde(rename = "defaultClusterVersion")]
    pub default_cluster_version: String,
    /// Versions klusters may run.
    #[serde(
        default,
        rename = "supportedClusterVersions",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub supported_cluster_versions: Vec<String>,
    /// Versions new klusters may be created with.
    #[serde(
        default,
        rename = "availableClusterVersions",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub available_cluster_versions: Vec<String>,
}

/// `GET /api/v1/clusters/{name}/info`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KlusterInfo {
    /// `kubernikusctl auth init …` command.
    #[serde(rename = "setupCommand")]
    pub setup_command: String,
    /// Download links of client binaries.
    pub binaries: Vec<Binaries>,
}

/// Download links of one client binary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binaries {
    /// Binary name.
    pub name: String,
    /// One link per platform.
    pub links: Vec<Link>,
}

/// A platform's download link.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// e.g. linux.
    pub platform: String,
    /// URL.
    pub link: String,
}

/// `GET /api`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiVersions {
    /// Available API versions.
    pub versions: Vec<String>,
}

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

/// `GET /api/v1/clusters/{name}/credentials` (and `/oidc`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    /// Kubeconfig YAML.
    pub kubeconfig: String,
}

/// `GET /api/v1/clusters/{name}/bootstrap`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootstrapConfig {
    /// Bootstrap kubeconfig.
    pub kubeconfig: String,
    /// CA of kubelet clients (PEM).
    #[serde(rename = "kubeletClientsCA")]
    pub kubelet_clients_ca: String,
    /// Path of that CA on the node.
    #[serde(rename = "kubeletClientsCAFile")]
    pub kubelet_clients_ca_file: String,
    /// Kubelet configuration.
    pub config: String,
}

/// `GET /api/v1/clusters/{name}/kubeadmsecret`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubeadmSecret {
    /// The secret.
    pub secret: String,
}

/// The authenticated caller.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principal {
    /// User name.
    pub name: String,
    /// User id.
    pub id: String,
    /// User's domain name.
    pub domain: String,
    /// Project id.
    pub account: String,
    /// Project name.
    pub account_name: String,
    /// Roles on the project.
    pub roles: Vec<String>,
    /// Groups of the user.
    #[serde(default)]
    pub groups: Vec<String>,
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
