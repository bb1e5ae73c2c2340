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

/// Whether a pass over `group` that did `report` left nothing to do.
fn quiet(group: &[Observed], report: &PassReport) -> bool {
    report.changed == 0
        && report.created == 0
        && report.deleted == 0
        && report.failed == 0
        && report.cut_short == 0
        && group.iter().all(|o| {
            let k = &o.stored.kluster;
            k.status.phase == kluster::KlusterPhase::Running
                && k.spec.node_pools.len() == k.status.node_pools.len()
                && k.status
                    .node_pools
                    .iter()
                    .all(|p| p.running == p.size && p.healthy == p.size)
        })
}

impl Reconciler {
    /// The klusters of the projects to pass now: all of them on a full resync (or a resync
    /// while nothing is steady: one query instead of one per project); else the woken ones
    /// and (on a resync) those not steady. Projects still being passed wait.
    async fn due(
        &self,
        full: bool,
        resync: bool,
        woken: &HashSet<String>,
        steady: &HashSet<String>,
        running: &HashSet<String>,
    ) -> Result<Vec<Observed>, StoreError> {
        if full || (resync && steady.is_empty()) {
            return self.store.list_all().await;
        }
        let mut projects: Vec<String> = woken.iter().cloned().collect();
        if resync {
            for p in self.store.kluster_projects().await? {
                if !steady.contains(&p) && !woken.contains(&p) {
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
        let mut steady: HashSet<String> = HashSet::new();
        loop {
            if renewed.elapsed() >= ttl / 3 || !self.lease.valid() {
                self.lease.renew(&self.store, &holder, ttl).await;
                renewed = Instant::now();
            }
            let leading = self.lease.valid();
            if !leading {
                steady.clear(); // a new leader term starts with a full resync
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
                let listed = self.due(full, resync_due, &woken, &steady, &running).await;
                match listed {
                    Ok(all) => {
                        for (project, group) in by_project(all) {
                            if running.contains(&project) {
                                // Still going: a wake-up stays for when it finishes.
                                continue;
                            }
                            woken.remove(&project);
                            steady.remove(&project);
                            let (rec, slots, name) = (self.clone(), slots.clone(), project.clone());
                            let handle = tasks.spawn(async move {
                                let Ok(_slot) = slots.acquire_owned().await else {
                                    return (project, false);
                                };
                                let report = rec.project(&project, &group, Some(&rec.lease)).await;
                                let settled = quiet(&group, &report);
                                (project, settled)
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
                        Some(Ok((id, (project, settled)))) => {
                            // A change that came in meanwhile keeps it unsettled.
                            if settled && !woken.contains(&project) {
                                steady.insert(project);
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
                            steady.remove(&project);
                            woken.insert(project);
                            tokio::time::sleep(COALESCE).await;
                            while let Ok((project, _)) = changes.try_recv() {
                                steady.remove(&project);
                                woken.insert(project);
                            }
                        }
                        Err(RecvError::Lagged(_)) => {
                            // Changes were missed: everything is due, in full.
                            resync = Instant::now();
                            resyncs = 0;
                            steady.clear();
                        }
                        Err(RecvError::Closed) => {}
                    }
                }
            }
        }
    }
}
