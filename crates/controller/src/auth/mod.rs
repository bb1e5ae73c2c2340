//! Who is calling (Keystone token validation) and what they may do (the Kubernikus policy,
//! from the `kubernikus-policy` crate).

pub mod validator;

pub use kubernikus_policy::{Creds, Permission, Policy, PolicyError, KUBERNIKUS_POLICY};
pub use validator::{AuthError, Principal, ServiceCredentials, TokenValidator};
