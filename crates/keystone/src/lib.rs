//! A small typed client for the OpenStack Keystone v3 identity API.
//!
//! It covers what Mission Control needs: password authentication scoped to a project,
//! application-credential authentication (and creating and deleting such credentials),
//! rescoping a token to another project, validating and revoking tokens, and listing the
//! projects a token's user may scope to, and reading a token's service catalog. Token and credential secrets are wrapped in
//! [`TokenSecret`] and [`CredentialSecret`], which never print their values.

mod app_credential;
mod catalog;
mod client;
mod error;
mod model;
mod observe;
pub mod trust;

pub use app_credential::{
    ApplicationCredential, ApplicationCredentialAuth, CredentialRef, CredentialSecret,
    NewApplicationCredential, UserRef,
};
pub use catalog::{
    regional_endpoints, CatalogEndpoint, CatalogService, RegionalEndpoint, MAX_REGIONS,
};
pub use client::{Client, PasswordAuth, ProjectRef};
pub use error::Error;
pub use model::{Domain, NamedRef, Project, Token, TokenSecret};
pub use observe::ObserverFn;
pub use trust::ClientOptions;
