//! A simulated OpenStack region, the embedded default cloud: a fixed catalog per project,
//! per-project quotas, servers that go BUILD → ACTIVE (or ERROR) and register as nodes on a
//! clock, resources that running klusters create by themselves (a volume, a load balancer,
//! a route per node), and faults that can be switched per project at run time.
//!
//! Everything derives from the clock and the calls made, so a test with a manual clock sees
//! the same cloud every time.
//!
//! Time comes from the shared `serving::clock::Clock`. [`catalog`] (flavors, zones, images, the project's
//! catalog), [`faults`] (limits, faults and the API gate), [`state`] (servers and
//! resources and how they move), [`persist`] (kept in the controller's database, so every
//! replica sees the same cloud; a side file of older versions is imported once).

mod catalog;
mod faults;
mod persist;
mod state;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use kluster::OpenstackMetadata;

use super::{BoxFuture, Cloud, CloudError, PodRange, Quota, Resource, Server, ServerSpec};
use crate::store::Store;

pub use catalog::{FLAVORS, IMAGES, ZONES};
pub use faults::{Faults, Limits, SimProject};
pub use serving::clock::Clock;
use state::ProjectState;
pub use state::NO_VALID_HOST;

/// How fast the simulated cloud is, and the quota every project starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// BUILD → ACTIVE (or ERROR).
    pub boot: Duration,
    /// ACTIVE → node registered and Ready.
    pub register: Duration,
    /// A deleted server or resource is gone after this.
    pub teardown: Duration,
    /// Quota of projects nobody set one for.
    pub limits: Limits,
}

impl SimConfig {
    /// Booting takes `phase / 2`, registering and tearing down `phase / 4` each.
    pub fn scaled(phase: Duration) -> SimConfig {
        SimConfig {
            boot: phase / 2,
            register: phase / 4,
            teardown: phase / 4,
            limits: Limits::default(),
        }
    }
}

/// Where the simulation's state lives.
#[derive(Debug)]
enum Backend {
    /// This process's memory (tests, benchmarks).
    Memory(Mutex<HashMap<String, ProjectState>>),
    /// The controller's database (every replica sees the same cloud).
    Store(Store),
}

/// The simulated cloud (the embedded default).
#[derive(Clone, Debug)]
pub struct SimCloud {
    config: SimConfig,
    clock: Clock,
    backend: Arc<Backend>,
}

/// Locks `m`; a panic while holding the lock leaves plain data behind, so keep using it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SimCloud {
    /// A simulated region with `config`, timed by `clock`, in this process's memory.
    pub fn new(config: SimConfig, clock: Clock) -> SimCloud {
        SimCloud {
            config,
            clock,
            backend: Arc::new(Backend::Memory(Mutex::default())),
        }
    }

    /// A simulated region kept in `store`'s database: it outlives the process, and every
    /// replica on that database sees the same servers.
    pub fn in_store(config: SimConfig, clock: Clock, store: Store) -> SimCloud {
        SimCloud {
            config,
            clock,
            backend: Arc::new(Backend::Store(store)),
        }
    }

    /// Runs `f` on the project's state (created with the default quota on first use), one
    /// caller at a time per project; a changed state (`dirty`) is stored.
    async fn with_project<R>(
        &self,
        project: &str,
        f: impl FnOnce(&mut ProjectState) -> R,
    ) -> Result<R, CloudError> {
        match self.backend.as_ref() {
            Backend::Memory(m) => {
                let mut projects = lock(m);
                let p = projects
                    .entry(project.to_string())
                    .or_insert_with(|| ProjectState::new(self.config.limits));
                let r = f(p);
                p.dirty = false;
                Ok(r)
            }
            Backend::Store(store) => {
                let limits = self.config.limits;
                let result = store
                    .sim_update(project, |json| {
                        let mut p = if json.is_empty() {
                            ProjectState::new(limits)
                        } else {
                            match serde_json::from_str::<ProjectState>(json) {
                                Ok(p) => p,
                                Err(e) => {
                                    return (
                                        None,
                                        Err(format!("its stored state is unreadable: {e}")),
                                    )
                                }
                            }
                        };
                        let r = f(&mut p);
                        let next = p.dirty.then(|| serde_json::to_string(&p).ok()).flatten();
                        (next, Ok(r))
                    })
                    .await;
                match result {
                    Ok(Ok(r)) => Ok(r),
                    Ok(Err(e)) => Err(CloudError::new(format!("The simulated cloud failed: {e}"))),
                    Err(e) => Err(CloudError::new(format!(
                        "The simulated cloud cannot be reached: {e} (HTTP 503)"
                    ))),
                }
            }
        }
    }

    /// The simulation's clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

