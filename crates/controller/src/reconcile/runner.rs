//! The reconcile loop, while this replica holds the reconcile lease: a queue of due times
//! ([`Queue`]). Each kluster's pass ends with its reconcilers' wish for the next one
//! ([`Next`]): at a deadline (Creating → Running wakes at the phase's end), after one poll
//! interval while the cloud works on something it waits for (servers booting or going;
//! a quarter, then half an interval at first, and so again after each change of the kluster),
//! after a delay that doubles per kluster while the cloud refuses it (a pool over quota),
//! or only when it changes. A change in the store (an API write here, or any replica's
//! write announced by the database; a simulator setting touches the whole project) passes
//! the kluster's project at once, as Kubernetes controllers watch. A full resync passes
//! every kluster now and then (`resync_every`, else every [`FULL_RESYNC_POLLS`] poll
//! intervals), as a safety net for what changes in the cloud unseen (a server deleted by
//! hand): for an idle kluster, one server listing of its project each time.
//!
//! When the cloud's notification bus is read (`crate::notices`), a kluster's server
//! deleted, failed or come up wakes its project the same way, with its listing forgotten.
//!
//! A project whose pass is still going is not started twice; a change or a due kluster that
//! arrives meanwhile passes it again when it finishes. A kluster deleted meanwhile (that
//! pass saw it before) has its known nodes deleted at once ([`Reconciler::send_early_deletes`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::time::Instant;

use super::next::{Key, Queue};
use super::{by_project, lease, ProjectPass, Reconciler};
use crate::store::{Observed, StoreError};

/// Changes arriving this close together are handled in one go.
const COALESCE: Duration = Duration::from_millis(5);

/// Most deletes sent aside at once (more changes wait for their project's next pass).
const EARLY_DELETES_AT_ONCE: usize = 16;

/// A full resync passes every kluster every this many poll intervals; it is also the
/// longest backoff.
pub const FULL_RESYNC_POLLS: u32 = 15;

/// The tasks sending deletes aside ([`Reconciler::send_early_deletes`]), with their projects: a
/// project is not passed while its deletes are being sent aside (its next pass takes
/// their answers, so it waits for them).
#[derive(Default)]
struct EarlyDeleteTasks {
    tasks: tokio::task::JoinSet<()>,
    projects: HashMap<tokio::task::Id, String>,
}

impl EarlyDeleteTasks {
    /// Sends kluster `name` of `project`'s deletes aside, unless [`EARLY_DELETES_AT_ONCE`] are
    /// being sent (it then waits for its project's next pass).
    fn spawn(&mut self, rec: &Reconciler, project: &str, name: &str) {
        if self.tasks.len() >= EARLY_DELETES_AT_ONCE {
            tracing::debug!(
                controller = "deorbit",
                project,
                kluster = name,
                "deletes aside at their limit: left to the next pass"
            );
            return;
        }
        let (rec, p, n) = (rec.clone(), project.to_string(), name.to_string());
        let handle = self
            .tasks
            .spawn(async move { rec.send_early_deletes(&p, &n).await });
        self.projects.insert(handle.id(), project.to_string());
    }

    /// Waits for one task to end (pending while none runs).
    async fn next(&mut self) {
        match self.tasks.join_next_with_id().await {
            Some(Ok((id, ()))) => self.projects.remove(&id),
            Some(Err(e)) => self.projects.remove(&e.id()),
            None => std::future::pending().await,
        };
    }

    /// Stops every task (the lease was lost).
    fn abort(&mut self) {
        self.tasks.abort_all();
        self.projects.clear();
    }
}

/// What is due now: every kluster (`full`), the woken projects whole, and the due
/// klusters of other projects.
struct DueNow<'a> {
    full: bool,
    woken: &'a HashSet<String>,
    klusters: Vec<Key>,
}

