//! Reconcilers: each decides with a pure plan function of (spec, observed) and the thin
//! executor here applies the plan. Level-triggered and idempotent: every pass looks at every
//! kluster and at the cloud afresh, so a pass cut short (a crash, a restart) is simply
//! finished by the next one.
//!
//! One pass, per project: list the cloud once (servers, and resources when a kluster is
//! terminating), then per kluster: [`ground`] (phases), [`flight`] (grounds broken
//! servers), [`launch`] (pool sizes), [`deorbit`] (tear-down).
//!
//! Projects are reconciled concurrently (at most [`Reconciler::concurrency`] at once), each
//! within a time budget ([`Reconciler::project_budget`]): past it the project's remaining
//! cloud calls fail at once, so a project whose cloud hangs delays no other project.

pub mod deorbit;
pub mod flight;
pub mod ground;
pub mod launch;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use kluster::{EventReason, EventType, Kluster, KlusterPhase};
use tokio::time::Instant;

use crate::cloud::{Cloud, CloudError, Resource, Server, ServerSpec};
use crate::store::{Observed, Store, StoreError};
use ground::{Step, Timing};

/// Longest budget or call timeout honoured (longer ones are cut to it).
const LONGEST: Duration = Duration::from_secs(24 * 3600);

/// Projects reconciled at once unless configured otherwise.
pub const DEFAULT_CONCURRENCY: usize = 8;

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
}

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
    /// Projects whose pass was cut short at twice their time budget.
    pub cut_short: usize,
}

impl PassReport {
    fn add(&mut self, other: PassReport) {
        self.klusters += other.klusters;
        self.changed += other.changed;
        self.created += other.created;
        self.deleted += other.deleted;
        self.cut_short += other.cut_short;
    }
}

/// What the cloud showed for one project in this pass (`None`: it did not answer).
struct Seen {
    routers: Option<Vec<kluster::Router>>,
    servers: Option<Vec<Server>>,
    resources: Option<Vec<Resource>>,
}

