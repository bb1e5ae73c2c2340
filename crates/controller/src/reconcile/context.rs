//! What a reconciler acts with: [`Ctx`] (one project's pass: the store, the cloud with the
//! pass's time budget, events), [`KlusterView`] (what the cloud and the store showed about one
//! kluster) and [`Outcome`] (what a reconciler did with it).

use std::collections::BTreeSet;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use kluster::{EventDetail, EventReason, EventType, Kluster, Router};
use tokio::time::Instant;

use super::next::Next;
use crate::cloud::{Cloud, CloudError, Resource, Server};
use crate::store::{self, NewEvent, Store, StoreError};

/// Longest budget or call timeout honoured (longer ones are cut to it).
pub(super) const LONGEST: Duration = Duration::from_secs(24 * 3600);

/// Cloud calls in flight at once for one kluster ([`Ctx::calls`]).
pub(super) const CALLS_AT_ONCE: usize = 8;

/// How long the simulated phases take, and how long the reconcilers wait for things.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Control plane start-up (Creating → Running).
    pub create: Duration,
    /// Control plane upgrade (Upgrading → Running).
    pub upgrade: Duration,
    /// A kluster not Running this long after creation gets a Warning (Kubernikus: 30 min).
    pub creation_timeout: Duration,
    /// Flight deletes servers not registered as nodes this long after boot (45 min).
    pub register_timeout: Duration,
    /// A pool's wait before its next server after one failed in the cloud (30 s); it
    /// doubles with each failure in a row, up to `create_retry_cap`.
    pub create_retry: Duration,
    /// The longest such wait (5 min).
    pub create_retry_cap: Duration,
}

impl Timing {
    /// Creating and upgrading take `phase`; the timeouts are Kubernikus's (30 and 45 min);
    /// a failed server is retried after 30 s, doubling up to 5 min.
    pub fn scaled(phase: Duration) -> Timing {
        Timing {
            create: phase,
            upgrade: phase,
            creation_timeout: Duration::from_secs(30 * 60),
            register_timeout: Duration::from_secs(45 * 60),
            create_retry: Duration::from_secs(30),
            create_retry_cap: Duration::from_secs(300),
        }
    }

    /// The wait after the `failures`-th failure in a row: [`Timing::create_retry`],
    /// doubled for each failure before, at most [`Timing::create_retry_cap`].
    pub fn create_wait(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(20);
        self.create_retry
            .saturating_mul(1u32 << doublings)
            .min(self.create_retry_cap)
    }
}

/// "30 minutes", "90 seconds".
pub fn human(d: Duration) -> String {
    match d.as_secs() {
        60 => "1 minute".into(),
        s if s >= 60 && s % 60 == 0 => format!("{} minutes", s / 60),
        s => format!("{s} seconds"),
    }
}

/// One project's pass: the reconciler's store and cloud, the project, and the deadline of
/// its time budget.
pub struct Ctx<'a> {
    /// The reconcile lease: no kluster is touched once it is not held (`None`: no lease).
    pub(super) lease: Option<&'a super::lease::Lease>,
    pub(super) store: &'a Store,
    pub(super) cloud: &'a dyn Cloud,
    pub(super) timing: Timing,
    pub(super) call_timeout: Duration,
    pub(super) budget: Duration,
    /// The project whose klusters are reconciled.
    pub project: &'a str,
    pub(super) deadline: Instant,
    /// Where reconcile durations, errors and events are counted.
    pub(super) metrics: &'a crate::metrics::Metrics,
    /// Seals and opens klusters' own users' passwords.
    pub(super) sealer: &'a crate::pki::Sealer,
    /// Server deletes sent while a pass was going, for the next one.
    pub(super) early_deletes: &'a super::early_deletes::EarlyDeletes,
    /// Klusters whose nodes were all going at the last full server listing.
    pub(super) departing: &'a super::departing::DepartingNodes,
    /// Look-alikes already said to be left alone.
    pub(super) told: &'a super::told::Told,
    /// Each project's last full server listing.
    pub(super) listings: &'a super::listings::Listings,
    /// The longest a project goes without a full server listing (zero: every look).
    pub(super) full_listing_every: Duration,
    /// What Nova's notifications say (trusted: no question between full listings).
    pub(super) notices: &'a crate::notices::Notices,
}

