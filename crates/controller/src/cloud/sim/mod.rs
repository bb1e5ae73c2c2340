//! A simulated OpenStack region, the embedded default cloud: a fixed catalog per project,
//! per-project quotas, servers that go BUILD → ACTIVE (or ERROR) and register as nodes on a
//! clock, resources that running klusters create by themselves (a volume, a load balancer,
//! a route per node), and faults that can be switched per project at run time.
//!
//! Everything derives from the clock and the calls made, so a test with a manual clock sees
//! the same cloud every time.

//!
//! [`clock`] (where time comes from), [`catalog`] (flavors, zones, images, the project's
//! catalog), [`faults`] (limits, faults and the API gate), [`state`] (servers and
//! resources and how they move), [`persist`] (saved to a file after every change).

mod catalog;
mod clock;
mod faults;
mod persist;
mod state;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use kluster::OpenstackMetadata;

use super::{BoxFuture, Cloud, CloudError, Quota, Resource, Server, ServerSpec};

pub use catalog::{FLAVORS, IMAGES, ZONES};
pub use clock::Clock;
pub use faults::{Faults, Limits, SimProject};
use state::State;

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

/// The simulated cloud (the embedded default).
#[derive(Clone, Debug)]
pub struct SimCloud {
    config: SimConfig,
    clock: Clock,
    state: Arc<Mutex<State>>,
    ids: Arc<std::sync::atomic::AtomicU64>,
    /// Where the simulation is saved after every change (`None`: memory only).
    file: Option<Arc<std::path::PathBuf>>,
}

/// Locks `m`; a panic while holding the lock leaves plain data behind, so keep using it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SimCloud {
    /// A simulated region with `config`, timed by `clock`.
    pub fn new(config: SimConfig, clock: Clock) -> SimCloud {
        SimCloud {
            config,
            clock,
            state: Arc::default(),
            ids: Arc::default(),
            file: None,
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

    fn quota<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Quota, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let now = self.clock.now();
            let mut st = lock(&self.state);
            let p = self.entry(&mut st, project);
            self.settle(p, now);
            let q = Self::usage(p);
            self.finish(&mut st);
            Ok(q)
        })
    }

    fn servers<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<Server>, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let now = self.clock.now();
            let mut st = lock(&self.state);
            let p = self.entry(&mut st, project);
            if p.faults.empty_listings > 0 {
                p.faults.empty_listings -= 1;
                p.dirty = true;
                self.finish(&mut st);
                return Ok(Vec::new());
            }
            self.settle(p, now);
            let list = p.servers.iter().map(|s| self.show(s, now)).collect();
            self.finish(&mut st);
            Ok(list)
        })
    }

    fn create_server<'a>(
        &'a self,
        project: &'a str,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Server, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            self.create(project, spec)
        })
    }

    fn delete_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let found = self.mark_deleted(project, |p| {
                p.servers
                    .iter_mut()
                    .find(|s| s.id == id)
                    .map(|s| &mut s.deleted)
            });
            if found {
                Ok(())
            } else {
                Err(CloudError(format!(
                    "Instance {id} could not be found. (HTTP 404)"
                )))
            }
        })
    }

    fn resources<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Resource>, CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let now = self.clock.now();
            let mut st = lock(&self.state);
            let p = self.entry(&mut st, project);
            self.settle(p, now);
            let list = p
                .resources
                .iter()
                .map(|r| Resource {
                    id: r.id.clone(),
                    kluster: r.kluster.clone(),
                    kind: r.kind,
                    name: r.name.clone(),
                    deleting: r.deleted.is_some(),
                })
                .collect();
            self.finish(&mut st);
            Ok(list)
        })
    }

    fn delete_resource<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        Box::pin(async move {
            self.gate(project).await?;
            let found = self.mark_deleted(project, |p| {
                p.resources
                    .iter_mut()
                    .find(|r| r.id == id)
                    .map(|r| &mut r.deleted)
            });
            if found {
                Ok(())
            } else {
                Err(CloudError(format!("Resource {id} could not be found.")))
            }
        })
    }
}
