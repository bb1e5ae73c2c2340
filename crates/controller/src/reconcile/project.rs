//! One project's pass: ask the cloud once what the project's klusters need to know, then
//! reconcile each kluster in its own `tracing` span — ground, then flight and launch
//! (running) or deorbit (terminating) — and write back what the reconcilers own. A
//! kluster whose reconciliation fails (a store error) is logged and the pass goes on.

use std::collections::BTreeMap;

use kluster::{EventReason, KlusterPhase};
use tracing::Instrument;

use super::context::{Ctx, KlusterView, Outcome, Seen};
use super::next::Next;
use super::{deorbit, flight, ground, launch};
use crate::cloud::{CloudError, ServerStatus};
use crate::store::{self, ServerMark, StoreError};

/// What one pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Klusters looked at.
    pub klusters: usize,
    /// Klusters whose stored state changed (or that were removed).
    pub changed: usize,
    /// Servers created.
    pub created: usize,
    /// Servers and resources whose deletion was requested.
    pub deleted: usize,
    /// Server creations the cloud refused (over quota, or a fault).
    pub refused: usize,
    /// Projects whose pass was cut short at twice their time budget.
    pub cut_short: usize,
    /// Klusters whose reconciliation failed (logged; the next pass tries again).
    pub failed: usize,
}

impl PassReport {
    pub(super) fn add(&mut self, other: PassReport) {
        self.klusters += other.klusters;
        self.changed += other.changed;
        self.created += other.created;
        self.deleted += other.deleted;
        self.refused += other.refused;
        self.cut_short += other.cut_short;
        self.failed += other.failed;
    }
}

/// One project's pass: what it did, and when each of its klusters wants the next one
/// (`None`: the kluster was removed).
#[derive(Debug, Default)]
pub struct ProjectPass {
    /// What the pass did.
    pub report: PassReport,
    /// Each kluster passed, by name, with its wish for the next pass.
    pub next: Vec<(String, Option<Next>)>,
}