/// What the cloud showed for one project in this pass (`None`: it did not answer).
#[derive(Debug, Default)]
pub struct Seen {
    /// Routers (with networks and subnets), for Pending klusters.
    pub routers: Option<Vec<Router>>,
    /// The project's servers.
    pub servers: Option<Vec<Server>>,
    /// The project's resources, for Terminating klusters.
    pub resources: Option<Vec<Resource>>,
    /// The resources were not listed: every Terminating kluster only waits for its nodes
    /// to go (all listed as going).
    pub waiting_for_nodes: bool,
}

/// What is known about one kluster in this pass.
pub struct KlusterView<'a> {
    /// The kluster as stored, with its time in phase and its age.
    pub stored: &'a store::Observed,
    /// What the cloud showed for the kluster's project.
    pub cloud: &'a Seen,
    /// Servers flight deleted in this pass (launch does not delete them again).
    pub grounded: BTreeSet<String>,
    /// Server deletes deorbit sent as the pass began, with the cloud's answers.
    pub sent: &'a [(String, Result<(), CloudError>)],
}

/// What a reconciler did with one kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Servers created.
    pub created: usize,
    /// Servers and resources whose deletion was requested.
    pub deleted: usize,
    /// Server creations the cloud refused (over quota, or a fault).
    pub refused: usize,
    /// Ids of servers deleted as broken (flight).
    pub grounded: BTreeSet<String>,
    /// Ids of servers created (launch).
    pub launched: Vec<String>,
    /// Ids of stopped servers started (flight).
    pub started: BTreeSet<String>,
    /// Ids of servers deleted by a scale-down (launch).
    pub dropped: BTreeSet<String>,
    /// Nothing is left of the kluster: it can be removed (deorbit).
    pub removed: bool,
    /// When the reconciler wants the kluster again.
    pub next: Next,
}

impl Outcome {
    /// Adds what another reconciler did.
    pub fn add(&mut self, other: Outcome) {
        self.created += other.created;
        self.deleted += other.deleted;
        self.refused += other.refused;
        self.grounded.extend(other.grounded);
        self.launched.extend(other.launched);
        self.started.extend(other.started);
        self.dropped.extend(other.dropped);
        self.removed |= other.removed;
        self.next = self.next.and(other.next);
    }
}

