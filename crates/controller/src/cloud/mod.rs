//! The cloud the controller provisions into, behind a trait. The embedded default is a
//! simulated OpenStack ([`sim::SimCloud`]); a real OpenStack provider can be added later.

pub mod sim;

use std::future::Future;
use std::pin::Pin;

/// A boxed future, so that providers can sit behind `dyn Cloud`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A cloud API failure, with the cloud's own words.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0}")]
pub struct CloudError(pub String);

/// What the controller needs from a cloud.
pub trait Cloud: Send + Sync + std::fmt::Debug {
    /// Flavors, availability zones, routers with networks and subnets, key pairs, security
    /// groups and volume types visible to `project`.
    fn metadata<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<kluster::OpenstackMetadata, CloudError>>;
}
