//! Launch's pure decision: per pool, how many servers to create and which to delete, and
//! whether an empty listing must be confirmed before acting on it.

use kluster::{Kluster, NodePool, NodePoolInfo};

use super::belongs;
use super::of_kluster;
use crate::cloud::{NodeKnowledge, NodeSource, NodeState, Server, ServerStatus};

/// A server to remove, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// Server id.
    pub id: String,
    /// Server name (for the event).
    pub name: String,
    /// Index of its pool in the spec (`None`: the pool was removed).
    pub pool: Option<usize>,
    /// It was ACTIVE (counted as running).
    pub active: bool,
}

/// What launch does with one kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Pool status as observed, before acting.
    pub pools: Vec<NodePoolInfo>,
    /// Servers to create: (pool index in the spec, how many).
    pub create: Vec<(usize, i64)>,
    /// Servers to delete.
    pub delete: Vec<Removal>,
}

/// What to do for `k` given the servers of its project, with nodes as the servers report
/// them ([`NodeSource::Servers`]).
pub fn plan(k: &Kluster, servers: &[Server]) -> Plan {
    plan_with(k, servers, NodeSource::Servers)
}

/// [`plan`] with nodes known from `nodes`: with [`NodeSource::Unknown`] the pools' status
/// says their health is unknown, and scale-down removes the youngest servers first.
pub fn plan_with(k: &Kluster, servers: &[Server], nodes: NodeSource) -> Plan {
    let mine = of_kluster(servers, &k.name);
    let mut plan = Plan::default();
    for (i, pool) in k.spec.node_pools.iter().enumerate() {
        let ours: Vec<&Server> = mine
            .iter()
            .copied()
            .filter(|s| belongs(s, &k.name, &pool.name))
            .collect();
        let (info, create, delete) = plan_pool(i, pool, &ours, nodes);
        plan.pools.push(info);
        if create > 0 {
            plan.create.push((i, create));
        }
        plan.delete.extend(delete);
    }
    // Servers of pools that were removed from the spec.
    for s in mine {
        let known = k
            .spec
            .node_pools
            .iter()
            .any(|p| belongs(s, &k.name, &p.name));
        if !known && s.status != ServerStatus::Deleting {
            plan.delete.push(Removal {
                id: s.id.clone(),
                name: s.name.clone(),
                pool: None,
                active: s.status == ServerStatus::Active,
            });
        }
    }
    plan
}

/// Status, servers to create and servers to delete for one pool.
fn plan_pool(
    index: usize,
    pool: &NodePool,
    servers: &[&Server],
    nodes: NodeSource,
) -> (NodePoolInfo, i64, Vec<Removal>) {
    // Booting, up or stopped: each is a node of the pool (flight starts stopped ones).
    let live: Vec<&Server> = servers
        .iter()
        .copied()
        .filter(|s| {
            matches!(
                s.status,
                ServerStatus::Build | ServerStatus::Active | ServerStatus::Stopped
            )
        })
        .collect();
    let active = || live.iter().filter(|s| s.status == ServerStatus::Active);
    let count = |f: fn(NodeState) -> bool| {
        active()
            .filter(|s| matches!(nodes.node(s), NodeKnowledge::Known(n) if f(n)))
            .count() as i64
    };
    let info = NodePoolInfo {
        name: pool.name.clone(),
        size: pool.size,
        running: active().count() as i64,
        healthy: count(|n| n.ready),
        schedulable: count(|n| n.ready && !n.cordoned),
        health_unknown: nodes == NodeSource::Unknown,
        create_retry: None,
    };
    let needed = pool.size - live.len() as i64;
    if needed >= 0 {
        return (info, needed, Vec::new());
    }
    // Scale down: booting, stopped and unregistered first, then cordoned, then the rest;
    // youngest first.
    let mut victims = live;
    victims.sort_by_key(|s| {
        let rank = match (s.status, nodes.node(s)) {
            (ServerStatus::Build | ServerStatus::Stopped, _) => 0,
            (_, NodeKnowledge::NotRegistered) => 0,
            (_, NodeKnowledge::Known(n)) if n.cordoned => 1,
            (_, NodeKnowledge::Known(_) | NodeKnowledge::Unknown) => 2,
        };
        (rank, s.age)
    });
    let delete = victims
        .into_iter()
        .take((-needed) as usize)
        .map(|s| Removal {
            id: s.id.clone(),
            name: s.name.clone(),
            pool: Some(index),
            active: s.status == ServerStatus::Active,
        })
        .collect();
    (info, 0, delete)
}

/// Whether the cloud is still working on a kluster whose servers are `mine`, with `pools`
/// as launch found them: a server building or going, or a node not healthy yet (where
/// nodes are known).
pub fn in_progress(pools: &[NodePoolInfo], mine: &[&Server]) -> bool {
    mine.iter()
        .any(|s| matches!(s.status, ServerStatus::Build | ServerStatus::Deleting))
        || pools
            .iter()
            .any(|p| !p.health_unknown && p.healthy < p.running)
}

/// Whether a listing must be confirmed before launch acts on it: a pool whose last
/// recorded status had servers shows none. (A spurious empty listing once made
/// Kubernikus create a second set of nodes.)
pub fn needs_confirmation(klusters: &[&Kluster], servers: &[Server]) -> bool {
    let launched = |k: &&&Kluster| {
        matches!(
            k.status.phase,
            kluster::KlusterPhase::Running | kluster::KlusterPhase::Upgrading
        )
    };
    klusters.iter().filter(launched).any(|k| {
        k.status.node_pools.iter().any(|recorded| {
            recorded.running > 0
                && !servers.iter().any(|s| {
                    belongs(s, &k.name, &recorded.name) && s.status != ServerStatus::Deleting
                })
        })
    })
}
