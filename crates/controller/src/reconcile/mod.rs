//! Reconcilers: each decides with a pure plan function of (spec, observed) and its thin
//! executor applies the plan. Level-triggered and idempotent: every pass looks at every
//! kluster and at the cloud afresh, so a pass cut short (a crash, a restart) is simply
//! finished by the next one.
//!
//! One pass, per project ([`project`]): list the cloud once (servers, and resources when a
//! kluster is terminating), then per kluster, each in its own span and with its errors kept
//! to itself: [`ground`] (phases), [`flight`] (grounds broken servers), [`launch`] (pool
//! sizes), [`deorbit`] (tear-down). Each reconciler is a pure plan function plus its
//! executor `reconcile(kluster, observed, ctx) -> Result<Outcome>` ([`context`]).
//!
//! Projects are reconciled concurrently (at most [`Reconciler::concurrency`] at once), each
//! within a time budget ([`Reconciler::project_budget`]): past it the project's remaining
//! cloud calls fail at once, so a project whose cloud hangs delays no other project.
//!
//! # Glossary
//!
//! The four reconcilers keep Kubernikus's names:
//! - **ground** ([`ground`]): a kluster's phase (Pending → Creating → Running, upgrades,
//!   the creation timeout).
//! - **launch** ([`launch`]): pool sizes: creates the servers a pool lacks, deletes those it
//!   has too many of.
//! - **flight** ([`flight`]): removes broken servers of a running kluster (ERROR, stuck
//!   building, never registered) so that launch replaces them.
//! - **deorbit** ([`deorbit`]): tears a Terminating kluster down: nodes, load balancers,
//!   routes, then volumes, then the kluster itself.
//!
//! What schedules and feeds them:
//! - [`runner`]: the loop of one replica holding the [`lease`]: a queue of due times
//!   ([`next`]), store changes, and a periodic full resync.
//! - [`project`]: one project's pass, [`context`] what a reconciler acts with (`Ctx`).
//! - [`look`]: what a pass asks the cloud; [`delete_first`]: the first pass after a delete,
//!   which sends the node deletes before it lists anything; [`claim`]: which kluster owns
//!   what was listed (by uid, never by a bare name); [`listings`]: each project's last
//!   full server listing, so that an idle project's look only asks what changed.
//! - [`early_deletes`]: node deletes sent by the runner as soon as a kluster is deleted, when
//!   a pass of its project is already under way; the next pass reports their answers.
//! - [`departing`]: klusters whose nodes are all being deleted, so that looks ask the cloud
//!   for their ids alone until they are gone.
//! - [`users`]: klusters' own OpenStack users.

pub mod claim;
pub mod context;
mod delete_first;
pub mod deorbit;
pub mod departing;
pub mod early_deletes;
pub mod flight;
pub mod ground;
pub mod launch;
pub mod lease;
pub mod listings;
mod look;
pub mod next;
mod project;
mod runner;
pub mod told;
pub mod users;

use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use tokio::time::Instant;

use crate::cloud::Cloud;
use crate::store::{Observed, Store, StoreError};
use context::{Ctx, Timing, LONGEST};
pub use project::{PassReport, ProjectPass};
pub use runner::FULL_RESYNC_POLLS;

/// Projects reconciled at once unless configured otherwise.
pub const DEFAULT_CONCURRENCY: usize = controller_settings::RECONCILE_CONCURRENCY;

/// The default time budget of one project's pass: four cloud call timeouts.
pub fn default_budget(call_timeout: Duration) -> Duration {
    call_timeout.saturating_mul(4)
}

/// The reconcilers over one store and one cloud.
#[derive(Clone, Debug)]
pub struct Reconciler {
    /// The controller's store.
    pub store: Store,
    /// The cloud klusters live in.
    pub cloud: Arc<dyn Cloud>,
    /// How long phases take and how long to wait for things.
    pub timing: Timing,
    /// Longest wait for one cloud call.
    pub call_timeout: Duration,
    /// Projects reconciled at once (at least 1).
    pub concurrency: usize,
    /// How long one project's pass may wait for its cloud; past it the project's remaining
    /// cloud calls fail at once (the next pass continues), and at twice it the project's
    /// pass is cut short.
    pub project_budget: Duration,
    /// Time to live of the reconcile lease ([`Reconciler::run`]): a replica that dies is
    /// replaced within about this long.
    pub lease_ttl: Duration,
    /// Time between full resyncs, which look at every kluster even when nothing changed
    /// (`None`: every [`FULL_RESYNC_POLLS`] poll intervals).
    pub resync_every: Option<Duration>,
    /// Whether this replica holds the lease (checked before each kluster in `run`).
    pub lease: Arc<lease::Lease>,
    /// Where pass and reconciler durations, errors and events are counted.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// Seals and opens klusters' own users' passwords (the controller's CA key).
    pub sealer: Arc<crate::pki::Sealer>,
    /// Server deletes sent while a project's pass was going, for its next pass.
    pub early_deletes: Arc<early_deletes::EarlyDeletes>,
    /// Klusters whose nodes were all going at the last full server listing.
    pub departing: Arc<departing::DepartingNodes>,
    /// Look-alikes already said to be left alone.
    pub told: Arc<told::Told>,
    /// Each project's last full server listing, for looks that only ask what changed.
    pub listings: Arc<listings::Listings>,
    /// The longest a project goes without a full server listing (zero: every look).
    pub full_listing_every: Duration,
    /// What Nova's notifications say, when the bus is configured (else never trusted).
    pub notices: Arc<crate::notices::Notices>,
}

