//! The simulation's state per project and how it moves: servers boot, register and go,
//! nodes get routes, running klusters get a volume and a load balancer, quotas bite.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::catalog::{FLAVORS, IMAGES, ZONES};
use super::faults::{Faults, Limits};
use super::SimCloud;
use crate::cloud::{
    CloudError, NodeState, Owner, Quota, ResourceKind, Server, ServerSpec, ServerStatus, Usage,
};

/// Nova's fault for a server no host could place: the simulator's servers in ERROR carry it.
pub const NO_VALID_HOST: &str = "No valid host was found. There are not enough hosts available.";

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct SimServer {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) kluster: String,
    /// The kluster's uid (empty in a simulation saved before uids marked servers).
    #[serde(default)]
    pub(super) uid: String,
    pub(super) vcpus: i64,
    pub(super) ram: i64,
    pub(super) created: Duration,
    pub(super) error: bool,
    pub(super) registers: bool,
    pub(super) cordoned: bool,
    pub(super) routed: bool,
    pub(super) deleted: Option<Duration>,
    /// Stopped (SHUTOFF) by hand ([`SimCloud::stop`]) until started again.
    #[serde(default)]
    pub(super) stopped: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub(super) struct SimResource {
    pub(super) id: String,
    pub(super) kluster: String,
    /// The kluster's uid, as its server carried it.
    #[serde(default)]
    pub(super) uid: String,
    pub(super) kind: ResourceKind,
    pub(super) name: String,
    pub(super) deleted: Option<Duration>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct ProjectState {
    /// Changed since it was read (it is stored again).
    #[serde(skip)]
    pub(super) dirty: bool,
    pub(super) servers: Vec<SimServer>,
    pub(super) resources: Vec<SimResource>,
    /// Klusters whose workloads have created their volume and load balancer.
    pub(super) workloads: HashSet<String>,
    pub(super) faults: Faults,
    pub(super) limits: Limits,
}

/// The whole simulation as older versions saved it to a side file (imported once).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct SavedFile {
    pub(super) projects: HashMap<String, ProjectState>,
}

impl ProjectState {
    /// A project nobody has used yet: no servers, no faults, quota `limits`.
    pub(super) fn new(limits: Limits) -> Self {
        ProjectState {
            dirty: true,
            servers: Vec::new(),
            resources: Vec::new(),
            workloads: HashSet::new(),
            faults: Faults::default(),
            limits,
        }
    }
}

/// A new id: `prefix-` and 12 random hex digits (unique across replicas).
pub(super) fn new_id(prefix: &str) -> String {
    use rand_core::RngCore;
    let mut b = [0u8; 6];
    rand_core::OsRng.fill_bytes(&mut b);
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{prefix}-{hex}")
}

impl SimCloud {
    /// Cordons or uncordons the node of the server named `name`; false if there is none.
    pub async fn cordon(
        &self,
        project: &str,
        name: &str,
        cordoned: bool,
    ) -> Result<bool, CloudError> {
        self.update_server(project, |s| s.name == name, |s| s.cordoned = cordoned)
            .await
    }

    /// Stops the server named `name` (Nova's SHUTOFF, as if someone stopped it); false if
    /// there is none.
    pub async fn stop(&self, project: &str, name: &str) -> Result<bool, CloudError> {
        let live = |s: &SimServer| s.name == name && s.deleted.is_none();
        self.update_server(project, live, |s| s.stopped = true)
            .await
    }

    /// Applies `change` to the first server `pick` finds (the project is stored again);
    /// false if none.
    pub(super) async fn update_server(
        &self,
        project: &str,
        pick: impl Fn(&SimServer) -> bool,
        change: impl FnOnce(&mut SimServer),
    ) -> Result<bool, CloudError> {
        self.with_project(project, |p| {
            let found = match p.servers.iter_mut().find(|s| pick(s)) {
                Some(s) => {
                    change(s);
                    true
                }
                None => false,
            };
            p.dirty |= found;
            found
        })
        .await
    }

