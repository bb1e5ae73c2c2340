//! The cloud the controller provisions into, behind a trait. The embedded default is a
//! simulated OpenStack ([`sim::SimCloud`]); [`openstack::OpenStackCloud`] calls a real one.

pub mod choice;
pub mod metered;
pub mod openstack;
pub mod owner;
pub mod sim;
mod types;
mod user;

use std::future::Future;
use std::pin::Pin;

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

pub use kluster::{Quota, Usage};
pub use owner::{Mark, Owner};
pub use types::{
    NodeKnowledge, NodeSource, NodeState, PodRange, Resource, ResourceKind, RouterRoute, Server,
    ServerBrief, ServerSpec, ServerStatus,
};
pub use user::KlusterUser;

/// Most changed servers [`Cloud::changed_since`] names; a look takes that many as "more".
pub const CHANGES_AT_MOST: usize = 20;

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

    /// The ids of the project's servers that changed (were made, changed status, were
    /// deleted) since `since`, at most [`CHANGES_AT_MOST`] (that many: there may be more):
    /// Nova's brief `GET /servers?changes-since=…`, which lists deleted servers too and asks
    /// Neutron nothing. `None` (the default): the cloud cannot tell, so every look lists in
    /// full.
    fn changed_since<'a>(
        &'a self,
        project: &'a str,
        since: time::OffsetDateTime,
    ) -> BoxFuture<'a, Result<Option<Vec<String>>, CloudError>> {
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