impl Reconciler {
    /// The klusters to pass now, of projects not being passed (`running`); due klusters of
    /// running projects wake their project for when its pass ends (added to `later`).
    async fn due(
        &self,
        now: DueNow<'_>,
        running: &HashSet<String>,
        later: &mut HashSet<String>,
    ) -> Result<Vec<Observed>, StoreError> {
        if now.full {
            return self.store.list_all().await;
        }
        let mut projects: HashMap<&str, Option<HashSet<&str>>> = HashMap::new();
        for p in now.woken {
            projects.insert(p, None); // the whole project
        }
        for (p, k) in &now.klusters {
            if running.contains(p) {
                later.insert(p.clone());
                continue;
            }
            // `None`: the whole project is woken anyway.
            if let Some(ks) = projects.entry(p).or_insert_with(|| Some(HashSet::new())) {
                ks.insert(k);
            }
        }
        let mut some = Vec::new();
        for (project, only) in projects {
            if running.contains(project) {
                continue;
            }
            let group = self.store.list_observed(project).await?;
            some.extend(group.into_iter().filter(|o| {
                only.as_ref()
                    .is_none_or(|ks| ks.contains(o.stored.kluster.name.as_str()))
            }));
        }
        Ok(some)
    }

    /// Runs until `shutdown` completes, only while this replica holds the reconcile lease
    /// (other replicas wait and take over when it expires): every kluster at start and
    /// every [`Reconciler::resync_every`] (else [`FULL_RESYNC_POLLS`] × `poll`), and each kluster when it is due (see the
    /// module doc) or its project changes. Failures are logged, counted and retried.
    pub async fn run(self, poll: Duration, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let poll = poll.max(Duration::from_millis(1));
        let full_every = self.resync_every.unwrap_or(poll * FULL_RESYNC_POLLS);
        let slots = Arc::new(tokio::sync::Semaphore::new(self.concurrency.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        let mut busy: HashMap<tokio::task::Id, String> = HashMap::new();
        // The klusters each running pass saw Terminating, by project.
        let mut passing: HashMap<String, HashSet<String>> = HashMap::new();
        let mut senders = EarlyDeleteTasks::default();
        let mut changes = self.store.kluster_changes();
        let mut told = self.notices.subscribe();
        let holder = lease::holder_name();
        let ttl = self.lease_ttl.max(Duration::from_secs(1));
        let mut renewed = Instant::now() - ttl;
        let mut full_at = Instant::now(); // the first pass is full
        let mut woken: HashSet<String> = HashSet::new();
        let mut queue = Queue::default();
        loop {
            if renewed.elapsed() >= ttl / 3 || !self.lease.valid() {
                self.lease.renew(&self.store, &holder, ttl).await;
                renewed = Instant::now();
            }
            let leading = self.lease.valid();
            if !leading {
                queue.clear(); // a new leader term starts with a full resync
                senders.abort();
                self.early_deletes.clear();
                full_at = Instant::now();
            }
            let now = Instant::now();
            let full = leading && now >= full_at;
            let klusters = if leading {
                queue.take_due(now)
            } else {
                Vec::new()
            };
            if leading && (full || !woken.is_empty() || !klusters.is_empty()) {
                if full {
                    full_at = now + full_every;
                    self.metrics.resync();
                }
                let sending = senders.projects.values();
                let running: HashSet<String> = busy.values().chain(sending).cloned().collect();
                let mut later = HashSet::new();
                let due = DueNow {
                    full,
                    woken: &woken,
                    klusters,
                };
                match self.due(due, &running, &mut later).await {
                    Ok(all) => {
                        for (project, group) in by_project(all) {
                            if running.contains(&project) {
                                // Still going: passed again when it finishes.
                                later.insert(project);
                                continue;
                            }
                            woken.remove(&project);
                            let terminating = group
                                .iter()
                                .map(|o| &o.stored.kluster)
                                .filter(|k| k.status.phase == kluster::KlusterPhase::Terminating);
                            let names = terminating.map(|k| k.name.clone()).collect();
                            passing.insert(project.clone(), names);
                            let (rec, slots, name) = (self.clone(), slots.clone(), project.clone());
                            let handle = tasks.spawn(async move {
                                let Ok(_slot) = slots.acquire_owned().await else {
                                    return (project, ProjectPass::default());
                                };
                                let pass = rec.project(&project, &group, Some(&rec.lease)).await;
                                (project, pass)
                            });
                            busy.insert(handle.id(), name);
                        }
                        // Woken projects without klusters (one was just removed) are done.
                        woken.retain(|p| running.contains(p));
                        woken.extend(later);
                    }
                    Err(e) => {
                        tracing::error!(controller = "reconcile", error = %e, "reconcile pass failed");
                        // Everything again after one poll interval.
                        full_at = full_at.min(now + poll);
                    }
                }
            }
            let next = if leading {
                let soonest = queue.first().map_or(full_at, |t| t.min(full_at));
                soonest.min(renewed + ttl / 3)
            } else {
                Instant::now() + poll.min(ttl / 8)
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
                        Some(Ok((id, (project, pass)))) => {
                            let now = Instant::now();
                            for (name, next) in pass.next {
                                let key = (project.clone(), name);
                                match next {
                                    Some(next) => {
                                        let streak = queue.streak(&key);
                                        queue.set(key, next.due(now, poll, full_every, streak));
                                    }
                                    None => {
                                        // Removed: a kluster made again with its name is new.
                                        self.early_deletes.forget(&key.0, &key.1);
                                        self.departing.forget(&key.0, &key.1);
                                        queue.remove(&key);
                                    }
                                }
                            }
                            Some(id)
                        }
                        Some(Err(e)) => {
                            tracing::error!(controller = "reconcile", error = %e, "a project's pass panicked");
                            // What it had taken from the queue is not due any more: a full
                            // resync on the next tick passes it again.
                            full_at = Instant::now();
                            Some(e.id())
                        }
                        None => None,
                    };
                    if let Some(project) = id.and_then(|id| busy.remove(&id)) {
                        passing.remove(&project);
                    }
                }
                _ = senders.next() => {}
                notice = told.recv() => {
                    // A kluster's server changed in the cloud: its project's listing is
                    // stale, and the project is looked at now. Missed notices (a lagging
                    // receiver): every listing forgotten, everything passed.
                    let mut notice = notice.map_err(|e| matches!(e, RecvError::Lagged(_)));
                    loop {
                        match notice {
                            Ok(project) => {
                                self.listings.forget(&project);
                                woken.insert(project);
                            }
                            Err(true) => {
                                self.listings.clear();
                                full_at = Instant::now();
                            }
                            Err(false) => {
                                told = self.notices.subscribe();
                                break;
                            }
                        }
                        notice = match told.try_recv() {
                            Ok(project) => Ok(project),
                            Err(TryRecvError::Lagged(_)) => Err(true),
                            Err(_) => break,
                        };
                    }
                }
                change = changes.recv() => {
                    match change {
                        Ok(first) => {
                            let mut changed = vec![first];
                            tokio::time::sleep(COALESCE).await;
                            while let Ok(next) = changes.try_recv() {
                                changed.push(next);
                            }
                            for (project, name) in changed {
                                // A running pass that did not see it Terminating would hold
                                // up its deletion: its nodes go now if it was deleted.
                                let unseen = passing
                                    .get(&project)
                                    .is_some_and(|seen| !name.is_empty() && !seen.contains(&name));
                                if leading && unseen {
                                    senders.spawn(&self, &project, &name);
                                }
                                if !name.is_empty() {
                                    queue.restart(&(project.clone(), name));
                                }
                                woken.insert(project);
                            }
                        }
                        Err(RecvError::Lagged(_)) => {
                            // Changes were missed: everything is due, in full.
                            full_at = Instant::now();
                        }
                        Err(RecvError::Closed) => {
                            // No store left to tell of changes (shutting down): the queue
                            // and the full resync still run; do not spin on this arm.
                            changes = self.store.kluster_changes();
                            tokio::time::sleep(poll).await;
                        }
                    }
                }
            }
        }
    }
}
