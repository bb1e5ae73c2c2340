//! What the cloud answers and is asked for: servers (their spec, status and what is known
//! of their nodes), load balancers, volumes and routes left by a kluster's workloads, and
//! the pod ranges that make a route a kluster's.

use std::time::Duration;

use super::KlusterUser;

/// A server to boot for a node pool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerSpec {
    /// `kks-<kluster>-<pool>-<5 random chars>`.
    pub name: String,
    /// The kluster it belongs to (server metadata in Nova).
    pub kluster: String,
    /// That kluster's uid (metadata and tag `kluster_uid`: [`owner`]).
    pub uid: String,
    /// Flavor name.
    pub flavor: String,
    /// Image name.
    pub image: String,
    /// Availability zone.
    pub availability_zone: String,
    /// Neutron network id (the kluster's `spec.openstack.networkID`); empty: the provider
    /// finds one. The simulator ignores it.
    pub network_id: String,
    /// Security group name (the kluster's `spec.openstack.securityGroupName`); empty: the
    /// provider's default. The simulator ignores it.
    pub security_group: String,
    /// User data handed to the server at boot (cloud-config, plain text; the provider
    /// encodes it). The simulator ignores it.
    pub user_data: String,
    /// Who boots it: the kluster's own user, or (`None`) the provider's service user.
    pub user: Option<KlusterUser>,
}

/// Nova's server status, as far as the controller cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ServerStatus {
    /// Booting.
    Build,
    /// Up.
    Active,
    /// Failed; it will never come up (Nova's reason in [`Server::fault`]).
    Error,
    /// Exists but is not running: SHUTOFF, SUSPENDED, PAUSED, SHELVED (someone stopped it,
    /// or the host did); a start may bring it back.
    Stopped,
    /// Being deleted.
    Deleting,
}

/// The Kubernetes node a server registered as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeState {
    /// The node reports Ready.
    pub ready: bool,
    /// The node is cordoned (unschedulable).
    pub cordoned: bool,
}

/// Where the controller learns whether a server's Kubernetes node is up: the seam between
/// provisioning (the cloud) and node health (the kluster's own API).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NodeSource {
    /// The cloud's listing carries each server's node ([`Server::node`]); `None` there
    /// means the server has not registered (the simulator).
    #[default]
    Servers,
    /// Nothing reports nodes: on a real cloud their health comes from the kluster's
    /// Kubernetes API (Node objects: Ready, unschedulable), which the controller does not
    /// read yet. A server is never taken for unregistered, nor its node for healthy.
    Unknown,
}

/// What is known about one server's node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKnowledge {
    /// It registered, in this state.
    Known(NodeState),
    /// It has not registered (yet).
    NotRegistered,
    /// Nobody can tell.
    Unknown,
}

impl NodeSource {
    /// What this source knows about `server`'s node.
    pub fn node(self, server: &Server) -> NodeKnowledge {
        match (self, server.node) {
            (NodeSource::Unknown, _) => NodeKnowledge::Unknown,
            (NodeSource::Servers, Some(n)) => NodeKnowledge::Known(n),
            (NodeSource::Servers, None) => NodeKnowledge::NotRegistered,
        }
    }
}

/// A server as the cloud lists it, with its node when it has registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// Server id.
    pub id: String,
    /// Server name.
    pub name: String,
    /// The kluster it belongs to: the name its metadata carries, as the provider lists it;
    /// the reconciler's claim (`reconcile::claim`) leaves it only on a server the kluster
    /// owns, and empties it on any other.
    pub kluster: String,
    /// The kluster uid its metadata carries (`None`: only a bare name).
    pub uid: Option<String>,
    /// Status.
    pub status: ServerStatus,
    /// The node, once registered, when the cloud reports nodes at all (see
    /// [`Cloud::node_source`]; read it through [`NodeSource::node`]).
    pub node: Option<NodeState>,
    /// Time since the server was created.
    pub age: Duration,
    /// Why it failed, in the cloud's words (Nova's `fault.message`), for one in ERROR.
    pub fault: Option<String>,
}

/// A server as a brief listing names it ([`Cloud::kluster_servers_brief`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerBrief {
    /// Server id.
    pub id: String,
    /// Server name.
    pub name: String,
}

/// Kinds of cloud resources a running cluster creates by itself.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum ResourceKind {
    /// A Cinder volume bound to a persistent volume claim.
    Volume,
    /// An Octavia load balancer of a `LoadBalancer` service.
    LoadBalancer,
    /// A Neutron router route to a node's pod range.
    Route,
    /// A Neutron floating IP the cloud controller manager made for a `LoadBalancer`
    /// service (its description says for which cluster).
    FloatingIp,
    /// A Neutron security group the cloud controller manager made for a `LoadBalancer`
    /// service (on the nodes' ports; its description says for which cluster).
    SecurityGroup,
}

/// A static route on one of the project's routers. Klusters' pod ranges must not overlap
/// any route's destination on their router.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouterRoute {
    /// The router's id.
    pub router: String,
    /// The destination CIDR.
    pub destination: String,
    /// The next hop's address.
    pub nexthop: String,
}

/// A kluster's pod range on its router. A route on that router into the range is the
/// kluster's: its cloud controller manager makes one per node (Kubernikus's route garbage
/// collector goes by the same rule), and admission keeps the range off other klusters'
/// ranges and off the routes already there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodRange {
    /// The kluster.
    pub kluster: String,
    /// Its uid.
    pub uid: String,
    /// Its router's id.
    pub router: String,
    /// Its pod range (`spec.clusterCIDR`).
    pub cidr: String,
}

/// A cloud resource created by a kluster's workloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Resource id.
    pub id: String,
    /// The kluster whose workloads created it, by the name its marks carry (emptied by the
    /// reconciler's claim when that kluster does not own it, as for [`Server::kluster`]).
    pub kluster: String,
    /// The kluster uid its marks carry (`None`: only a bare name).
    pub uid: Option<String>,
    /// What it is.
    pub kind: ResourceKind,
    /// Its name.
    pub name: String,
    /// A delete has been requested and is in progress.
    pub deleting: bool,
}
