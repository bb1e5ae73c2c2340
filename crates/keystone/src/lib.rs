//! A small typed client for the OpenStack Keystone v3 identity API.
//!
//! It covers what Mission Control needs: password authentication scoped to a project,
//! rescoping a token to another project, validating and revoking tokens, and listing the
//! projects a token's user may scope to. Token secrets are wrapped in [`TokenSecret`],
//! which never prints its value.

mod client;
mod error;
mod model;
mod observe;

pub use client::{Client, PasswordAuth, ProjectRef};
pub use error::Error;
pub use model::{Domain, NamedRef, Project, Token, TokenSecret};
pub use observe::ObserverFn;
