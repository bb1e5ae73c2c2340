//! The controller stack behind the dashboard: a Rust implementation of the Kubernikus REST
//! API — [`api`] (axum routes per swagger operation), [`auth`] (Keystone token validation
//! and oslo-style policy), [`store`] (SQLite or PostgreSQL), [`settings`] (its settings,
//! resolved once) and [`run`] (start it, standalone or embedded).

pub mod api;
pub mod auth;
pub mod cloud;
pub mod metrics;
pub mod notices;
pub mod pki;
pub mod reconcile;
pub mod run;
pub mod settings;
pub mod single_flight;
pub mod store;

/// Shared serving plumbing, at the paths it had in this crate.
pub use serving::{net, shutdown, telemetry};