impl Ctx<'_> {
    /// The controller's store.
    pub fn store(&self) -> &Store {
        self.store
    }

    /// The cloud; await its calls through [`Ctx::call`].
    pub fn cloud(&self) -> &dyn Cloud {
        self.cloud
    }

    /// How long phases take and how long to wait for things.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// Awaits a cloud call for at most the call timeout, and never past the budget's
    /// deadline (after it the call fails at once).
    pub async fn call<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, CloudError>>,
    ) -> Result<T, CloudError> {
        let call_timeout = self.call_timeout.min(LONGEST);
        let now = Instant::now();
        if now >= self.deadline {
            return Err(self.spent());
        }
        let until = (now + call_timeout).min(self.deadline);
        match tokio::time::timeout_at(until, fut).await {
            Ok(r) => r,
            Err(_) if until < now + call_timeout => Err(self.spent()),
            Err(_) => Err(CloudError::new(format!(
                "the cloud did not answer within {}",
                human(call_timeout)
            ))),
        }
    }

    /// Cloud calls, each as [`Ctx::call`], at most [`CALLS_AT_ONCE`] at a time; their
    /// answers in the calls' order.
    pub async fn calls<T>(
        &self,
        calls: Vec<impl std::future::Future<Output = Result<T, CloudError>>>,
    ) -> Vec<Result<T, CloudError>> {
        let calls: Vec<_> = calls.into_iter().map(|c| self.call(c)).collect();
        stream::iter(calls).buffered(CALLS_AT_ONCE).collect().await
    }

    fn spent(&self) -> CloudError {
        CloudError::new(format!(
            "the cloud answers too slowly: this pass's time budget for the project ({}) is spent; the next pass goes on",
            human(self.budget)
        ))
    }

    /// Records an event about kluster `k` (by its uid; aggregated with identical ones),
    /// with a typed `detail` when there is one, and logs its first occurrence.
    pub async fn event(
        &self,
        k: &Kluster,
        kind: EventType,
        reason: EventReason,
        detail: Option<EventDetail>,
        message: &str,
    ) -> Result<(), StoreError> {
        let project = self.project;
        let uid = k.metadata.as_ref().map(|m| m.uid.as_str());
        let (_, count) = self
            .store()
            .record_event_counted(NewEvent {
                project,
                kluster: &k.name,
                uid,
                kind,
                reason: &reason,
                detail: detail.as_ref(),
                message,
            })
            .await?;
        let k = k.name.as_str();
        let controller = controller_of(&reason);
        let reason = reason.as_str();
        self.metrics.event(reason, kind.as_str());
        if count > 1 {
            // A repeat (aggregated): the first occurrence was logged.
            tracing::debug!(
                controller,
                kluster = k,
                project,
                reason,
                count,
                "event repeated"
            );
        } else if kind == EventType::Warning {
            tracing::warn!(controller, kluster = k, project, reason, message, "event");
        } else {
            tracing::info!(controller, kluster = k, project, reason, message, "event");
        }
        Ok(())
    }

    /// A Normal event.
    pub async fn normal(
        &self,
        k: &Kluster,
        reason: EventReason,
        message: &str,
    ) -> Result<(), StoreError> {
        self.event(k, EventType::Normal, reason, None, message)
            .await
    }

    /// A Warning event.
    pub async fn warn(
        &self,
        k: &Kluster,
        reason: EventReason,
        message: &str,
    ) -> Result<(), StoreError> {
        self.event(k, EventType::Warning, reason, None, message)
            .await
    }

    /// Records the cloud's answer to deleting node `node` (server `id`) of kluster `k`:
    /// deleted, it is counted, forgotten (`out.dropped`: later passes do not look it up by
    /// id) and a `SuccessfulDeleteNode` event says so; refused, a `FailedDeleteNode`
    /// warning. `true` when it was deleted.
    pub async fn node_deleted(
        &self,
        k: &Kluster,
        id: &str,
        node: &str,
        result: &Result<(), CloudError>,
        out: &mut Outcome,
    ) -> Result<bool, StoreError> {
        match result {
            Ok(()) => {
                out.deleted += 1;
                out.dropped.insert(id.to_string());
                let message = format!("Successfully deleted node {node}");
                self.normal(k, EventReason::SuccessfulDeleteNode, &message)
                    .await?;
                Ok(true)
            }
            Err(e) => {
                let message = format!("Failed to delete node {node}: {e}");
                self.warn(k, EventReason::FailedDeleteNode, &message)
                    .await?;
                Ok(false)
            }
        }
    }

    /// A Warning event with a typed detail (advice keys on it, not on the message).
    pub async fn warn_with(
        &self,
        k: &Kluster,
        reason: EventReason,
        detail: Option<EventDetail>,
        message: &str,
    ) -> Result<(), StoreError> {
        self.event(k, EventType::Warning, reason, detail, message)
            .await
    }
}

/// Which reconciler records events with `reason` (the `controller=` log field).
fn controller_of(reason: &EventReason) -> &'static str {
    use EventReason::*;
    match reason {
        DeletedBrokenNode | StoppedNode => "flight",
        WaitingForDeorbitVolumes
        | WaitingForDeorbitLoadBalancers
        | WaitingForDeorbitRoutes
        | WaitingForDeorbitFloatingIPs
        | WaitingForDeorbitSecurityGroups
        | WaitingForDeorbitNodes
        | SuccessfulDeorbitVolumes
        | SuccessfulDeorbitLoadBalancers
        | SuccessfulDeorbitRoutes
        | SuccessfulDeorbitFloatingIPs
        | SuccessfulDeorbitSecurityGroups
        | SuccessfulDeorbit
        | FailedDeorbit => "deorbit",
        CreatingNode | SuccessfulCreateNode | FailedCreateNode | SuccessfulDeleteNode
        | FailedDeleteNode => "launch",
        CloudUnavailable | NotOwned => "reconcile",
        _ => "ground",
    }
}