    /// What is left in the cloud of `kluster`: server names and resource names, including
    /// ones still being deleted. Empty when the kluster left no debris.
    pub async fn debris(&self, project: &str, kluster: &str) -> Result<Vec<String>, CloudError> {
        let now = self.clock.unix();
        self.with_project(project, |p| {
            self.settle(p, now);
            p.servers
                .iter()
                .filter(|s| s.kluster == kluster)
                .map(|s| format!("server {}", s.name))
                .chain(
                    p.resources
                        .iter()
                        .filter(|r| r.kluster == kluster)
                        .map(|r| format!("{:?} {}", r.kind, r.name)),
                )
                .collect()
        })
        .await
    }

    pub(super) fn status(&self, s: &SimServer, now: Duration) -> (ServerStatus, Option<NodeState>) {
        if s.deleted.is_some() {
            return (ServerStatus::Deleting, None);
        }
        if now < s.created + self.config.boot {
            return (ServerStatus::Build, None);
        }
        if s.error {
            return (ServerStatus::Error, None);
        }
        if s.stopped {
            return (ServerStatus::Stopped, None);
        }
        let node = (s.registers && now >= s.created + self.config.boot + self.config.register)
            .then_some(NodeState {
                ready: true,
                cordoned: s.cordoned,
            });
        (ServerStatus::Active, node)
    }

    /// Brings the project up to `now`: deleted things disappear, registered nodes get a
    /// route, a kluster with a registered node gets its volume and load balancer.
    pub(super) fn settle(&self, p: &mut ProjectState, now: Duration) {
        let before = (p.servers.len(), p.resources.len(), p.workloads.len());
        self.settle_inner(p, now);
        if before != (p.servers.len(), p.resources.len(), p.workloads.len()) {
            p.dirty = true;
        }
    }

    fn settle_inner(&self, p: &mut ProjectState, now: Duration) {
        let teardown = self.config.teardown;
        let gone = |deleted: Option<Duration>| deleted.is_some_and(|t| now >= t + teardown);
        let vanished: HashSet<String> = p
            .servers
            .iter()
            .filter(|s| gone(s.deleted))
            .map(|s| format!("route-{}", s.name))
            .collect();
        p.servers.retain(|s| !gone(s.deleted));
        let dangling =
            |r: &SimResource| r.kind == ResourceKind::Route && vanished.contains(&r.name);
        p.resources.retain(|r| !gone(r.deleted) && !dangling(r));
        let mut new = Vec::new();
        for i in 0..p.servers.len() {
            let (_, node) = self.status(&p.servers[i], now);
            if node.is_none() {
                continue;
            }
            let s = &mut p.servers[i];
            if !s.routed {
                s.routed = true;
                let mark = (s.kluster.clone(), s.uid.clone());
                new.push((mark, ResourceKind::Route, format!("route-{}", s.name)));
            }
            // Its workloads' cloud controller manager and CSI driver are handed the
            // cluster name with the uid (`cloud::owner`).
            let owner = Owner {
                name: &s.kluster,
                uid: &s.uid,
            };
            let cluster = owner.cluster_name();
            if p.workloads.insert(cluster.clone()) {
                let (k, mark) = (&s.kluster, (s.kluster.clone(), s.uid.clone()));
                new.push((mark.clone(), ResourceKind::Volume, format!("pvc-{k}-data")));
                new.push((
                    mark,
                    ResourceKind::LoadBalancer,
                    format!("kube_service_{cluster}_ingress"),
                ));
            }
        }
        for ((kluster, uid), kind, name) in new {
            p.resources.push(SimResource {
                id: new_id("res"),
                kluster,
                uid,
                kind,
                name,
                deleted: None,
            });
        }
        // A kluster without servers has no workloads left that could create anything.
        let with_servers: HashSet<String> = p
            .servers
            .iter()
            .map(|s| {
                let owner = Owner {
                    name: &s.kluster,
                    uid: &s.uid,
                };
                owner.cluster_name()
            })
            .collect();
        p.workloads.retain(|k| with_servers.contains(k));
    }