impl Cloud for SimCloud {
    fn metadata<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<OpenstackMetadata, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            Ok(Self::catalog(project))
        })
    }

    fn images<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<String>, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            Ok(IMAGES.iter().map(|i| i.to_string()).collect())
        })
    }

    fn quota<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Quota, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let now = self.clock.unix();
            self.with_project(project, |p| {
                self.settle(p, now);
                Self::usage(p)
            })
            .await
        })
    }

    fn servers<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<Server>, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let now = self.clock.unix();
            self.with_project(project, |p| {
                if p.faults.empty_listings > 0 {
                    p.faults.empty_listings -= 1;
                    p.dirty = true;
                    return Vec::new();
                }
                self.settle(p, now);
                p.servers.iter().map(|s| self.show(s, now)).collect()
            })
            .await
        })
    }

    fn server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Server>, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let now = self.clock.unix();
            self.with_project(project, |p| {
                self.settle(p, now);
                p.servers
                    .iter()
                    .find(|s| s.id == id)
                    .map(|s| self.show(s, now))
            })
            .await
        })
    }

    fn create_server<'a>(
        &'a self,
        project: &'a str,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Server, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            self.create(project, spec).await
        })
    }

    fn start_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let live = |s: &state::SimServer| s.id == id && s.deleted.is_none();
            let found = self.update_server(project, live, |s| s.stopped = false);
            found.await?.then_some(()).ok_or_else(|| no_such_server(id))
        })
    }

    fn delete_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let found = self
                .mark_deleted(project, |p| {
                    p.servers
                        .iter_mut()
                        .find(|s| s.id == id)
                        .map(|s| &mut s.deleted)
                })
                .await?;
            found.then_some(()).ok_or_else(|| no_such_server(id))
        })
    }

    /// The simulated routes are named after their servers and go with them, so the pod
    /// ranges are not needed.
    fn resources<'a>(
        &'a self,
        project: &'a str,
        _ranges: &'a [PodRange],
    ) -> BoxFuture<'a, Result<Vec<Resource>, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let now = self.clock.unix();
            self.with_project(project, |p| {
                self.settle(p, now);
                p.resources
                    .iter()
                    .map(|r| Resource {
                        id: r.id.clone(),
                        kluster: r.kluster.clone(),
                        uid: Some(r.uid.clone()).filter(|u| !u.is_empty()),
                        kind: r.kind,
                        name: r.name.clone(),
                        deleting: r.deleted.is_some(),
                    })
                    .collect()
            })
            .await
        })
    }

    fn delete_resource<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let found = self
                .mark_deleted(project, |p| {
                    p.resources
                        .iter_mut()
                        .find(|r| r.id == id)
                        .map(|r| &mut r.deleted)
                })
                .await?;
            if found {
                Ok(())
            } else {
                Err(CloudError::new(format!(
                    "Resource {id} could not be found."
                )))
            }
        })
    }
}

/// Nova's answer for a server id it does not know.
fn no_such_server(id: &str) -> CloudError {
    CloudError::new(format!("Instance {id} could not be found. (HTTP 404)"))
}
