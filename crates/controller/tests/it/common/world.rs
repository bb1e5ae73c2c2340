//! The reconcilers' test world: a real SQLite store, the simulated cloud on a manual clock,
//! and helpers to add klusters, run passes and look at servers and events.

use std::sync::Arc;
use std::time::Duration;

use controller::cloud::sim::{Clock, Faults, Limits, SimCloud, SimConfig};
use controller::cloud::{Cloud, Server, ServerStatus};
use controller::reconcile::ground::Timing;
use controller::reconcile::Reconciler;
use controller::store::{CaRecord, Store, StoredKluster};
use kluster::{Kluster, KlusterPhase, NodePool};

pub const P: &str = "project-1";
pub const BOOT: Duration = Duration::from_secs(10);
pub const REGISTER: Duration = Duration::from_secs(5);
pub const TEARDOWN: Duration = Duration::from_secs(3);

/// A store, a simulated cloud on a manual clock and a reconciler over them.
pub struct World {
    pub store: Store,
    pub sim: SimCloud,
    pub rec: Reconciler,
    /// The database file.
    pub path: std::path::PathBuf,
}

pub async fn world(tag: &str) -> World {
    let path = std::env::temp_dir().join(format!("mc-rec-{tag}-{}.db", std::process::id()));
    for s in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", path.display()));
    }
    let store = Store::open(&path).await.unwrap();
    let sim = SimCloud::new(
        SimConfig {
            boot: BOOT,
            register: REGISTER,
            teardown: TEARDOWN,
            limits: Limits {
                instances: 6,
                cores: 100,
                ram: 1 << 20,
            },
        },
        Clock::manual(),
    );
    let rec = reconciler(&store, Arc::new(sim.clone()));
    World {
        store,
        sim,
        rec,
        path,
    }
}

pub fn reconciler(store: &Store, cloud: Arc<dyn Cloud>) -> Reconciler {
    Reconciler::new(
        store.clone(),
        cloud,
        Timing {
            create: Duration::ZERO,
            upgrade: Duration::ZERO,
            creation_timeout: Duration::from_secs(3600),
            register_timeout: Duration::from_secs(60),
            create_retry: Duration::from_secs(1),
            create_retry_cap: Duration::from_secs(4),
        },
        Duration::from_millis(200),
    )
}

pub fn kluster(name: &str, pools: &[(&str, i64)]) -> Kluster {
    let mut k = Kluster {
        name: name.into(),
        ..Default::default()
    };
    k.spec.node_pools = pools
        .iter()
        .map(|(pool, size)| NodePool {
            name: (*pool).into(),
            size: *size,
            flavor: "m1.small".into(),
            availability_zone: "az-a".into(),
            ..Default::default()
        })
        .collect();
    kluster::defaults::fill(&mut k, "1.32.4");
    k
}

impl World {
    pub async fn add(&self, k: Kluster) {
        self.add_to(P, k).await;
    }

    pub async fn add_to(&self, project: &str, k: Kluster) {
        let stored = StoredKluster {
            kluster: k,
            creator: "alice/demo".into(),
            termination_protected: false,
        };
        let ca = CaRecord {
            cert_pem: String::new(),
            key_sealed: Vec::new(),
        };
        self.store.insert(project, &stored, &ca).await.unwrap();
    }

    pub async fn get(&self, name: &str) -> Option<Kluster> {
        self.store.get(P, name).await.unwrap().map(|s| s.kluster)
    }

    pub async fn pass(&self) {
        self.rec.pass().await.unwrap();
    }

    /// Passes with the clock moving `step` before each, `n` times.
    pub async fn run(&self, n: usize, step: Duration) {
        for _ in 0..n {
            self.sim.clock().advance(step);
            self.pass().await;
        }
    }

    pub async fn servers(&self, kluster: &str) -> Vec<Server> {
        let mut list = self.sim.servers(P).await.unwrap();
        list.retain(|s| s.kluster == kluster && s.status != ServerStatus::Deleting);
        list
    }

    pub async fn events(&self, kluster: &str) -> Vec<kluster::Event> {
        self.store.events(P, kluster, None).await.unwrap()
    }

    pub async fn reasons(&self, kluster: &str) -> Vec<String> {
        self.events(kluster)
            .await
            .into_iter()
            .map(|e| e.reason)
            .collect()
    }

    pub async fn set_faults(&self, faults: Faults) {
        self.set_faults_of(P, faults).await;
    }

    pub async fn set_faults_of(&self, project: &str, faults: Faults) {
        let mut p = self.sim.project(project).await.unwrap();
        p.faults = faults;
        self.sim.set_project(project, p).await.unwrap();
    }

    pub async fn resize(&self, name: &str, pool: usize, size: i64) {
        self.store
            .modify(P, name, |k| {
                k.spec.node_pools[pool].size = size;
                Ok::<_, ()>(())
            })
            .await
            .unwrap()
            .unwrap()
            .unwrap();
    }

    /// Brings `name` (pools as given) to Running with every node registered.
    pub async fn up(&self, name: &str, pools: &[(&str, i64)]) {
        self.add(kluster(name, pools)).await;
        self.run(6, BOOT / 2).await;
        let k = self.get(name).await.unwrap();
        assert_eq!(k.status.phase, KlusterPhase::Running);
        for (info, (_, size)) in k.status.node_pools.iter().zip(pools) {
            assert_eq!((info.running, info.healthy), (*size, *size), "{info:?}");
        }
    }
}
