//! The flight reconciler's decision (Kubernikus's flight): while a kluster runs, servers in
//! ERROR, servers still building after the allowed time, and servers that never registered
//! as nodes within it are deleted, so that launch replaces them. Where nothing reports nodes
//! ([`NodeSource::Unknown`], a real cloud) a server is never deleted for not registering:
//! only for ERROR or for building too long (e.g. its boot message lost while RabbitMQ was
//! down). A new server in ERROR (one launch made that never came up) is a failure of its
//! pool: the event carries Nova's reason and the pool waits before the next
//! ([`super::launch::retry`]). A stopped server (SHUTOFF, …) is started once; when it stops
//! again it is replaced where its pool allows replacement ([`stopped`]).

use std::time::Duration;

use std::collections::BTreeMap;

use kluster::{EventReason, Kluster, KlusterPhase};

use super::context::{Ctx, KlusterView, Outcome};
use super::launch::{pool_of, retry};
use super::next::Next;
use crate::cloud::{NodeKnowledge, NodeSource, Server, ServerStatus};
use crate::store::{ServerMark, StoreError};

/// Why flight removes a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Nova put it in ERROR.
    Errored,
    /// It stopped again after flight started it.
    StoppedAgain,
    /// It was up but never registered as a node within the allowed time.
    NeverRegistered,
    /// Nova was still building it after the allowed time.
    StuckBuilding,
}

/// A server flight removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    /// Server id.
    pub id: String,
    /// Server name.
    pub name: String,
    /// Why.
    pub why: Why,
}

/// The servers of one kluster (see [`super::launch::of_kluster`]) flight deletes, with
/// nodes as the servers report them ([`NodeSource::Servers`]).
pub fn plan(servers: &[&Server], register_timeout: Duration) -> Vec<Removal> {
    plan_with(servers, register_timeout, NodeSource::Servers)
}

/// [`plan`] with nodes known from `nodes`.
pub fn plan_with(
    servers: &[&Server],
    register_timeout: Duration,
    nodes: NodeSource,
) -> Vec<Removal> {
    servers
        .iter()
        .filter_map(|s| {
            let unregistered = nodes.node(s) == NodeKnowledge::NotRegistered;
            let why = match s.status {
                ServerStatus::Error => Why::Errored,
                ServerStatus::Active if unregistered && s.age >= register_timeout => {
                    Why::NeverRegistered
                }
                ServerStatus::Build if s.age >= register_timeout => Why::StuckBuilding,
                _ => return None,
            };
            Some(Removal {
                id: s.id.clone(),
                name: s.name.clone(),
                why,
            })
        })
        .collect()
}

/// What flight does with a stopped server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoppedAction {
    /// Start it (the first time it is found stopped).
    Start,
    /// Replace it: it stopped again after a start, and its pool allows replacement.
    Replace,
    /// Leave it: it stopped again, and its pool does not allow replacement.
    Hold,
}

/// The stopped servers of `k` among `servers` and what to do with each, given the
/// reconciler's `marks` (a started server is marked [`ServerMark::Started`]).
pub fn stopped<'a>(
    k: &Kluster,
    servers: &[&'a Server],
    marks: &BTreeMap<String, ServerMark>,
) -> Vec<(&'a Server, StoppedAction)> {
    servers
        .iter()
        .filter(|s| s.status == ServerStatus::Stopped)
        .map(|s| {
            if marks.get(&s.id) != Some(&ServerMark::Started) {
                return (*s, StoppedAction::Start);
            }
            // A server of a removed pool is launch's to delete.
            let allowed = pool_of(k, s).map(|i| {
                let config = k.spec.node_pools[i].config.as_ref();
                config
                    .and_then(|c| c.allow_replace)
                    .unwrap_or(kluster::defaults::ALLOW_REPLACE)
            });
            match allowed {
                Some(true) => (*s, StoppedAction::Replace),
                Some(false) | None => (*s, StoppedAction::Hold),
            }
        })
        .collect()
}

