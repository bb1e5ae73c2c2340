//! The failure scenarios with real processes (PostgreSQL, controller and dashboard binaries,
//! nginx with the shipped config, SIGKILL), shared by the failure tests (which assert) and
//! the failover benchmark (which prints the figures).

mod postgres;
mod replicas;

// Each test binary compiles `common`; not every one uses the scenarios.
#[allow(unused_imports)]
pub use postgres::{postgres_late_at_start, postgres_restarts, Recovered};
#[allow(unused_imports)]
pub use replicas::{dashboard_dies, reconciler_dies, Resumed, Takeover};
