//! A simulated OpenStack region, the embedded default cloud: a fixed catalog per project,
//! per-project quotas, servers that go BUILD → ACTIVE (or ERROR) and register as nodes on a
//! clock, resources that running klusters create by themselves (a volume, a load balancer,
//! a route per node), and faults that can be switched per project at run time.
//!
//! Everything derives from the clock and the calls made, so a test with a manual clock sees
//! the same cloud every time.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use kluster::{Flavor, IdName, KeyPair, Named, Network, OpenstackMetadata, Router, Subnet};
use serde::{Deserialize, Serialize};

use super::{
    BoxFuture, Cloud, CloudError, NodeState, Quota, Resource, ResourceKind, Server, ServerSpec,
    ServerStatus, Usage,
};

/// Flavors of the simulated region: (name, vCPUs, RAM MiB).
pub const FLAVORS: &[(&str, i64, i64)] = &[
    ("m1.small", 2, 4096),
    ("m1.medium", 4, 8192),
    ("m1.large", 8, 16384),
    ("m1.xlarge", 16, 32768),
];

/// Availability zones of the simulated region.
pub const ZONES: &[&str] = &["az-a", "az-b"];

/// Images servers can boot.
pub const IMAGES: &[&str] = &["flatcar-stable-amd64", "ubuntu-24.04-amd64"];

/// Where the simulation's time comes from.
#[derive(Clone, Debug)]
pub enum Clock {
    /// Wall-clock time (since the Unix epoch, so a saved simulation resumes correctly).
    Real,
    /// Time that moves only when a test advances it.
    Manual(Arc<Mutex<Duration>>),
}

impl Clock {
    /// Wall-clock time.
    pub fn real() -> Clock {
        Clock::Real
    }

    /// A manual clock at zero.
    pub fn manual() -> Clock {
        Clock::Manual(Arc::new(Mutex::new(Duration::ZERO)))
    }

    /// Time since the start.
    pub fn now(&self) -> Duration {
        match self {
            Clock::Real => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default(),
            Clock::Manual(t) => *lock(t),
        }
    }

    /// Moves a manual clock forward (no effect on a real one).
    pub fn advance(&self, by: Duration) {
        if let Clock::Manual(t) = self {
            *lock(t) += by;
        }
    }
}

/// Quota limits of a project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Servers.
    pub instances: i64,
    /// vCPUs.
    pub cores: i64,
    /// RAM in MiB.
    pub ram: i64,
}

impl Default for Limits {
    /// Nova's defaults: 10 instances, 20 cores, 50 GiB RAM.
    fn default() -> Self {
        Limits {
            instances: 10,
            cores: 20,
            ram: 51200,
        }
    }
}

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

/// Faults to inject into one project; all off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Faults {
    /// Every server create fails as if the instance quota were used up.
    pub quota_exhausted: bool,
    /// New servers end in ERROR instead of ACTIVE.
    pub server_error: bool,
    /// Every call fails with an internal server error.
    pub api_error: bool,
    /// Every call hangs (callers time out).
    pub api_timeout: bool,
    /// The next this-many server listings come back empty.
    pub empty_listings: u32,
    /// New servers never register as nodes.
    pub no_register: bool,
}