/// Flight's executor for one running kluster: deletes its broken servers (launch replaces
/// them) and says why, and starts or replaces its stopped ones; the deleted ids are in the
/// outcome's `grounded`, the started ones in its `started`.
pub async fn reconcile(
    k: &mut Kluster,
    o: &KlusterView<'_>,
    ctx: &Ctx<'_>,
) -> Result<Outcome, StoreError> {
    let mut out = Outcome::default();
    let Some(servers) = o.cloud.servers.as_deref() else {
        return Ok(out);
    };
    if k.status.phase != KlusterPhase::Running {
        return Ok(out);
    }
    let register_timeout = ctx.timing().register_timeout;
    let mine = super::launch::of_kluster(servers, &k.name);
    let nodes = ctx.cloud().node_source();
    let marks = &o.stored.marks;
    let mut removals = plan_with(&mine, register_timeout, nodes);
    let faults = faults_of(&mine, marks, &mut removals, ctx, &mut out).await;
    for (s, action) in stopped(k, &mine, marks) {
        match action {
            StoppedAction::Start => start(k, s, ctx, &mut out).await?,
            StoppedAction::Replace => removals.push(Removal {
                id: s.id.clone(),
                name: s.name.clone(),
                why: Why::StoppedAgain,
            }),
            StoppedAction::Hold => {
                let message = format!(
                    "Node {} stopped again after it was started; its pool does not allow replacing nodes: start it by hand, or allow replacement",
                    s.name
                );
                ctx.warn(k, EventReason::StoppedNode, &message).await?;
            }
        }
    }
    for g in removals {
        let server = mine.iter().find(|s| s.id == g.id);
        // A new server that never came up failed its pool: the pool waits before the next.
        let new = marks.get(&g.id) == Some(&ServerMark::Booting);
        let pool = server
            .and_then(|s| pool_of(k, s))
            .map(|i| k.spec.node_pools[i].clone());
        let why = match g.why {
            Why::Errored => "it went into ERROR".to_string(),
            Why::StoppedAgain => "it stopped again after it was started".to_string(),
            Why::NeverRegistered => format!(
                "it did not register as a node within {}",
                super::context::human(register_timeout)
            ),
            Why::StuckBuilding => format!(
                "it was still building after {}",
                super::context::human(register_timeout)
            ),
        };
        match ctx
            .call(ctx.cloud().delete_server(ctx.project, &g.id))
            .await
        {
            Ok(()) => {
                out.grounded.insert(g.id.clone());
                out.deleted += 1;
                out.next = out.next.and(Next::soon());
                match (g.why, new, &pool) {
                    (Why::Errored, true, Some(pool)) => {
                        let fault = faults.get(&g.id).map(String::as_str);
                        let (reason, detail) = retry::reason(pool, fault);
                        let message = retry::failure_message(pool, fault.is_some(), &reason);
                        let now = time::OffsetDateTime::now_utc();
                        let timing = ctx.timing();
                        retry::record_failure(
                            &mut k.status.node_pools,
                            pool,
                            &reason,
                            &timing,
                            now,
                        );
                        ctx.warn_with(k, EventReason::FailedCreateNode, detail, &message)
                            .await?;
                    }
                    _ => {
                        let fault = match server.and_then(|s| s.fault.as_deref()) {
                            Some(f) if g.why == Why::Errored => format!(" ({f})"),
                            _ => String::new(),
                        };
                        let message = format!(
                            "Deleted node {}: {why}{fault}; a new one replaces it",
                            g.name
                        );
                        ctx.warn(k, EventReason::DeletedBrokenNode, &message)
                            .await?;
                    }
                }
            }
            Err(e) => {
                out.next = out.next.and(Next::backoff());
                let message = format!("Failed to delete node {}: {e}", g.name);
                ctx.warn(k, EventReason::FailedDeleteNode, &message).await?;
            }
        }
    }
    // The next server to pass its register timeout is looked at when it does.
    let now = tokio::time::Instant::now();
    if let Some(left) = mine
        .iter()
        .filter(|s| !out.grounded.contains(&s.id))
        .filter(|s| match s.status {
            ServerStatus::Build => true,
            ServerStatus::Active => nodes.node(s) == NodeKnowledge::NotRegistered,
            _ => false,
        })
        .map(|s| register_timeout.saturating_sub(s.age))
        .min()
    {
        out.next = out.next.and(Next::at(now + left));
    }
    Ok(out)
}

