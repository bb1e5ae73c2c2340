//! The controller stack behind the dashboard: a Rust implementation of the Kubernikus REST
//! API. This first part holds authentication (Keystone token validation with a cache and a
//! self-renewing service token) and authorization (oslo-style policy rules).

pub mod api;
pub mod auth;
pub mod store;
