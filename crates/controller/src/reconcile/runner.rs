//! The reconcile loop: while this replica holds the reconcile lease, projects are
//! reconciled on a timer (the resync), and a project is reconciled at once when one of its
//! klusters changes in the store (an API write here, or any replica's write announced by
//! the database), as Kubernetes controllers watch. A project whose pass is still going is
//! not started twice; a change that arrives meanwhile runs it again when it finishes.
//!
//! A project whose last pass found nothing to do (every kluster Running with its pools at
//! size, nothing written, created or deleted) is steady: the resync passes it only every
//! [`STEADY_RESYNCS`] resyncs, so a controller with thousands of settled klusters does not
//! read and reconcile all of them every second. A change (or a simulator setting) wakes it
//! at once as before; what changes in the cloud unseen is found by that slower resync.
//!
//! A project whose passes get nowhere because the cloud refuses what they ask (a pool over
//! quota, while everything that exists is up) is stalled: it is passed again after 2, 4, 8
//! resyncs, then every [`STEADY_RESYNCS`], as Kubernetes requeues a failing object with a
//! growing delay, instead of asking the cloud for the same refused server every second.
//! A change or a touch (a quota raised through the simulator) passes it at once again.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use super::{by_project, lease, PassReport, Reconciler};
use crate::store::{Observed, StoreError};

/// Changes arriving this close together are handled in one go.
const COALESCE: Duration = Duration::from_millis(5);

/// A steady project is passed by every this many resyncs (and at once when it changes).
pub const STEADY_RESYNCS: u32 = 15;

/// Whether a pass that did `report` moved nothing: no write, creation, deletion or failure.
fn idle(report: &PassReport) -> bool {
    report.changed == 0
        && report.created == 0
        && report.deleted == 0
        && report.failed == 0
        && report.cut_short == 0
}

/// Whether every kluster of `group` is Running with each of its pools' nodes healthy (or
/// their health unknown: nothing will change that); `full`: and each pool at its size.
fn up(group: &[Observed], full: bool) -> bool {
    group.iter().all(|o| {
        let k = &o.stored.kluster;
        k.status.phase == kluster::KlusterPhase::Running
            && k.spec.node_pools.len() == k.status.node_pools.len()
            && k.status.node_pools.iter().all(|p| {
                (p.health_unknown || p.healthy == p.running) && (!full || p.running == p.size)
            })
    })
}

/// Whether a pass over `group` that did `report` left nothing to do.
fn quiet(group: &[Observed], report: &PassReport) -> bool {
    idle(report) && report.refused == 0 && up(group, true)
}

/// Whether a pass over `group` that did `report` got nowhere only because the cloud refused
/// what it asked: everything that exists is up, nothing else moved.
fn stalled(group: &[Observed], report: &PassReport) -> bool {
    idle(report) && report.refused > 0 && up(group, false)
}

/// How a project's last pass ended, for when the resync passes it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rest {
    /// Nothing to do: full resyncs only.
    Steady,
    /// Refused this many passes in a row: again from resync number `.1` on.
    Stalled(u32, u32),
}

impl Rest {
    /// Whether the resync numbered `resync` skips the project.
    fn skips(self, resync: u32) -> bool {
        match self {
            Rest::Steady => true,
            Rest::Stalled(_, from) => resync < from,
        }
    }
}

/// The rest after a pass that left the project `settled` or `stuck` (see [`quiet`] and
/// [`stalled`]), given the one before it, at resync number `resync`.
fn rest_after(before: Option<Rest>, settled: bool, stuck: bool, resync: u32) -> Option<Rest> {
    if settled {
        return Some(Rest::Steady);
    }
    if !stuck {
        return None;
    }
    let times = match before {
        Some(Rest::Stalled(n, _)) => n.saturating_add(1),
        _ => 1,
    };
    let wait = 2u32.saturating_pow(times).min(STEADY_RESYNCS);
    Some(Rest::Stalled(times, resync.saturating_add(wait)))
}

impl Reconciler {
    /// The klusters of the projects to pass now: all of them on a full resync (or a resync
    /// that skips nothing: one query instead of one per project); else the woken ones and
    /// (on a resync) those whose rest does not skip resync number `resyncs`. Projects
    /// still being passed wait.
    async fn due(
        &self,
        full: bool,
        resync: bool,
        resyncs: u32,
        woken: &HashSet<String>,
        rests: &HashMap<String, Rest>,
        running: &HashSet<String>,
    ) -> Result<Vec<Observed>, StoreError> {
        let resting = |p: &String| rests.get(p).is_some_and(|r| r.skips(resyncs));
        if full || (resync && !rests.values().any(|r| r.skips(resyncs))) {
            return self.store.list_all().await;
        }
        let mut projects: Vec<String> = woken.iter().cloned().collect();
        if resync {
            for p in self.store.kluster_projects().await? {
                if !resting(&p) && !woken.contains(&p) {
                    projects.push(p);
                }
            }
        }
        let mut some = Vec::new();
        for project in projects.iter().filter(|p| !running.contains(*p)) {
            some.extend(self.store.list_observed(project).await?);
        }
        Ok(some)
    }

