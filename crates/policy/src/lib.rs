//! The Kubernikus policy and what it grants, in one place.
//!
//! [`Policy`] evaluates oslo-style rules (`kubernikus-policy.json`: `role:x`, `rule:x`,
//! `field:value`, `and`, `or`, `not`). [`Permission`] names, typed, every rule the API asks
//! for: the controller allows a request only through a `Permission`, answers
//! `GET /api/v1/access` with the ones a caller has, and the dashboard keeps that list in the
//! session and shows what it allows, deciding nothing itself.

mod permission;
mod rules;

pub use permission::Permission;
pub use rules::{Creds, Policy, PolicyError, KUBERNIKUS_POLICY};