/// A project's simulator settings (extension endpoint `/api/v1/simulator`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimProject {
    /// Injected faults.
    #[serde(default)]
    pub faults: Faults,
    /// Quota limits.
    pub limits: Limits,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct SimServer {
    id: String,
    name: String,
    kluster: String,
    vcpus: i64,
    ram: i64,
    created: Duration,
    error: bool,
    registers: bool,
    cordoned: bool,
    routed: bool,
    deleted: Option<Duration>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct SimResource {
    id: String,
    kluster: String,
    kind: ResourceKind,
    name: String,
    deleted: Option<Duration>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ProjectState {
    /// Changed since the last save.
    #[serde(skip)]
    dirty: bool,
    servers: Vec<SimServer>,
    resources: Vec<SimResource>,
    /// Klusters whose workloads have created their volume and load balancer.
    workloads: HashSet<String>,
    faults: Faults,
    limits: Limits,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    projects: HashMap<String, ProjectState>,
    #[serde(default)]
    next_id: u64,
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data behind; keep using it.
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

    /// A simulated region saved to `path` after every change and resumed from it: like a
    /// real cloud, it outlives the controller process.
    pub fn persistent(
        config: SimConfig,
        clock: Clock,
        path: &std::path::Path,
    ) -> Result<SimCloud, String> {
        let mut sim = SimCloud::new(config, clock);
        match std::fs::read(path) {
            Ok(bytes) => {
                let st: State = serde_json::from_slice(&bytes)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                sim.ids
                    .store(st.next_id, std::sync::atomic::Ordering::Relaxed);
                sim.state = Arc::new(Mutex::new(st));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
        sim.file = Some(Arc::new(path.to_path_buf()));
        Ok(sim)
    }

    /// Saves the state if a project changed (and there is a file); a failure is logged.
    fn finish(&self, st: &mut State) {
        let mut dirty = false;
        for p in st.projects.values_mut() {
            dirty |= std::mem::take(&mut p.dirty);
        }
        if dirty {
            self.save(st);
        }
    }

    /// Writes the state to the file, if there is one (a failure is logged, not fatal).
    fn save(&self, st: &mut State) {
        let Some(path) = &self.file else { return };
        st.next_id = self.ids.load(std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension("tmp");
        let written = serde_json::to_vec(st)
            .map_err(|e| e.to_string())
            .and_then(|b| std::fs::write(&tmp, b).map_err(|e| e.to_string()))
            .and_then(|()| std::fs::rename(&tmp, path.as_path()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            tracing::warn!(path = %path.display(), error = e, "could not save the simulated cloud");
        }
    }

    fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
    }

    /// The simulation's clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The catalog `project` sees; ids derive from the project id, so they are stable.
    pub fn catalog(project: &str) -> OpenstackMetadata {
        let short: String = project.chars().take(8).collect();
        OpenstackMetadata {
            availability_zones: ZONES.iter().map(|z| Named { name: (*z).into() }).collect(),
            flavors: FLAVORS
                .iter()
                .enumerate()
                .map(|(i, (name, vcpus, ram))| Flavor {
                    name: (*name).into(),
                    id: format!("flavor-{}", i + 1),
                    ram: *ram,
                    vcpus: *vcpus,
                })
                .collect(),
            security_groups: vec![IdName {
                name: "default".into(),
                id: format!("sg-{short}"),
            }],
            key_pairs: vec![KeyPair {
                name: "default-key".into(),
                public_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBaQ0ix8Z3cQ1C2FAkRVkC7Tt5LjlZpNNqKWKqqeE6eB default-key".into(),
            }],
            routers: vec![Router {
                name: "default-router".into(),
                id: format!("router-{short}"),
                external_network_id: "net-external".into(),
                networks: vec![Network {
                    name: "private".into(),
                    id: format!("net-{short}"),
                    subnets: vec![Subnet {
                        name: "private-subnet".into(),
                        id: format!("subnet-{short}"),
                        cidr: "10.180.0.0/24".into(),
                    }],
                }],
            }],
            volume_types: vec![IdName {
                name: "standard".into(),
                id: "vt-standard".into(),
            }],
        }
    }

    /// The project's faults and limits.
    pub fn project(&self, project: &str) -> SimProject {
        let mut st = lock(&self.state);
        let p = self.entry(&mut st, project);
        SimProject {
            faults: p.faults.clone(),
            limits: p.limits,
        }
    }

    /// Replaces the project's faults and limits; they apply from the next call on.
    pub fn set_project(&self, project: &str, settings: SimProject) {
        let mut st = lock(&self.state);
        let p = self.entry(&mut st, project);
        p.faults = settings.faults;
        p.limits = settings.limits;
        p.dirty = true;
        self.finish(&mut st);
    }

    /// Cordons or uncordons the node of the server named `name`; false if there is none.
    pub fn cordon(&self, project: &str, name: &str, cordoned: bool) -> bool {
        let mut st = lock(&self.state);
        let p = self.entry(&mut st, project);
        let found = match p.servers.iter_mut().find(|s| s.name == name) {
            Some(s) => {
                s.cordoned = cordoned;
                true
            }
            None => false,
        };
        p.dirty |= found;
        self.finish(&mut st);
        found
    }

    /// What is left in the cloud of `kluster`: server names and resource names, including
    /// ones still being deleted. Empty when the kluster left no debris.
    pub fn debris(&self, project: &str, kluster: &str) -> Vec<String> {
        let now = self.clock.now();
        let mut st = lock(&self.state);
        let p = self.entry(&mut st, project);
        self.settle(p, now);
        let left = p
            .servers
            .iter()
            .filter(|s| s.kluster == kluster)
            .map(|s| format!("server {}", s.name))
            .chain(
                p.resources
                    .iter()
                    .filter(|r| r.kluster == kluster)
                    .map(|r| format!("{:?} {}", r.kind, r.name)),
            )
            .collect();
        self.finish(&mut st);
        left
    }

    fn entry<'s>(&self, st: &'s mut State, project: &str) -> &'s mut ProjectState {
        st.projects
            .entry(project.to_string())
            .or_insert_with(|| ProjectState {
                dirty: false,
                servers: Vec::new(),
                resources: Vec::new(),
                workloads: HashSet::new(),
                faults: Faults::default(),
                limits: self.config.limits,
            })
    }

    fn status(&self, s: &SimServer, now: Duration) -> (ServerStatus, Option<NodeState>) {
        if s.deleted.is_some() {
            return (ServerStatus::Deleting, None);
        }
        if now < s.created + self.config.boot {
            return (ServerStatus::Build, None);
        }
        if s.error {
            return (ServerStatus::Error, None);
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
    fn settle(&self, p: &mut ProjectState, now: Duration) {
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
                new.push((
                    s.kluster.clone(),
                    ResourceKind::Route,
                    format!("route-{}", s.name),
                ));
            }
            if p.workloads.insert(s.kluster.clone()) {
                let k = s.kluster.clone();
                new.push((k.clone(), ResourceKind::Volume, format!("pvc-{k}-data")));
                new.push((
                    k.clone(),
                    ResourceKind::LoadBalancer,
                    format!("kube_service_{k}_ingress"),
                ));
            }
        }
        for (kluster, kind, name) in new {
            p.resources.push(SimResource {
                id: format!("res-{:06}", self.next_id()),
                kluster,
                kind,
                name,
                deleted: None,
            });
        }
        // A kluster without servers has no workloads left that could create anything.
        let with_servers: HashSet<&str> = p.servers.iter().map(|s| s.kluster.as_str()).collect();
        p.workloads.retain(|k| with_servers.contains(k.as_str()));
    }

    /// Applies the project's API faults; `Ok(())` when the call may go on.
    async fn gate(&self, project: &str) -> Result<(), CloudError> {
        let faults = {
            let mut st = lock(&self.state);
            self.entry(&mut st, project).faults.clone()
        };
        if faults.api_timeout {
            std::future::pending::<()>().await;
        }
        if faults.api_error {
            return Err(CloudError(
                "Unexpected API Error. The server has either erred or is incapable of performing the requested operation. (HTTP 500)".into(),
            ));
        }
        Ok(())
    }

    fn usage(p: &ProjectState) -> Quota {
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

    fn create(&self, project: &str, spec: &ServerSpec) -> Result<Server, CloudError> {
        let now = self.clock.now();
        let Some((_, vcpus, ram)) = FLAVORS.iter().find(|f| f.0 == spec.flavor) else {
            return Err(CloudError(format!(
                "Flavor {} could not be found. (HTTP 400)",
                spec.flavor
            )));
        };
        if !IMAGES.contains(&spec.image.as_str()) {
            return Err(CloudError(format!(
                "Image {} could not be found. (HTTP 400)",
                spec.image
            )));
        }
        if !spec.availability_zone.is_empty() && !ZONES.contains(&spec.availability_zone.as_str()) {
            return Err(CloudError(format!(
                "The requested availability zone is not available: {} (HTTP 400)",
                spec.availability_zone
            )));
        }
        let id = format!("srv-{:06}", self.next_id());
        let mut st = lock(&self.state);
        let p = self.entry(&mut st, project);
        self.settle(p, now);
        let q = Self::usage(p);
        let exceeded = |what: &str, requested: i64, u: Usage| {
            CloudError(format!(
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
            return Err(exceeded("cores", *vcpus, q.cores));
        }
        if q.ram.used + ram > q.ram.limit {
            return Err(exceeded("ram", *ram, q.ram));
        }
        let s = SimServer {
            id,
            name: spec.name.clone(),
            kluster: spec.kluster.clone(),
            vcpus: *vcpus,
            ram: *ram,
            created: now,
            error: p.faults.server_error,
            registers: !p.faults.no_register,
            cordoned: false,
            routed: false,
            deleted: None,
        };
        let shown = self.show(&s, now);
        p.servers.push(s);
        p.dirty = true;
        self.finish(&mut st);
        Ok(shown)
    }

    /// Marks what `pick` finds in the project as deleted now (a second delete keeps the
    /// first time); false when it finds nothing.
    fn mark_deleted(
        &self,
        project: &str,
        pick: impl FnOnce(&mut ProjectState) -> Option<&mut Option<Duration>>,
    ) -> bool {
        let now = self.clock.now();
        let mut st = lock(&self.state);
        let p = self.entry(&mut st, project);
        let found = match pick(p) {
            Some(deleted) => {
                deleted.get_or_insert(now);
                true
            }
            None => false,
        };
        self.entry(&mut st, project).dirty |= found;
        self.finish(&mut st);
        found
    }

    fn show(&self, s: &SimServer, now: Duration) -> Server {
        let (status, node) = self.status(s, now);
        Server {
            id: s.id.clone(),
            name: s.name.clone(),
            kluster: s.kluster.clone(),
            status,
            node,
            age: now.saturating_sub(s.created),
        }
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

    fn simulator(&self) -> Option<&SimCloud> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, flavor: &str) -> ServerSpec {
        ServerSpec {
            name: name.into(),
            kluster: "k".into(),
            flavor: flavor.into(),
            image: IMAGES[0].into(),
            availability_zone: "az-a".into(),
        }
    }

    fn sim() -> SimCloud {
        SimCloud::new(
            SimConfig {
                boot: Duration::from_secs(10),
                register: Duration::from_secs(5),
                teardown: Duration::from_secs(2),
                limits: Limits {
                    instances: 3,
                    cores: 10,
                    ram: 100_000,
                },
            },
            Clock::manual(),
        )
    }

    #[tokio::test]
    async fn servers_boot_register_and_bring_their_klusters_resources() {
        let c = sim();
        let s = c
            .create_server("p", &spec("kks-k-a-00001", "m1.small"))
            .await
            .unwrap();
        assert_eq!((s.status, s.node), (ServerStatus::Build, None));
        c.clock().advance(Duration::from_secs(10));
        let l = c.servers("p").await.unwrap();
        assert_eq!((l[0].status, l[0].node), (ServerStatus::Active, None));
        assert!(c.resources("p").await.unwrap().is_empty());
        c.clock().advance(Duration::from_secs(5));
        let l = c.servers("p").await.unwrap();
        assert_eq!(
            l[0].node,
            Some(NodeState {
                ready: true,
                cordoned: false
            })
        );
        let mut kinds: Vec<_> = c
            .resources("p")
            .await
            .unwrap()
            .iter()
            .map(|r| r.kind)
            .collect();
        kinds.sort();
        assert_eq!(
            kinds,
            [
                ResourceKind::Volume,
                ResourceKind::LoadBalancer,
                ResourceKind::Route
            ]
        );
        assert!(
            c.servers("other").await.unwrap().is_empty(),
            "projects are apart"
        );
        // Deleting: Deleting until the teardown time passes, then gone with its route.
        c.delete_server("p", &s.id).await.unwrap();
        assert_eq!(
            c.servers("p").await.unwrap()[0].status,
            ServerStatus::Deleting
        );
        c.clock().advance(Duration::from_secs(2));
        assert!(c.servers("p").await.unwrap().is_empty());
        let left: Vec<_> = c
            .resources("p")
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.kind)
            .collect();
        assert!(!left.contains(&ResourceKind::Route), "{left:?}");
    }

    #[tokio::test]
    async fn quotas_bite_with_novas_words() {
        let c = sim();
        c.create_server("p", &spec("a", "m1.large")).await.unwrap();
        let e = c
            .create_server("p", &spec("b", "m1.medium"))
            .await
            .unwrap_err();
        assert_eq!(
            e.0,
            "Quota exceeded for cores: Requested 4, but already used 8 of 10 cores. (HTTP 403)"
        );
        c.create_server("p", &spec("b", "m1.small")).await.unwrap();
        let q = c.quota("p").await.unwrap();
        assert_eq!(
            (q.instances.used, q.cores.used, q.cores.remaining()),
            (2, 10, 0)
        );
        let e = c
            .create_server("p", &spec("c", "m9.huge"))
            .await
            .unwrap_err();
        assert!(e.0.contains("Flavor m9.huge could not be found"), "{e}");
    }

    #[tokio::test]
    async fn faults_switch_per_project() {
        let c = sim();
        let mut p = c.project("p");
        p.faults.server_error = true;
        p.faults.empty_listings = 1;
        c.set_project("p", p);
        c.create_server("p", &spec("a", "m1.small")).await.unwrap();
        c.create_server("q", &spec("a", "m1.small")).await.unwrap();
        c.clock().advance(Duration::from_secs(10));
        assert!(
            c.servers("p").await.unwrap().is_empty(),
            "one empty listing"
        );
        assert_eq!(c.servers("p").await.unwrap()[0].status, ServerStatus::Error);
        assert_eq!(
            c.servers("q").await.unwrap()[0].status,
            ServerStatus::Active
        );
        let mut p = c.project("p");
        p.faults = Faults {
            quota_exhausted: true,
            ..Faults::default()
        };
        c.set_project("p", p);
        let e = c
            .create_server("p", &spec("b", "m1.small"))
            .await
            .unwrap_err();
        assert!(e.0.starts_with("Quota exceeded for instances"), "{e}");
        let mut p = c.project("p");
        p.faults = Faults {
            api_timeout: true,
            ..Faults::default()
        };
        c.set_project("p", p);
        let hung = tokio::time::timeout(Duration::from_millis(50), c.servers("p")).await;
        assert!(hung.is_err(), "the call hangs");
    }
}
