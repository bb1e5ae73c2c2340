//! The cloud the controller provisions into, behind a trait. The embedded default is a
//! simulated OpenStack ([`sim::SimCloud`]); [`openstack::OpenStackCloud`] calls a real one.

pub mod choice;
pub mod metered;
pub mod openstack;
pub mod owner;
pub mod sim;
mod user;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// A boxed future, so that providers can sit behind `dyn Cloud`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A cloud API failure, with the cloud's own words and what kind of failure it is.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("{message}")]
pub struct CloudError {
    /// The cloud's words.
    pub message: String,
    /// What kind of failure (events and advice key on this, never on the words).
    pub kind: CloudErrorKind,
}

/// Kinds of cloud failures the controller treats differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloudErrorKind {
    /// Anything else.
    Other,
    /// The project's quota does not allow it (Nova's 403 "Quota exceeded").
    QuotaExceeded,
    /// Keystone refused a kluster's own user (deleted, disabled, locked, expired, or its
    /// password changed): the user needs repair.
    UserRefused,
}

impl CloudError {
    /// A failure with the cloud's `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: CloudErrorKind::Other,
        }
    }

    /// The project's quota refused the call.
    pub fn quota_exceeded(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: CloudErrorKind::QuotaExceeded,
        }
    }
}

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

pub use kluster::{Quota, Usage};
pub use owner::{Mark, Owner};
pub use user::KlusterUser;

/// What the controller needs from a cloud.
pub trait Cloud: Send + Sync + std::fmt::Debug {
    /// Where node health comes from with this cloud; the default: its server listing.
    fn node_source(&self) -> NodeSource {
        NodeSource::Servers
    }

    /// Whether the cloud can be used at all (signed in, its services in the catalog), for
    /// readiness; `Err` is one line naming what is missing. The default: always.
    fn check(&self) -> BoxFuture<'_, Result<(), CloudError>> {
        Box::pin(async { Ok(()) })
    }

    /// Flavors, availability zones, routers with networks and subnets, key pairs, security
    /// groups and volume types visible to `project`.
    fn metadata<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<kluster::OpenstackMetadata, CloudError>>;

    /// Names of the images servers of `project` can boot.
    fn images<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<String>, CloudError>>;

    /// The project's compute quota and use.
    fn quota<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Quota, CloudError>>;

    /// Every server of the project.
    fn servers<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<Server>, CloudError>>;

    /// One server by id (Nova's `GET /servers/{id}`); `None` when it is gone. The default
    /// looks it up in the listing, for providers without a lookup of their own.
    fn server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Server>, CloudError>> {
        Box::pin(async move {
            let all = self.servers(project).await?;
            Ok(all.into_iter().find(|s| s.id == id))
        })
    }

    /// The servers carrying kluster `owner`'s uid, going or not, by id and name: a cheaper
    /// question than the listing (Nova's `GET /servers?tags=kluster_uid=…` without
    /// details). Servers marked with its bare name alone are not among them. The default
    /// filters the listing.
    fn kluster_servers_brief<'a>(
        &'a self,
        project: &'a str,
        owner: Owner<'a>,
    ) -> BoxFuture<'a, Result<Vec<ServerBrief>, CloudError>> {
        Box::pin(async move {
            let all = self.servers(project).await?;
            Ok(all
                .into_iter()
                .filter(|s| s.uid.as_deref() == Some(owner.uid))
                .map(|s| ServerBrief {
                    id: s.id,
                    name: s.name,
                })
                .collect())
        })
    }

    /// Whether any server of the project changed (was made, changed status, was deleted)
    /// since `since`: Nova's brief `GET /servers?changes-since=…`, which lists deleted
    /// servers too and asks Neutron nothing. `None` (the default): the cloud cannot tell,
    /// so every look lists in full.
    fn changed_since<'a>(
        &'a self,
        project: &'a str,
        since: time::OffsetDateTime,
    ) -> BoxFuture<'a, Result<Option<bool>, CloudError>> {
        let _ = (project, since);
        Box::pin(async { Ok(None) })
    }

    /// Boots a server; fails with the cloud's words (e.g. quota exceeded).
    fn create_server<'a>(
        &'a self,
        project: &'a str,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Server, CloudError>>;

    /// Starts a stopped server (Nova's `os-start`). The default: the cloud cannot.
    fn start_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        let _ = (project, id);
        Box::pin(async { Err(CloudError::new("this cloud cannot start servers")) })
    }

    /// Deletes a server (it shows as `Deleting` until it is gone).
    fn delete_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>>;

    /// Resources the project's klusters created by themselves (volumes, load balancers,
    /// routes). `ranges`: klusters' pod ranges, whose routes are theirs whether or not a
    /// server of theirs is still listed with the next hop.
    fn resources<'a>(
        &'a self,
        project: &'a str,
        ranges: &'a [PodRange],
    ) -> BoxFuture<'a, Result<Vec<Resource>, CloudError>>;

    /// The project's routers with an external gateway and their networks and subnets,
    /// what a new kluster is placed behind: the part of [`Cloud::metadata`] a pass needs.
    /// The default takes it from the metadata.
    fn routers<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<kluster::Router>, CloudError>> {
        Box::pin(async move { Ok(self.metadata(project).await?.routers) })
    }

    /// Every static route on the project's routers with an external gateway (the ones
    /// klusters can use), whoever made it. The default: none
    /// known (the simulated cloud's routes are all its klusters').
    fn routes<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<RouterRoute>, CloudError>> {
        let _ = project;
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Deletes such a resource.
    fn delete_resource<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>>;

    /// The domain klusters' own users are made in; `None` (the default): klusters have no
    /// users of their own and the provider acts for them.
    fn kluster_user_domain(&self) -> Option<&str> {
        None
    }

    /// Makes `user` with the configured roles on `project`, or sets its password and roles
    /// again when it exists; answers its id. The default: nothing to make.
    fn ensure_kluster_user<'a>(
        &'a self,
        project: &'a str,
        user: &'a KlusterUser,
    ) -> BoxFuture<'a, Result<String, CloudError>> {
        let _ = (project, user);
        Box::pin(async { Ok(String::new()) })
    }

    /// Deletes the kluster user `name` of `project` (gone already is fine). The default:
    /// nothing to do.
    fn delete_kluster_user<'a>(
        &'a self,
        project: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        let _ = (project, name);
        Box::pin(async { Ok(()) })
    }
}