/// How long after its creation a new server in ERROR may wait for Nova's reason: Nova
/// writes the server's state before its fault, so a listing can show the one without the
/// other.
const FAULT_GRACE: Duration = Duration::from_secs(60);

/// Nova's reasons for the new servers in ERROR among `removals`, by id: from the listing,
/// else asked for one by one. One whose reason is not written yet stays for a later pass
/// (until [`FAULT_GRACE`]).
async fn faults_of(
    mine: &[&Server],
    marks: &BTreeMap<String, ServerMark>,
    removals: &mut Vec<Removal>,
    ctx: &Ctx<'_>,
    out: &mut Outcome,
) -> BTreeMap<String, String> {
    let mut faults = BTreeMap::new();
    let mut later = Vec::new();
    for r in removals.iter().filter(|r| r.why == Why::Errored) {
        if marks.get(&r.id) != Some(&ServerMark::Booting) {
            continue;
        }
        let Some(s) = mine.iter().find(|s| s.id == r.id) else {
            continue;
        };
        let fault = match &s.fault {
            Some(f) => Some(f.clone()),
            None => match ctx.call(ctx.cloud().server(ctx.project, &s.id)).await {
                Ok(Some(found)) => found.fault,
                _ => None,
            },
        };
        match fault {
            Some(f) => {
                faults.insert(r.id.clone(), f);
            }
            None if s.age < FAULT_GRACE => later.push(r.id.clone()),
            None => {}
        }
    }
    if !later.is_empty() {
        removals.retain(|r| !later.contains(&r.id));
        out.next = out.next.and(Next::soon());
    }
    faults
}

/// Starts stopped server `s` of `k` (once: it is marked started) and says so.
async fn start(
    k: &Kluster,
    s: &Server,
    ctx: &Ctx<'_>,
    out: &mut Outcome,
) -> Result<(), StoreError> {
    match ctx.call(ctx.cloud().start_server(ctx.project, &s.id)).await {
        Ok(()) => {
            out.started.insert(s.id.clone());
            out.next = out.next.and(Next::soon());
            let message = format!(
                "Node {} was found stopped; it was started (if it stops again it is replaced, where its pool allows)",
                s.name
            );
            ctx.warn(k, EventReason::StoppedNode, &message).await
        }
        Err(e) => {
            out.next = out.next.and(Next::backoff());
            let message = format!("Node {} is stopped and could not be started: {e}", s.name);
            ctx.warn(k, EventReason::StoppedNode, &message).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::NodeState;

    fn server(name: &str, status: ServerStatus, registered: bool, age: u64) -> Server {
        Server {
            id: name.into(),
            name: name.into(),
            kluster: "k".into(),
            uid: None,
            status,
            node: registered.then_some(NodeState {
                ready: true,
                cordoned: false,
            }),
            age: Duration::from_secs(age),
            fault: None,
        }
    }

    #[test]
    fn errored_and_never_registered_servers_are_grounded() {
        use ServerStatus::*;
        let t = Duration::from_secs(60);
        let cases = [
            (server("a", Error, false, 1), Some(Why::Errored)),
            (server("b", Active, false, 59), None),
            (server("c", Active, false, 60), Some(Why::NeverRegistered)),
            (server("d", Active, true, 600), None),
            (server("e", Build, false, 59), None),
            (server("g", Build, false, 600), Some(Why::StuckBuilding)),
            (server("f", Deleting, false, 600), None),
        ];
        for (s, want) in cases {
            let got = plan(&[&s], t).first().map(|g| g.why);
            assert_eq!(got, want, "{}", s.name);
        }
    }

    #[test]
    fn with_unknown_nodes_only_errored_and_stuck_servers_are_grounded() {
        use ServerStatus::*;
        let t = Duration::from_secs(60);
        let old = server("old", Active, false, 6000);
        let broken = server("broken", Error, false, 1);
        let stuck = server("stuck", Build, false, 6000);
        let got: Vec<_> = plan_with(&[&old, &broken, &stuck], t, NodeSource::Unknown)
            .into_iter()
            .map(|g| (g.name, g.why))
            .collect();
        assert_eq!(
            got,
            vec![
                ("broken".to_string(), Why::Errored),
                ("stuck".to_string(), Why::StuckBuilding)
            ]
        );
    }
}