    pub(super) fn usage(p: &ProjectState) -> Quota {
        let (mut cores, mut ram) = (0, 0);
        for s in &p.servers {
            cores += s.vcpus;
            ram += s.ram;
        }
        Quota {
            instances: Usage {
                limit: p.limits.instances,
                used: p.servers.len() as i64,
            },
            cores: Usage {
                limit: p.limits.cores,
                used: cores,
            },
            ram: Usage {
                limit: p.limits.ram,
                used: ram,
            },
        }
    }

    pub(super) async fn create(
        &self,
        project: &str,
        spec: &ServerSpec,
    ) -> Result<Server, CloudError> {
        let now = self.clock.unix();
        let Some((_, vcpus, ram)) = FLAVORS.iter().find(|f| f.0 == spec.flavor) else {
            return Err(CloudError::new(format!(
                "Flavor {} could not be found. (HTTP 400)",
                spec.flavor
            )));
        };
        if !IMAGES.contains(&spec.image.as_str()) {
            return Err(CloudError::new(format!(
                "Image {} could not be found. (HTTP 400)",
                spec.image
            )));
        }
        if !spec.availability_zone.is_empty() && !ZONES.contains(&spec.availability_zone.as_str()) {
            return Err(CloudError::new(format!(
                "The requested availability zone is not available: {} (HTTP 400)",
                spec.availability_zone
            )));
        }
        let id = new_id("srv");
        self.with_project(project, |p| self.create_in(p, id, spec, *vcpus, *ram, now))
            .await?
    }

    fn create_in(
        &self,
        p: &mut ProjectState,
        id: String,
        spec: &ServerSpec,
        vcpus: i64,
        ram: i64,
        now: Duration,
    ) -> Result<Server, CloudError> {
        self.settle(p, now);
        let q = Self::usage(p);
        let exceeded = |what: &str, requested: i64, u: Usage| {
            CloudError::quota_exceeded(format!(
                "Quota exceeded for {what}: Requested {requested}, but already used {} of {} {what}. (HTTP 403)",
                u.used, u.limit
            ))
        };
        if p.faults.quota_exhausted {
            let u = Usage {
                limit: q.instances.used,
                used: q.instances.used,
            };
            return Err(exceeded("instances", 1, u));
        }
        if q.instances.used + 1 > q.instances.limit {
            return Err(exceeded("instances", 1, q.instances));
        }
        if q.cores.used + vcpus > q.cores.limit {
            return Err(exceeded("cores", vcpus, q.cores));
        }
        if q.ram.used + ram > q.ram.limit {
            return Err(exceeded("ram", ram, q.ram));
        }
        let s = SimServer {
            id,
            name: spec.name.clone(),
            kluster: spec.kluster.clone(),
            uid: spec.uid.clone(),
            vcpus,
            ram,
            created: now,
            error: p.faults.server_error,
            registers: !p.faults.no_register,
            cordoned: false,
            routed: false,
            deleted: None,
            stopped: false,
        };
        let shown = self.show(&s, now);
        p.servers.push(s);
        p.dirty = true;
        Ok(shown)
    }

    /// Marks what `pick` finds in the project as deleted now (a second delete keeps the
    /// first time); false when it finds nothing.
    pub(super) async fn mark_deleted(
        &self,
        project: &str,
        pick: impl FnOnce(&mut ProjectState) -> Option<&mut Option<Duration>>,
    ) -> Result<bool, CloudError> {
        let now = self.clock.unix();
        self.with_project(project, |p| {
            let found = match pick(p) {
                Some(deleted) => {
                    deleted.get_or_insert(now);
                    true
                }
                None => false,
            };
            p.dirty |= found;
            found
        })
        .await
    }

    pub(super) fn show(&self, s: &SimServer, now: Duration) -> Server {
        let (status, node) = self.status(s, now);
        Server {
            id: s.id.clone(),
            name: s.name.clone(),
            kluster: s.kluster.clone(),
            uid: Some(s.uid.clone()).filter(|u| !u.is_empty()),
            status,
            node,
            age: now.saturating_sub(s.created),
            fault: (status == ServerStatus::Error).then(|| NO_VALID_HOST.to_string()),
        }
    }
}