/// A random sealing key, for reconcilers made with [`Reconciler::new`] (a controller uses
/// its configured key).
fn random_key() -> [u8; 32] {
    use rand_core::RngCore;
    let mut key = [0u8; 32];
    rand_core::OsRng.fill_bytes(&mut key);
    key
}

/// The default time to live of the reconcile lease.
pub const DEFAULT_LEASE_TTL: Duration = Duration::from_secs(controller_settings::LEASE_SECONDS);

/// The klusters of `all` (ordered by project) grouped per project.
pub(crate) fn by_project(all: Vec<Observed>) -> Vec<(String, Vec<Observed>)> {
    let mut groups: Vec<(String, Vec<Observed>)> = Vec::new();
    for o in all {
        match groups.last_mut() {
            Some((p, g)) if *p == o.project => g.push(o),
            _ => groups.push((o.project.clone(), vec![o])),
        }
    }
    groups
}

impl Reconciler {
    /// A reconciler with the default concurrency and project budget.
    pub fn new(
        store: Store,
        cloud: Arc<dyn Cloud>,
        timing: Timing,
        call_timeout: Duration,
    ) -> Self {
        Reconciler {
            store,
            cloud,
            timing,
            call_timeout,
            concurrency: DEFAULT_CONCURRENCY,
            project_budget: default_budget(call_timeout),
            lease_ttl: DEFAULT_LEASE_TTL,
            resync_every: None,
            lease: Arc::default(),
            metrics: Arc::default(),
            sealer: Arc::new(crate::pki::Sealer::new(&random_key())),
            early_deletes: Arc::default(),
            departing: Arc::default(),
            told: Arc::default(),
            listings: Arc::default(),
            full_listing_every: listings::FULL_AT_LEAST,
            notices: Arc::default(),
        }
    }

    /// One pass over every kluster: projects concurrently (at most [`Self::concurrency`]
    /// at once), each within its budget. A kluster whose reconciliation fails is logged and
    /// counted in [`PassReport::failed`]; only failing to list the klusters fails the pass.
    pub async fn pass(&self) -> Result<PassReport, StoreError> {
        let all = self.store.list_all().await?;
        let mut report = PassReport::default();
        let mut results = stream::iter(by_project(all))
            .map(|(project, group)| async move { self.project(&project, &group, None).await })
            .buffer_unordered(self.concurrency.max(1));
        while let Some(r) = results.next().await {
            report.add(r.report);
        }
        Ok(report)
    }

    /// What project `project`'s work acts with, within its time budget from now.
    fn ctx<'a>(&'a self, project: &'a str, lease: Option<&'a lease::Lease>) -> Ctx<'a> {
        let budget = self.project_budget.min(LONGEST);
        let deadline = Instant::now() + budget;
        Ctx {
            lease,
            store: &self.store,
            cloud: self.cloud.as_ref(),
            timing: self.timing,
            call_timeout: self.call_timeout,
            budget,
            project,
            deadline,
            metrics: &self.metrics,
            sealer: &self.sealer,
            early_deletes: &self.early_deletes,
            departing: &self.departing,
            told: &self.told,
            listings: &self.listings,
            full_listing_every: self.full_listing_every,
            notices: &self.notices,
        }
    }

    /// One project's pass within its budget: cloud calls fail at once after the budget;
    /// at twice the budget the pass is cut short (the next one finishes it).
    /// (`lease`: stop before a kluster once it is not held; `None` in a one-off [`pass`].)
    ///
    /// [`pass`]: Reconciler::pass
    pub(crate) async fn project(
        &self,
        project: &str,
        group: &[Observed],
        lease: Option<&lease::Lease>,
    ) -> ProjectPass {
        let ctx = self.ctx(project, lease);
        let (budget, hard) = (ctx.budget, ctx.deadline + ctx.budget);
        let start = Instant::now();
        match tokio::time::timeout_at(hard, ctx.pass(group)).await {
            Ok(r) => {
                self.metrics.pass(start.elapsed(), false);
                r
            }
            Err(_) => {
                self.metrics.pass(start.elapsed(), true);
                tracing::warn!(
                    controller = "reconcile",
                    project,
                    budget = %context::human(budget),
                    "the project's pass took twice its time budget: cut short; the next pass continues"
                );
                self.metrics.reconcile_error("cut_short");
                let again =
                    |o: &Observed| (o.stored.kluster.name.clone(), Some(next::Next::backoff()));
                ProjectPass {
                    report: PassReport {
                        klusters: group.len(),
                        cut_short: 1,
                        ..Default::default()
                    },
                    next: group.iter().map(again).collect(),
                }
            }
        }
    }
}
