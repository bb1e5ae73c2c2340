//! Who is calling (Keystone token validation) and what they may do (policy).

pub mod policy;
pub mod validator;

pub use policy::{Creds, Policy, PolicyError};
pub use validator::{AuthError, Principal, ServiceCredentials, TokenValidator};