impl Ctx<'_> {
    /// Reconciles the project's klusters (`group`), each on its own.
    pub(super) async fn pass(&self, group: &[store::Observed]) -> ProjectPass {
        let mut report = PassReport {
            klusters: group.len(),
            ..Default::default()
        };
        let mut next = Vec::with_capacity(group.len());
        // A deleted kluster's known nodes go while the cloud is listed, not after; when the
        // project has only deleted klusters, before their servers are listed.
        let (seen, sent) = match Self::sends_first(group) {
            true => self.look_after_deletes(group).await,
            false => tokio::join!(self.look(group), deorbit::send_first(group, self)),
        };
        // A pass the cloud did not answer counts once (each kluster gets its own event).
        let phase = |o: &&store::Observed| o.stored.kluster.status.phase;
        let waits_for_cloud = group.iter().any(|o| {
            matches!(
                phase(&o),
                KlusterPhase::Running | KlusterPhase::Upgrading | KlusterPhase::Terminating
            )
        });
        let terminating = group.iter().any(|o| phase(&o) == KlusterPhase::Terminating);
        let resources_missing = seen.resources.is_none() && !seen.waiting_for_nodes;
        if waits_for_cloud && (seen.servers.is_none() || (terminating && resources_missing)) {
            self.metrics.reconcile_error("cloud_unavailable");
        }
        // The request id of each kluster's newest change, so this pass's lines and events
        // can be followed back to the click that caused them.
        let causes = self
            .store()
            .last_change_requests(self.project)
            .await
            .unwrap_or_default();
        // Servers made, deleted or started in this pass: the next look lists in full (a
        // server just made may not show as changed yet); a kluster removed: the listing
        // of a project left without klusters is not kept.
        let mut acted = !sent.is_empty();
        for (i, o) in group.iter().enumerate() {
            if self.lease.is_some_and(|l| !l.valid()) {
                tracing::warn!(
                    controller = "reconcile",
                    project = self.project,
                    "the reconcile lease is not held any more: pass stopped"
                );
                // Not reached: looked at soon again (by whoever holds the lease then).
                let rest = group[i..].iter();
                next.extend(rest.map(|o| (o.stored.kluster.name.clone(), Some(Next::soon()))));
                break;
            }
            let name = o.stored.kluster.name.as_str();
            // Deleted since this pass read it, and its nodes sent aside: what this pass
            // listed may show them going; the pass its delete woke takes it over.
            if phase(&o) != KlusterPhase::Terminating && self.early_deletes.has(self.project, name)
            {
                tracing::debug!(
                    controller = "reconcile",
                    kluster = name,
                    project = self.project,
                    "deleted during the pass: left to the next one"
                );
                next.push((name.to_string(), Some(Next::soon())));
                continue;
            }
            let span = tracing::info_span!(
                "reconcile",
                kluster = name,
                project = self.project,
                request_id = causes.get(name).map_or("", String::as_str),
            );
            let sent = sent.get(name).map_or(&[][..], Vec::as_slice);
            match self.kluster(o, &seen, sent).instrument(span).await {
                Ok((out, changed)) => {
                    acted |= out.removed
                        || !(out.started.is_empty()
                            && out.grounded.is_empty()
                            && out.dropped.is_empty()
                            && out.launched.is_empty());
                    report.created += out.created;
                    report.deleted += out.deleted;
                    report.refused += out.refused;
                    report.changed += usize::from(changed);
                    next.push((name.to_string(), (!out.removed).then_some(out.next)));
                }
                Err(e) => {
                    report.failed += 1;
                    next.push((name.to_string(), Some(Next::backoff())));
                    tracing::error!(
                        controller = "reconcile",
                        kluster = name,
                        project = self.project,
                        error = %e,
                        "reconciling the kluster failed; the next pass tries again"
                    );
                }
            }
        }
        if acted || report.created + report.deleted > 0 {
            self.listings.forget(self.project);
        }
        ProjectPass { report, next }
    }

    /// Records the ids of kluster `o`'s servers after this pass (listed or looked up, less
    /// those deleted, plus those created) with their marks, when they changed: a server
    /// created is booting until it is listed as anything but booting; a server started
    /// stays marked started.
    async fn record(
        &self,
        o: &store::Observed,
        seen: &Seen,
        out: &Outcome,
    ) -> Result<(), StoreError> {
        let name = &o.stored.kluster.name;
        let Some(servers) = &seen.servers else {
            // Nothing listed: only the servers this pass deleted leave the record.
            if out.dropped.is_empty() {
                return Ok(());
            }
            let left = o.servers.iter().filter(|id| !out.dropped.contains(*id));
            let ids: Vec<String> = left.cloned().collect();
            return self
                .store()
                .record_servers(self.project, name, &ids, &o.marks)
                .await;
        };
        let listed: Vec<&crate::cloud::Server> = servers
            .iter()
            .filter(|s| &s.kluster == name && s.status != ServerStatus::Deleting)
            .filter(|s| !out.grounded.contains(&s.id) && !out.dropped.contains(&s.id))
            .collect();
        let mut ids: Vec<String> = listed
            .iter()
            .map(|s| s.id.clone())
            .chain(out.launched.iter().cloned())
            .collect();
        ids.sort();
        ids.dedup();
        let mut marks = BTreeMap::new();
        for s in &listed {
            let mark = match o.marks.get(&s.id) {
                _ if out.started.contains(&s.id) => Some(ServerMark::Started),
                Some(ServerMark::Booting) if s.status == ServerStatus::Build => {
                    Some(ServerMark::Booting)
                }
                Some(ServerMark::Started) => Some(ServerMark::Started),
                _ => None,
            };
            if let Some(m) = mark {
                marks.insert(s.id.clone(), m);
            }
        }
        for id in &out.launched {
            marks.insert(id.clone(), ServerMark::Booting);
        }
        let mut known = o.servers.clone();
        known.sort();
        if ids != known || marks != o.marks {
            self.store()
                .record_servers(self.project, name, &ids, &marks)
                .await?;
        }
        Ok(())
    }

    /// Awaits one reconciler's work on a kluster, timed (and counted as an error when it
    /// fails) in the metrics.
    async fn timed<T>(
        &self,
        reconciler: &str,
        work: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let start = tokio::time::Instant::now();
        let r = work.await;
        self.metrics.reconciled(
            reconciler,
            start.elapsed(),
            r.as_ref().err().map(StoreError::kind),
        );
        r
    }

    /// One kluster: the reconcilers in turn, then the write-back; `true` when its stored
    /// state changed (or it was removed).
    async fn kluster(
        &self,
        o: &store::Observed,
        seen: &Seen,
        sent: &[(String, Result<(), CloudError>)],
    ) -> Result<(Outcome, bool), StoreError> {
        let project = self.project;
        let before = &o.stored.kluster;
        let mut k = before.clone();
        let name = before.name.as_str();
        let mut observed = KlusterView {
            stored: o,
            cloud: seen,
            grounded: Default::default(),
            sent,
        };
        let mut out = self
            .timed("ground", ground::reconcile(&mut k, &observed, self))
            .await?;
        match (k.status.phase, &seen.servers, &seen.resources) {
            (KlusterPhase::Running | KlusterPhase::Upgrading, Some(_), _) => {
                let flown = self
                    .timed("flight", flight::reconcile(&mut k, &observed, self))
                    .await?;
                observed.grounded = flown.grounded.clone();
                out.add(flown);
                out.add(
                    self.timed("launch", launch::reconcile(&mut k, &observed, self))
                        .await?,
                );
            }
            (KlusterPhase::Terminating, Some(_), Some(_)) => {
                out.add(
                    self.timed("deorbit", deorbit::reconcile(&mut k, &observed, self))
                        .await?,
                );
                if out.removed {
                    self.store().delete(project, name).await?;
                    tracing::info!(
                        controller = "deorbit",
                        kluster = name,
                        project,
                        "kluster removed"
                    );
                    return Ok((out, true));
                }
            }
            (KlusterPhase::Terminating, Some(servers), None) if seen.waiting_for_nodes => {
                out.add(
                    self.timed("deorbit", deorbit::wait_for_nodes(&k, servers, self))
                        .await?,
                );
            }
            (KlusterPhase::Running | KlusterPhase::Upgrading | KlusterPhase::Terminating, ..) => {
                let message = "The cloud did not answer; retrying";
                self.warn(before, EventReason::CloudUnavailable, message)
                    .await?;
                deorbit::report_sent(before, &observed, &[], self, &mut out).await?;
                out.next = Next::backoff();
            }
            _ => {}
        }
        if before.status.phase != KlusterPhase::Pending {
            self.record(o, seen, &out).await?;
        }
        if k == *before {
            return Ok((out, false));
        }
        // Write only what the reconcilers own, and only if nobody else changed it since this
        // pass read it (the next pass will look again).
        let (status, openstack) = (k.status, k.spec.openstack);
        let written = self
            .store()
            .modify(project, name, |cur| {
                if cur.status != before.status || cur.spec.openstack != before.spec.openstack {
                    return Err(());
                }
                cur.status = status;
                cur.spec.openstack = openstack;
                Ok(())
            })
            .await?;
        Ok((out, matches!(written, Some(Ok(_)))))
    }
}
