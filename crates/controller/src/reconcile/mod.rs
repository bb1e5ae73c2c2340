//! Reconcilers: each decides with a pure plan function of (spec, observed) and a thin
//! executor applies the plan. Level-triggered: every pass looks at every kluster afresh.

pub mod ground;

use std::sync::Arc;
use std::time::Duration;

use kluster::KlusterPhase;

use crate::cloud::Cloud;
use crate::store::{Store, StoreError};
use ground::{Step, Timing};

/// The ground reconciler: phases of klusters.
#[derive(Clone, Debug)]
pub struct Ground {
    /// The controller's store.
    pub store: Store,
    /// The cloud klusters live in.
    pub cloud: Arc<dyn Cloud>,
    /// How long phases take.
    pub timing: Timing,
}

impl Ground {
    /// One pass over every kluster; returns how many changed.
    pub async fn pass(&self) -> Result<usize, StoreError> {
        let mut changed = 0;
        for (project, stored, in_phase) in self.store.list_all().await? {
            let mut k = stored.kluster;
            // Only a Pending kluster looks at routers: ask the cloud for nothing else.
            let routers = if k.status.phase != KlusterPhase::Pending {
                Vec::new()
            } else {
                match self.cloud.metadata(&project).await {
                    Ok(m) => m.routers,
                    Err(e) => {
                        tracing::warn!(controller = "ground", kluster = k.name, project, error = %e, "cloud unavailable");
                        continue;
                    }
                }
            };
            let steps = ground::plan(&k, &routers, in_phase, self.timing);
            if steps.is_empty() {
                continue;
            }
            let mut dirty = false;
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
                        dirty = true;
                    }
                    Step::SetVersion(v) => {
                        k.status.apiserver_version = v.clone();
                        k.status.version = v;
                        dirty = true;
                    }
                    Step::SetPhase(p) => {
                        k.status.phase = p;
                        dirty = true;
                        let reason = phase_name(p);
                        let message = format!("Kluster {} is {}", k.name, reason.to_lowercase());
                        self.store
                            .record_event(&project, &k.name, "Normal", reason, &message)
                            .await?;
                        tracing::info!(
                            controller = "ground",
                            kluster = k.name,
                            project,
                            phase = reason,
                            "phase changed"
                        );
                    }
                    Step::Warn { reason, message } => {
                        self.store
                            .record_event(&project, &k.name, "Warning", reason, &message)
                            .await?;
                        tracing::warn!(
                            controller = "ground",
                            kluster = k.name,
                            project,
                            reason,
                            message
                        );
                    }
                    Step::Delete => {
                        self.store.delete(&project, &k.name).await?;
                        tracing::info!(
                            controller = "ground",
                            kluster = k.name,
                            project,
                            "kluster removed"
                        );
                        dirty = false;
                        changed += 1;
                    }
                }
            }
            if dirty {
                self.store.update(&project, &k).await?;
                changed += 1;
            }
        }
        Ok(changed)
    }

    /// Runs a pass every `every` until `shutdown` completes; failures are logged and retried.
    pub async fn run(self, every: Duration, shutdown: impl std::future::Future<Output = ()>) {
        tokio::pin!(shutdown);
        loop {
            if let Err(e) = self.pass().await {
                tracing::error!(controller = "ground", error = %e, "reconcile pass failed");
            }
            tokio::select! {
                _ = &mut shutdown => return,
                _ = tokio::time::sleep(every) => {}
            }
        }
    }
}

/// The phase as Kubernikus spells it (also the reason of its Normal event).
pub fn phase_name(p: KlusterPhase) -> &'static str {
    match p {
        KlusterPhase::Pending => "Pending",
        KlusterPhase::Creating => "Creating",
        KlusterPhase::Running => "Running",
        KlusterPhase::Upgrading => "Upgrading",
        KlusterPhase::Terminating => "Terminating",
    }
}
