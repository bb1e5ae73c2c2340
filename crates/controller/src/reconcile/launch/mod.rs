//! The launch reconciler (Kubernikus's launchctl): per node pool
//! `needed = size − running − starting − stopped`, where running counts ACTIVE servers only;
//! servers are named `kks-<kluster>-<pool>-<5 chars>`; scale-down removes booting, stopped
//! and unregistered servers first, then cordoned nodes, then the youngest. Servers of pools
//! that no longer exist are removed. A server is announced (`SuccessfulCreateNode`) when it
//! is first seen ACTIVE; after servers failed in the cloud a pool waits before the next
//! (`retry.rs`).
//!
//! - [`plan`](plan()) and [`needs_confirmation`] (in `plan.rs`): the pure decision.
//! - [`reconcile`] (in `execute.rs`): the executor.
//! - here: how a server's name ties it to its kluster and pool.

use crate::cloud::Server;

mod execute;
mod plan;
pub mod retry;
#[cfg(test)]
mod tests;

pub use execute::reconcile;
pub use plan::{needs_confirmation, plan, plan_with, Plan, Removal};

/// Name prefix of a pool's servers.
pub fn prefix(kluster: &str, pool: &str) -> String {
    format!("kks-{kluster}-{pool}-")
}

/// Whether `server` belongs to `pool` of `kluster` (prefix plus exactly 5 characters, so
/// pool `a` does not claim the servers of pool `a-b`).
pub fn belongs(server: &Server, kluster: &str, pool: &str) -> bool {
    server.kluster == kluster
        && server
            .name
            .strip_prefix(&prefix(kluster, pool))
            .is_some_and(|rest| rest.len() == 5 && !rest.contains('-'))
}

/// Index in `k`'s spec of the pool `server` belongs to (`None`: no pool of it, e.g. one
/// that was removed).
pub fn pool_of(k: &kluster::Kluster, server: &Server) -> Option<usize> {
    k.spec
        .node_pools
        .iter()
        .position(|p| belongs(server, &k.name, &p.name))
}

/// The servers of `kluster` (any pool), by the kluster recorded in their metadata: names
/// alone are ambiguous (`kks-a-b-…` may be kluster `a` pool `b-…` or kluster `a-b`).
pub fn of_kluster<'a>(servers: &'a [Server], kluster: &str) -> Vec<&'a Server> {
    servers.iter().filter(|s| s.kluster == kluster).collect()
}
