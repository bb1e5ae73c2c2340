//! Serde types for the swagger definitions (`reference/kubernikus-swagger.yml`).
//!
//! - [`spec`]: the [`Kluster`] and what the user asks for (spec, OpenStack, node pools).
//! - [`status`]: what the controllers observed (phase, status, pool counts).
//! - [`events`]: Kubernetes-style events and the controller's event stream entries.
//! - [`info`]: `/info`, `/api`, a kluster's info and the caller ([`Principal`]).
//! - [`credentials`]: kubeconfig, bootstrap config and kubeadm secret responses.
//! - [`openstack`]: OpenStack metadata and the quota extension.

pub mod credentials;
pub mod events;
pub mod info;
pub mod openstack;
pub mod spec;
pub mod status;

pub use credentials::*;
pub use events::*;
pub use info::*;
pub use openstack::*;
pub use spec::*;
pub use status::*;