/// The klusters of `all` (ordered by project) grouped per project.
fn by_project(all: Vec<Observed>) -> Vec<(String, Vec<Observed>)> {
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
        }
    }

    /// One pass over every kluster: projects concurrently (at most [`Self::concurrency`]
    /// at once), each within its budget. A store failure in one project does not stop the
    /// others; the first one is returned once all have finished.
    pub async fn pass(&self) -> Result<PassReport, StoreError> {
        let all = self.store.list_all().await?;
        let mut report = PassReport::default();
        let mut failed = None;
        let mut results = stream::iter(by_project(all))
            .map(|(project, group)| async move { self.project(&project, &group).await })
            .buffer_unordered(self.concurrency.max(1));
        while let Some(r) = results.next().await {
            match r {
                Ok(r) => report.add(r),
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(report),
        }
    }

    /// Runs passes every `every` until `shutdown` completes; failures are logged and retried.
    /// Each project runs as its own task: a project whose pass is still going (its cloud is
    /// slow) is skipped until it has finished, while the other projects go on at their pace.
    pub async fn run(self, every: Duration, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        let slots = Arc::new(tokio::sync::Semaphore::new(self.concurrency.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        let mut busy: HashMap<tokio::task::Id, String> = HashMap::new();
        loop {
            while let Some(done) = tasks.try_join_next_with_id() {
                let id = match done {
                    Ok((id, ())) => id,
                    Err(e) => {
                        tracing::error!(controller = "reconcile", error = %e, "a project's pass panicked");
                        e.id()
                    }
                };
                busy.remove(&id);
            }
            match self.store.list_all().await {
                Ok(all) => {
                    let running: HashSet<&String> = busy.values().collect();
                    let mut start = Vec::new();
                    for (project, group) in by_project(all) {
                        if running.contains(&project) {
                            tracing::debug!(
                                controller = "reconcile",
                                project,
                                "previous pass still going; skipped"
                            );
                            continue;
                        }
                        start.push((project, group));
                    }
                    for (project, group) in start {
                        let rec = self.clone();
                        let slots = slots.clone();
                        let name = project.clone();
                        let handle = tasks.spawn(async move {
                            let Ok(_slot) = slots.acquire_owned().await else {
                                return;
                            };
                            if let Err(e) = rec.project(&project, &group).await {
                                tracing::error!(controller = "reconcile", project, error = %e, "reconcile pass failed");
                            }
                        });
                        busy.insert(handle.id(), name);
                    }
                }
                Err(e) => {
                    tracing::error!(controller = "reconcile", error = %e, "reconcile pass failed");
                }
            }
            tokio::select! {
                _ = &mut shutdown => return,
                _ = tokio::time::sleep(every) => {}
            }
        }
    }

    /// One project's pass within its budget: cloud calls fail at once after the budget;
    /// at twice the budget the pass is cut short (the next one finishes it).
    async fn project(&self, project: &str, group: &[Observed]) -> Result<PassReport, StoreError> {
        let budget = self.project_budget.min(LONGEST);
        let deadline = Instant::now() + budget;
        let pass = ProjectPass {
            rec: self,
            project,
            deadline,
        };
        let hard = deadline + budget;
        match tokio::time::timeout_at(hard, pass.run(group)).await {
            Ok(r) => r,
            Err(_) => {
                tracing::warn!(
                    controller = "reconcile",
                    project,
                    budget = %ground::human(self.project_budget),
                    "the project's pass took twice its time budget: cut short; the next pass continues"
                );
                Ok(PassReport {
                    klusters: group.len(),
                    cut_short: 1,
                    ..Default::default()
                })
            }
        }
    }
}

/// One project's pass: the reconciler, the project and the deadline of its budget.
struct ProjectPass<'a> {
    rec: &'a Reconciler,
    project: &'a str,
    deadline: Instant,
}

impl ProjectPass<'_> {
    async fn run(&self, group: &[Observed]) -> Result<PassReport, StoreError> {
        let mut report = PassReport {
            klusters: group.len(),
            ..Default::default()
        };
        let seen = self.look(group).await;
        for o in group {
            self.kluster(o, &seen, &mut report).await?;
        }
        Ok(report)
    }

    /// Awaits a cloud call for at most the call timeout, and never past the budget's
    /// deadline (after it the call fails at once).
    async fn call<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, CloudError>>,
    ) -> Result<T, CloudError> {
        let call_timeout = self.rec.call_timeout.min(LONGEST);
        let now = Instant::now();
        if now >= self.deadline {
            return Err(self.spent());
        }
        let until = (now + call_timeout).min(self.deadline);
        match tokio::time::timeout_at(until, fut).await {
            Ok(r) => r,
            Err(_) if until < now + call_timeout => Err(self.spent()),
            Err(_) => Err(CloudError(format!(
                "the cloud did not answer within {}",
                ground::human(call_timeout)
            ))),
        }
    }

    fn spent(&self) -> CloudError {
        CloudError(format!(
            "the cloud answers too slowly: this pass's time budget for the project ({}) is spent; the next pass goes on",
            ground::human(self.rec.project_budget)
        ))
    }

    /// Asks the cloud what this project's klusters need to know, and nothing more.
    async fn look(&self, group: &[Observed]) -> Seen {
        let project = self.project;
        let has =
            |f: fn(KlusterPhase) -> bool| group.iter().any(|o| f(o.stored.kluster.status.phase));
        let failed = |what: &str, e: &CloudError| {
            tracing::warn!(controller = "reconcile", project, error = %e, "cloud {what} failed");
        };
        let routers = if has(|p| p == KlusterPhase::Pending) {
            match self.call(self.rec.cloud.metadata(project)).await {
                Ok(m) => Some(m.routers),
                Err(e) => {
                    failed("metadata", &e);
                    None
                }
            }
        } else {
            Some(Vec::new())
        };
        // Creating too: a kluster reaching Running in this pass is launched in it.
        let servers = if has(|p| p != KlusterPhase::Pending) {
            self.servers(group).await
        } else {
            Some(Vec::new())
        };
        let resources = if has(|p| p == KlusterPhase::Terminating) {
            match self.call(self.rec.cloud.resources(project)).await {
                Ok(r) => Some(r),
                Err(e) => {
                    failed("resource listing", &e);
                    None
                }
            }
        } else {
            Some(Vec::new())
        };
        Seen {
            routers,
            servers,
            resources,
        }
    }

    /// The project's servers; a listing that lacks servers the last pass recorded is
    /// confirmed by listing again before anything acts on it.
    async fn servers(&self, group: &[Observed]) -> Option<Vec<Server>> {
        let project = self.project;
        let klusters: Vec<&Kluster> = group.iter().map(|o| &o.stored.kluster).collect();
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.call(self.rec.cloud.servers(project)).await {
                Ok(list) if attempt == 1 && launch::needs_confirmation(&klusters, &list) => {
                    tracing::warn!(
                        controller = "launch",
                        project,
                        listed = list.len(),
                        "the server listing lacks servers recorded before; listing again before acting"
                    );
                }
                Ok(list) => return Some(list),
                Err(e) => {
                    tracing::warn!(controller = "launch", project, error = %e, "cloud server listing failed");
                    return None;
                }
            }
        }
    }

    async fn event(
        &self,
        k: &str,
        kind: EventType,
        reason: EventReason,
        message: &str,
    ) -> Result<(), StoreError> {
        let project = self.project;
        let (_, count) = self
            .rec
            .store
            .record_event_counted(project, k, kind, &reason, message)
            .await?;
        let controller = controller_of(&reason);
        let reason = reason.as_str();
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

    async fn kluster(
        &self,
        o: &Observed,
        seen: &Seen,
        report: &mut PassReport,
    ) -> Result<(), StoreError> {
        let project = self.project;
        let before = &o.stored.kluster;
        let mut k = before.clone();
        let name = before.name.as_str();

        // ground: phases.
        {
            let steps = ground::plan(
                &k,
                seen.routers.as_deref(),
                o.in_phase,
                o.age,
                self.rec.timing,
            );
            for step in steps {
                match step {
                    Step::SetOpenstack {
                        router_id,
                        network_id,
                        lb_subnet_id,
                    } => {
                        let os = &mut k.spec.openstack;
                        (os.router_id, os.network_id, os.lb_subnet_id) =
                            (router_id, network_id, lb_subnet_id);
                    }
                    Step::SetVersion(v) => {
                        k.status.apiserver_version = v.clone();
                        k.status.version = v;
                    }
                    Step::SetMessage(m) => k.status.message = m,
                    Step::SetPhase(p) => {
                        k.status.phase = p;
                        let message = format!("Kluster {name} is {}", p.as_str().to_lowercase());
                        self.event(name, EventType::Normal, EventReason::phase(p), &message)
                            .await?;
                    }
                    Step::Warn { reason, message } => {
                        self.event(name, EventType::Warning, reason, &message)
                            .await?;
                    }
                }
            }
        }

        match (k.status.phase, &seen.servers, &seen.resources) {
            (KlusterPhase::Running | KlusterPhase::Upgrading, Some(servers), _) => {
                self.fly_and_launch(&mut k, servers, report).await?;
            }
            (KlusterPhase::Terminating, Some(servers), Some(resources)) => {
                let removed = self.deorbit(&k, servers, resources, report).await?;
                if removed {
                    self.rec.store.delete(project, name).await?;
                    tracing::info!(
                        controller = "deorbit",
                        kluster = name,
                        project,
                        "kluster removed"
                    );
                    report.changed += 1;
                    return Ok(());
                }
            }
            (KlusterPhase::Running | KlusterPhase::Upgrading | KlusterPhase::Terminating, ..) => {
                let message = "The cloud did not answer; retrying";
                self.event(
                    name,
                    EventType::Warning,
                    EventReason::CloudUnavailable,
                    message,
                )
                .await?;
            }
            _ => {}
        }

        if k != *before {
            // Write only what the reconcilers own, and only if nobody else changed it since
            // this pass read it (the next pass will look again).
            let (status, openstack) = (k.status, k.spec.openstack);
            let written = self
                .rec
                .store
                .modify(project, name, |cur| {
                    if cur.status != before.status || cur.spec.openstack != before.spec.openstack {
                        return Err(());
                    }
                    cur.status = status;
                    cur.spec.openstack = openstack;
                    Ok(())
                })
                .await?;
            if matches!(written, Some(Ok(_))) {
                report.changed += 1;
            }
        }
        Ok(())
    }

    /// flight, then launch; writes the pools' status into `k`.
    async fn fly_and_launch(
        &self,
        k: &mut Kluster,
        servers: &[Server],
        report: &mut PassReport,
    ) -> Result<(), StoreError> {
        let project = self.project;
        let name = k.name.clone();
        let mine = launch::of_kluster(servers, &name);
        let mut grounded = BTreeSet::new();
        if k.status.phase == KlusterPhase::Running {
            for g in flight::plan(&mine, self.rec.timing.register_timeout) {
                let why = match g.why {
                    flight::Why::Errored => "it went into ERROR".to_string(),
                    flight::Why::NeverRegistered => format!(
                        "it did not register as a node within {}",
                        ground::human(self.rec.timing.register_timeout)
                    ),
                };
                match self
                    .call(self.rec.cloud.delete_server(project, &g.id))
                    .await
                {
                    Ok(()) => {
                        grounded.insert(g.id.clone());
                        report.deleted += 1;
                        let message =
                            format!("Deleted node {}: {why}; a new one replaces it", g.name);
                        self.event(
                            &name,
                            EventType::Warning,
                            EventReason::DeletedBrokenNode,
                            &message,
                        )
                        .await?;
                    }
                    Err(e) => {
                        let message = format!("Failed to delete node {}: {e}", g.name);
                        self.event(
                            &name,
                            EventType::Warning,
                            EventReason::FailedDeleteNode,
                            &message,
                        )
                        .await?;
                    }
                }
            }
        }

        let plan = launch::plan(k, servers);
        let mut pools = plan.pools.clone();
        for r in plan.delete.iter().filter(|r| !grounded.contains(&r.id)) {
            match self
                .call(self.rec.cloud.delete_server(project, &r.id))
                .await
            {
                Ok(()) => {
                    report.deleted += 1;
                    if let Some(info) = r.pool.and_then(|i| pools.get_mut(i)) {
                        info.running -= 1;
                    }
                    let message = format!("Successfully deleted node {}", r.name);
                    self.event(
                        &name,
                        EventType::Normal,
                        EventReason::SuccessfulDeleteNode,
                        &message,
                    )
                    .await?;
                }
                Err(e) => {
                    let message = format!("Failed to delete node {}: {e}", r.name);
                    self.event(
                        &name,
                        EventType::Warning,
                        EventReason::FailedDeleteNode,
                        &message,
                    )
                    .await?;
                }
            }
        }
        for (i, count) in plan.create {
            let pool = &k.spec.node_pools[i];
            for _ in 0..count {
                let spec = ServerSpec {
                    name: format!("{}{}", launch::prefix(&name, &pool.name), suffix()),
                    kluster: name.clone(),
                    flavor: pool.flavor.clone(),
                    image: pool.image.clone(),
                    availability_zone: pool.availability_zone.clone(),
                };
                match self
                    .call(self.rec.cloud.create_server(project, &spec))
                    .await
                {
                    Ok(server) => {
                        report.created += 1;
                        pools[i].running += 1;
                        let message = format!("Successfully created node {}", server.name);
                        self.event(
                            &name,
                            EventType::Normal,
                            EventReason::SuccessfulCreateNode,
                            &message,
                        )
                        .await?;
                    }
                    Err(e) => {
                        // The same error would repeat for the rest of the pool: stop here.
                        let message = format!("Failed to create node: {e}");
                        self.event(
                            &name,
                            EventType::Warning,
                            EventReason::FailedCreateNode,
                            &message,
                        )
                        .await?;
                        break;
                    }
                }
            }
        }
        k.status.node_pools = pools;
        Ok(())
    }

    /// Tears `k` down step by step; true once nothing is left and it can be removed.
    async fn deorbit(
        &self,
        k: &Kluster,
        servers: &[Server],
        resources: &[Resource],
        report: &mut PassReport,
    ) -> Result<bool, StoreError> {
        let project = self.project;
        let name = k.name.as_str();
        let mine: Vec<&Resource> = resources.iter().filter(|r| r.kluster == name).collect();
        let nodes = launch::of_kluster(servers, name);
        let mut waited = BTreeSet::new();
        for e in self.rec.store.events(project, name).await? {
            let reason = e.event_reason();
            if let Some(kind) = deorbit::waited_kind(&reason) {
                waited.insert(kind);
            }
            if let Some(kind) = deorbit::finished_kind(&reason) {
                waited.remove(&kind);
            }
        }
        for step in deorbit::plan(name, &mine, &nodes, &waited) {
            match step {
                deorbit::Step::DeleteResource { id, name: what } => {
                    match self
                        .call(self.rec.cloud.delete_resource(project, &id))
                        .await
                    {
                        Ok(()) => {
                            report.deleted += 1;
                            tracing::info!(
                                controller = "deorbit",
                                kluster = name,
                                project,
                                resource = what,
                                "deleting"
                            );
                        }
                        Err(e) => {
                            let message = format!("Failed to delete {what}: {e}");
                            self.event(
                                name,
                                EventType::Warning,
                                EventReason::FailedDeorbit,
                                &message,
                            )
                            .await?;
                        }
                    }
                }
                deorbit::Step::DeleteServer { id, name: node } => {
                    match self.call(self.rec.cloud.delete_server(project, &id)).await {
                        Ok(()) => {
                            report.deleted += 1;
                            let message = format!("Successfully deleted node {node}");
                            self.event(
                                name,
                                EventType::Normal,
                                EventReason::SuccessfulDeleteNode,
                                &message,
                            )
                            .await?;
                        }
                        Err(e) => {
                            let message = format!("Failed to delete node {node}: {e}");
                            self.event(
                                name,
                                EventType::Warning,
                                EventReason::FailedDeleteNode,
                                &message,
                            )
                            .await?;
                        }
                    }
                }
                deorbit::Step::Event { reason, message } => {
                    self.event(name, EventType::Normal, reason, &message)
                        .await?;
                }
                deorbit::Step::Remove => return Ok(true),
            }
        }
        Ok(false)
    }
}

/// Which reconciler records events with `reason` (the `controller=` log field).
fn controller_of(reason: &EventReason) -> &'static str {
    use EventReason::*;
    match reason {
        DeletedBrokenNode => "flight",
        WaitingForDeorbitVolumes
        | WaitingForDeorbitLoadBalancers
        | WaitingForDeorbitRoutes
        | WaitingForDeorbitNodes
        | SuccessfulDeorbitVolumes
        | SuccessfulDeorbitLoadBalancers
        | SuccessfulDeorbitRoutes
        | SuccessfulDeorbit
        | FailedDeorbit => "deorbit",
        SuccessfulCreateNode | FailedCreateNode | SuccessfulDeleteNode | FailedDeleteNode => {
            "launch"
        }
        CloudUnavailable => "reconcile",
        _ => "ground",
    }
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
