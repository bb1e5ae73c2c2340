//! The launch reconciler's decision (Kubernikus's launchctl): per node pool
//! `needed = size − running − starting`; servers are named `kks-<kluster>-<pool>-<5 chars>`;
//! scale-down removes unregistered servers first, then cordoned nodes, then the youngest.
//! Servers of pools that no longer exist are removed.

use kluster::{EventDetail, EventReason, Kluster, NodePool, NodePoolInfo};

use super::ctx::{Ctx, Observed, Outcome};
use crate::cloud::{CloudErrorKind, Server, ServerSpec, ServerStatus};
use crate::store::StoreError;

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

/// The servers of `kluster` (any pool), by the kluster recorded in their metadata: names
/// alone are ambiguous (`kks-a-b-…` may be kluster `a` pool `b-…` or kluster `a-b`).
pub fn of_kluster<'a>(servers: &'a [Server], kluster: &str) -> Vec<&'a Server> {
    servers.iter().filter(|s| s.kluster == kluster).collect()
}

/// A server to remove, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// Server id.
    pub id: String,
    /// Server name (for the event).
    pub name: String,
    /// Index of its pool in the spec (`None`: the pool was removed).
    pub pool: Option<usize>,
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

/// What to do for `k` given the servers of its project.
pub fn plan(k: &Kluster, servers: &[Server]) -> Plan {
    let mine = of_kluster(servers, &k.name);
    let mut plan = Plan::default();
    for (i, pool) in k.spec.node_pools.iter().enumerate() {
        let ours: Vec<&Server> = mine
            .iter()
            .copied()
            .filter(|s| belongs(s, &k.name, &pool.name))
            .collect();
        let (info, create, delete) = plan_pool(i, pool, &ours);
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
) -> (NodePoolInfo, i64, Vec<Removal>) {
    let live: Vec<&Server> = servers
        .iter()
        .copied()
        .filter(|s| matches!(s.status, ServerStatus::Build | ServerStatus::Active))
        .collect();
    let info = NodePoolInfo {
        name: pool.name.clone(),
        size: pool.size,
        running: live.len() as i64,
        healthy: live
            .iter()
            .filter(|s| s.node.is_some_and(|n| n.ready))
            .count() as i64,
        schedulable: live
            .iter()
            .filter(|s| s.node.is_some_and(|n| n.ready && !n.cordoned))
            .count() as i64,
    };
    let needed = pool.size - live.len() as i64;
    if needed >= 0 {
        return (info, needed, Vec::new());
    }
    // Scale down: unregistered first, then cordoned, then the rest; youngest first.
    let mut victims = live;
    victims.sort_by_key(|s| {
        let rank = match s.node {
            None => 0,
            Some(n) if n.cordoned => 1,
            Some(_) => 2,
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
        })
        .collect();
    (info, 0, delete)
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

/// Launch's executor for one running kluster: deletes the servers its plan removes (not
/// those flight grounded), creates the missing ones, and writes the pools' status into `k`.
pub async fn reconcile(
    k: &mut Kluster,
    o: &Observed<'_>,
    ctx: &Ctx<'_>,
) -> Result<Outcome, StoreError> {
    let mut out = Outcome::default();
    let Some(servers) = o.cloud.servers.as_deref() else {
        return Ok(out);
    };
    let name = k.name.clone();
    let plan = plan(k, servers);
    let mut pools = plan.pools.clone();
    for r in plan.delete.iter().filter(|r| !o.grounded.contains(&r.id)) {
        match ctx
            .call(ctx.cloud().delete_server(ctx.project, &r.id))
            .await
        {
            Ok(()) => {
                out.deleted += 1;
                out.dropped.insert(r.id.clone());
                if let Some(info) = r.pool.and_then(|i| pools.get_mut(i)) {
                    info.running -= 1;
                }
                let message = format!("Successfully deleted node {}", r.name);
                ctx.normal(k, EventReason::SuccessfulDeleteNode, &message)
                    .await?;
            }
            Err(e) => {
                let message = format!("Failed to delete node {}: {e}", r.name);
                ctx.warn(k, EventReason::FailedDeleteNode, &message).await?;
            }
        }
    }
    for (i, count) in plan.create {
        let pool = &k.spec.node_pools[i];
        for _ in 0..count {
            let spec = ServerSpec {
                name: format!("{}{}", prefix(&name, &pool.name), suffix()),
                kluster: name.clone(),
                flavor: pool.flavor.clone(),
                image: pool.image.clone(),
                availability_zone: pool.availability_zone.clone(),
            };
            match ctx
                .call(ctx.cloud().create_server(ctx.project, &spec))
                .await
            {
                Ok(server) => {
                    out.created += 1;
                    out.launched.push(server.id.clone());
                    pools[i].running += 1;
                    let message = format!("Successfully created node {}", server.name);
                    ctx.normal(k, EventReason::SuccessfulCreateNode, &message)
                        .await?;
                }
                Err(e) => {
                    // The same error would repeat for the rest of the pool: stop here.
                    let message = format!("Failed to create node: {e}");
                    let detail = (e.kind == CloudErrorKind::QuotaExceeded)
                        .then_some(EventDetail::QuotaExceeded);
                    ctx.warn_with(k, EventReason::FailedCreateNode, detail, &message)
                        .await?;
                    break;
                }
            }
        }
    }
    k.status.node_pools = pools;
    Ok(out)
}

/// Five random lowercase letters and digits (a server name's tail).
fn suffix() -> String {
    use rand_core::RngCore;
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut bytes = [0u8; 5];
    rand_core::OsRng.fill_bytes(&mut bytes);
    bytes
        .iter()
        .map(|b| CHARS[*b as usize % CHARS.len()] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::NodeState;
    use std::time::Duration;

    fn server(name: &str, status: ServerStatus, node: Option<(bool, bool)>, age: u64) -> Server {
        let kluster = name.split('-').nth(1).unwrap_or_default();
        Server {
            id: format!("id-{name}"),
            name: name.into(),
            kluster: kluster.into(),
            status,
            node: node.map(|(ready, cordoned)| NodeState { ready, cordoned }),
            age: Duration::from_secs(age),
        }
    }

    fn kluster(pools: &[(&str, i64)]) -> Kluster {
        let mut k = Kluster {
            name: "k".into(),
            ..Default::default()
        };
        k.spec.node_pools = pools
            .iter()
            .map(|(name, size)| NodePool {
                name: (*name).into(),
                size: *size,
                flavor: "m1.small".into(),
                ..Default::default()
            })
            .collect();
        k
    }

    use ServerStatus::*;

    #[test]
    fn needed_is_size_minus_running_minus_starting() {
        // (pool size, servers, servers to create, (running, healthy, schedulable))
        type Case = (i64, Vec<Server>, i64, (i64, i64, i64));
        let cases: Vec<Case> = vec![
            (3, vec![], 3, (0, 0, 0)),
            (
                3,
                vec![server("kks-k-a-aaaaa", Build, None, 1)],
                2,
                (1, 0, 0),
            ),
            (
                2,
                vec![
                    server("kks-k-a-aaaaa", Active, Some((true, false)), 9),
                    server("kks-k-a-bbbbb", Active, Some((true, true)), 9),
                ],
                0,
                (2, 2, 1),
            ),
            // An ERROR server counts for nothing: flight removes it, launch replaces it.
            (
                1,
                vec![server("kks-k-a-aaaaa", Error, None, 9)],
                1,
                (0, 0, 0),
            ),
            // A server being deleted counts for nothing either.
            (
                1,
                vec![server("kks-k-a-aaaaa", Deleting, None, 9)],
                1,
                (0, 0, 0),
            ),
            // Another pool's or kluster's servers are not ours.
            (
                1,
                vec![
                    server("kks-k-a-b-ccccc", Active, None, 9),
                    server("kks-kk-a-ccccc", Active, None, 9),
                ],
                1,
                (0, 0, 0),
            ),
        ];
        for (i, (size, servers, create, (running, healthy, schedulable))) in
            cases.into_iter().enumerate()
        {
            let p = plan(&kluster(&[("a", size)]), &servers);
            let info = &p.pools[0];
            assert_eq!(
                (info.running, info.healthy, info.schedulable),
                (running, healthy, schedulable),
                "case {i}"
            );
            let want: Vec<(usize, i64)> = if create > 0 {
                vec![(0, create)]
            } else {
                vec![]
            };
            assert_eq!(p.create, want, "case {i}");
        }
    }

    #[test]
    fn scale_down_takes_unregistered_then_cordoned_then_youngest() {
        let servers = vec![
            server("kks-k-a-ready", Active, Some((true, false)), 100),
            server("kks-k-a-young", Active, Some((true, false)), 10),
            server("kks-k-a-cordn", Active, Some((true, true)), 50),
            server("kks-k-a-nonod", Active, None, 60),
            server("kks-k-a-build", Build, None, 1),
        ];
        let order = |size| -> Vec<String> {
            plan(&kluster(&[("a", size)]), &servers)
                .delete
                .into_iter()
                .map(|r| r.name)
                .collect()
        };
        assert_eq!(order(4), ["kks-k-a-build"]);
        assert_eq!(
            order(2),
            ["kks-k-a-build", "kks-k-a-nonod", "kks-k-a-cordn"]
        );
        assert_eq!(
            order(0),
            [
                "kks-k-a-build",
                "kks-k-a-nonod",
                "kks-k-a-cordn",
                "kks-k-a-young",
                "kks-k-a-ready"
            ]
        );
    }

    #[test]
    fn servers_of_removed_pools_go() {
        let servers = vec![
            server("kks-k-a-aaaaa", Active, None, 1),
            server("kks-k-gone-bbbbb", Active, None, 1),
            server("kks-k-gone-ccccc", Deleting, None, 1),
        ];
        let p = plan(&kluster(&[("a", 1)]), &servers);
        assert_eq!(
            p.delete,
            vec![Removal {
                id: "id-kks-k-gone-bbbbb".into(),
                name: "kks-k-gone-bbbbb".into(),
                pool: None,
            }]
        );
    }

    #[test]
    fn an_empty_listing_for_pools_that_had_servers_is_confirmed_first() {
        let mut k = kluster(&[("a", 2)]);
        k.status.phase = kluster::KlusterPhase::Running;
        assert!(!needs_confirmation(&[&k], &[]), "nothing recorded yet");
        k.status.node_pools = vec![NodePoolInfo {
            name: "a".into(),
            size: 2,
            running: 2,
            ..Default::default()
        }];
        assert!(needs_confirmation(&[&k], &[]));
        let deleting = [server("kks-k-a-aaaaa", Deleting, None, 1)];
        assert!(needs_confirmation(&[&k], &deleting));
        let one = [server("kks-k-a-aaaaa", Active, None, 1)];
        assert!(!needs_confirmation(&[&k], &one));
        k.status.phase = kluster::KlusterPhase::Terminating;
        assert!(
            !needs_confirmation(&[&k], &[]),
            "deorbit removes the servers of terminating klusters on purpose"
        );
    }
}