    /// Runs until `shutdown` completes: projects every `every` (steady ones every
    /// [`STEADY_RESYNCS`] × `every`; all at start), a project at once when one of its
    /// klusters changes; only while this replica holds the reconcile lease (other replicas
    /// wait and take over when it expires). Failures are logged and retried.
    pub async fn run(self, every: Duration, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let slots = Arc::new(tokio::sync::Semaphore::new(self.concurrency.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        let mut busy: HashMap<tokio::task::Id, String> = HashMap::new();
        let mut changes = self.store.kluster_changes();
        let holder = lease::holder_name();
        let ttl = self.lease_ttl.max(Duration::from_secs(1));
        let mut renewed = Instant::now() - ttl;
        let mut resync = Instant::now(); // due now
        let mut resyncs: u32 = 0; // the first one is full
        let mut woken: HashSet<String> = HashSet::new();
        let mut rests: HashMap<String, Rest> = HashMap::new();
        loop {
            if renewed.elapsed() >= ttl / 3 || !self.lease.valid() {
                self.lease.renew(&self.store, &holder, ttl).await;
                renewed = Instant::now();
            }
            let leading = self.lease.valid();
            if !leading {
                rests.clear(); // a new leader term starts with a full resync
                resyncs = 0;
            }
            let resync_due = leading && Instant::now() >= resync;
            if leading && (resync_due || !woken.is_empty()) {
                let full = resync_due && resyncs.is_multiple_of(STEADY_RESYNCS);
                if resync_due {
                    resync = Instant::now() + every;
                    resyncs = resyncs.wrapping_add(1);
                }
                let running: HashSet<String> = busy.values().cloned().collect();
                let listed = self
                    .due(full, resync_due, resyncs, &woken, &rests, &running)
                    .await;
                match listed {
                    Ok(all) => {
                        for (project, group) in by_project(all) {
                            if running.contains(&project) {
                                // Still going: a wake-up stays for when it finishes.
                                continue;
                            }
                            woken.remove(&project);
                            let before = rests.remove(&project);
                            let (rec, slots, name) = (self.clone(), slots.clone(), project.clone());
                            let handle = tasks.spawn(async move {
                                let Ok(_slot) = slots.acquire_owned().await else {
                                    return (project, None);
                                };
                                let report = rec.project(&project, &group, Some(&rec.lease)).await;
                                let rest = rest_after(
                                    before,
                                    quiet(&group, &report),
                                    stalled(&group, &report),
                                    resyncs,
                                );
                                (project, rest)
                            });
                            busy.insert(handle.id(), name);
                        }
                        // Woken projects without klusters (one was just removed) are done.
                        woken.retain(|p| running.contains(p));
                    }
                    Err(e) => {
                        tracing::error!(controller = "reconcile", error = %e, "reconcile pass failed");
                    }
                }
            }
            let next = if leading {
                resync.min(renewed + ttl / 3)
            } else {
                Instant::now() + every.min(ttl / 8)
            };
            tokio::select! {
                _ = &mut shutdown => {
                    if self.lease.valid() {
                        let _ = self.store.release_lease(lease::NAME, &holder).await;
                    }
                    return;
                }
                _ = tokio::time::sleep_until(next) => {}
                done = tasks.join_next_with_id(), if !tasks.is_empty() => {
                    let id = match done {
                        Some(Ok((id, (project, rest)))) => {
                            // A change that came in meanwhile keeps it unsettled.
                            if let Some(rest) = rest.filter(|_| !woken.contains(&project)) {
                                rests.insert(project, rest);
                            }
                            Some(id)
                        }
                        Some(Err(e)) => {
                            tracing::error!(controller = "reconcile", error = %e, "a project's pass panicked");
                            Some(e.id())
                        }
                        None => None,
                    };
                    if let Some(id) = id {
                        busy.remove(&id);
                    }
                }
                change = changes.recv() => {
                    match change {
                        Ok((project, _)) => {
                            rests.remove(&project);
                            woken.insert(project);
                            tokio::time::sleep(COALESCE).await;
                            while let Ok((project, _)) = changes.try_recv() {
                                rests.remove(&project);
                                woken.insert(project);
                            }
                        }
                        Err(RecvError::Lagged(_)) => {
                            // Changes were missed: everything is due, in full.
                            resync = Instant::now();
                            resyncs = 0;
                            rests.clear();
                        }
                        Err(RecvError::Closed) => {}
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stalled_project_rests_longer_each_time_up_to_a_steady_one() {
        let mut rest = None;
        let mut waits = Vec::new();
        for resync in [10, 12, 16, 24, 39, 54] {
            rest = rest_after(rest, false, true, resync);
            match rest {
                Some(Rest::Stalled(_, from)) => waits.push(from - resync),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(waits, [2, 4, 8, 15, 15, 15]);
        let r = rest.unwrap();
        assert!(r.skips(60) && !r.skips(69));
        // Progress ends the rest; nothing left to do is steady whatever came before.
        assert_eq!(rest_after(rest, false, false, 70), None);
        assert_eq!(rest_after(rest, true, false, 70), Some(Rest::Steady));
        assert!(Rest::Steady.skips(u32::MAX));
    }
}
