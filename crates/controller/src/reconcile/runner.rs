//! The reconcile loop: while this replica holds the reconcile lease, every project is
//! reconciled on a timer (the resync), and a project is reconciled at once when one of its
//! klusters changes in the store (an API write here, or any replica's write announced by
//! the database), as Kubernetes controllers watch. A project whose pass is still going is
//! not started twice; a change that arrives meanwhile runs it again when it finishes.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;
use tokio::time::Instant;

use super::{by_project, lease, Reconciler};

/// Changes arriving this close together are handled in one go.
const COALESCE: Duration = Duration::from_millis(5);

impl Reconciler {
    /// Runs until `shutdown` completes: all projects every `every` (and at start), a
    /// project at once when one of its klusters changes; only while this replica holds
    /// the reconcile lease (other replicas wait and take over when it expires). Failures
    /// are logged and retried.
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
        let mut woken: HashSet<String> = HashSet::new();
        loop {
            if renewed.elapsed() >= ttl / 3 || !self.lease.valid() {
                self.lease.renew(&self.store, &holder, ttl).await;
                renewed = Instant::now();
            }
            let leading = self.lease.valid();
            let all_due = leading && Instant::now() >= resync;
            if leading && (all_due || !woken.is_empty()) {
                if all_due {
                    resync = Instant::now() + every;
                }
                let running: HashSet<String> = busy.values().cloned().collect();
                // A wake-up reads only the woken projects' klusters (not the whole store).
                let listed = if all_due {
                    self.store.list_all().await
                } else {
                    let mut some = Vec::new();
                    let mut failed = None;
                    for project in woken.iter().filter(|p| !running.contains(*p)) {
                        match self.store.list_observed(project).await {
                            Ok(group) => some.extend(group),
                            Err(e) => failed = Some(e),
                        }
                    }
                    failed.map_or(Ok(some), Err)
                };
                match listed {
                    Ok(all) => {
                        for (project, group) in by_project(all) {
                            if !all_due && !woken.contains(&project) {
                                continue;
                            }
                            if running.contains(&project) {
                                // Still going: a wake-up stays for when it finishes.
                                continue;
                            }
                            woken.remove(&project);
                            let (rec, slots, name) = (self.clone(), slots.clone(), project.clone());
                            let handle = tasks.spawn(async move {
                                let Ok(_slot) = slots.acquire_owned().await else {
                                    return;
                                };
                                rec.project(&project, &group, Some(&rec.lease)).await;
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
                        Some(Ok((id, ()))) => Some(id),
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
                            woken.insert(project);
                            tokio::time::sleep(COALESCE).await;
                            while let Ok((project, _)) = changes.try_recv() {
                                woken.insert(project);
                            }
                        }
                        Err(RecvError::Lagged(_)) => resync = Instant::now(),
                        Err(RecvError::Closed) => {}
                    }
                }
            }
        }
    }
}
