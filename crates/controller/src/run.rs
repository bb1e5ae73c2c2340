//! Starting the controller: open the store, load the policy, build the router, serve. Used
//! by the standalone binary and by the dashboard, which embeds it on a loopback port.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::api::{router, ApiSettings, ApiState};
use crate::auth::{Policy, PolicyError, ServiceCredentials, TokenValidator};
use crate::pki::{SealKey, Sealer};
pub use crate::shutdown::Shutdown;
use crate::store::{Database, Store, StoreError};

/// Everything the controller needs to run.
#[derive(Clone, Debug)]
pub struct ControllerConfig {
    /// Listen address (port 0: any free port).
    pub listen: SocketAddr,
    /// Keystone v3 endpoint.
    pub keystone_url: String,
    /// The controller's own Keystone user (validates other tokens).
    pub service: ServiceCredentials,
    /// Where the controller's data lives: an SQLite file, or a PostgreSQL database shared
    /// by several replicas.
    pub database: Database,
    /// Policy file (oslo-style JSON); `None`: the built-in Kubernikus rules.
    pub policy_file: Option<PathBuf>,
    /// How long a validated token is trusted (at most 5 minutes).
    pub token_cache: Duration,
    /// Versions, reserved ranges, CORS origins.
    pub settings: ApiSettings,
    /// Key that seals the klusters' CA keys at rest.
    pub ca_key: SealKey,
    /// How fast the simulated cloud and the reconcilers go.
    pub tuning: Tuning,
    /// The cloud to provision into (default: the simulated one).
    pub cloud: crate::cloud::choice::CloudChoice,
}

/// How fast the simulated cloud and the reconcilers go (fast for tests, realistic for
/// demos).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Control-plane phases and the reconcilers' timeouts.
    pub timing: crate::reconcile::ground::Timing,
    /// The simulated cloud: boot, registration and tear-down times, default quota.
    pub sim: crate::cloud::sim::SimConfig,
    /// Pause between reconcile passes.
    pub reconcile_every: Duration,
    /// Time between full resyncs (a look at every kluster, changed or not).
    pub resync_every: Duration,
    /// The longest a project goes without a full server listing (zero: every look lists
    /// in full; `reconcile::listings`).
    pub full_listing_every: Duration,
    /// Longest wait for one cloud call.
    pub call_timeout: Duration,
    /// Projects reconciled at once.
    pub reconcile_concurrency: usize,
    /// How long one project's reconcile pass may wait for its cloud: past it the project's
    /// remaining cloud calls fail at once and the next pass continues.
    pub project_budget: Duration,
    /// Time to live of the reconcile lease: when the reconciling replica dies, another
    /// takes over within about this long.
    pub lease_ttl: Duration,
    /// Events whose last occurrence is older than this are deleted (default 7 days).
    pub event_retention: Duration,
}

/// How long events are kept unless configured otherwise.
pub const DEFAULT_EVENT_RETENTION: Duration =
    Duration::from_secs(controller_settings::EVENT_RETENTION_DAYS * 24 * 3600);

impl Tuning {
    /// A control plane takes `phase` to come up; servers boot in half of it; passes run
    /// every quarter of it (between 50 ms and 1 s), full resyncs every 2.25 phases but at
    /// least every 15 passes' pause (45 s at the default phase: with a full listing every
    /// 300 s, an idle kluster alone in its project costs about 1.8 requests a minute, and a
    /// server deleted behind its back is replaced within 45 s and a boot); cloud calls
    /// time out after `phase` (between 1 and 30 s); 8 projects are reconciled at once,
    /// each with a budget of four call timeouts per pass.
    pub fn scaled(phase: Duration) -> Tuning {
        let call_timeout = Duration::from_secs(30).min(phase.max(Duration::from_secs(1)));
        let reconcile_every = (phase / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
        let resync_every =
            (reconcile_every * crate::reconcile::FULL_RESYNC_POLLS).max(phase * 9 / 4);
        Tuning {
            timing: crate::reconcile::ground::Timing::scaled(phase),
            sim: crate::cloud::sim::SimConfig::scaled(phase),
            reconcile_every,
            resync_every,
            full_listing_every: crate::reconcile::listings::FULL_AT_LEAST,
            call_timeout,
            reconcile_concurrency: crate::reconcile::DEFAULT_CONCURRENCY,
            project_budget: crate::reconcile::default_budget(call_timeout),
            lease_ttl: crate::reconcile::DEFAULT_LEASE_TTL,
            event_retention: DEFAULT_EVENT_RETENTION,
        }
    }
}

/// Deletes events older than `retention` now and then (every 1/24 of it, between 1 s and
/// 1 h) until `shutdown` completes. Every replica may do it: it is one idempotent delete.
async fn prune_events(
    store: Store,
    retention: Duration,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let every = (retention / 24).clamp(Duration::from_secs(1), Duration::from_secs(3600));
    loop {
        match store.prune_events(retention).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(events = n, "pruned events past their retention"),
            Err(e) => tracing::warn!(error = %e, "pruning old events failed; retrying later"),
        }
        tokio::select! {
            _ = &mut shutdown => return,
            _ = tokio::time::sleep(every) => {}
        }
    }
}

/// Reads a sealing key (64 hex digits) from `path`, creating the file with a random key
/// (mode 0600) when it does not exist ([`serving::seal::load_or_create_key`]).
pub fn load_or_create_key(path: &std::path::Path) -> Result<SealKey, ControllerStartError> {
    serving::seal::load_or_create_key(path).map_err(|e| ControllerStartError::Key {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Why the controller cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ControllerStartError {
    /// Bad Keystone URL.
    #[error("keystone: {0}")]
    Keystone(#[from] keystone::Error),
    /// The policy file is unreadable or invalid.
    #[error("policy {path}: {message}")]
    Policy {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The database cannot be opened (or refuses this controller).
    #[error("controller database {db}: {source}")]
    Store {
        /// The database (no password).
        db: String,
        /// Why.
        source: StoreError,
    },
    /// The CA sealing key file is unusable.
    #[error("CA sealing key {path}: {message}")]
    Key {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The cloud cannot be built: the saved simulated cloud is unreadable, or the OpenStack
    /// settings cannot work.
    #[error("cloud: {message}")]
    Cloud {
        /// What is wrong.
        message: String,
    },
    /// The address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// A running controller.
pub struct Running {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The API it serves there, to answer in the same process without a connection.
    pub router: axum::Router,
    /// Ends when the server and the reconcilers have stopped.
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
    /// Its store.
    pub store: Store,
    /// Its cloud.
    pub cloud: Arc<dyn crate::cloud::Cloud>,
    /// The simulator behind the cloud (faults can be injected through it).
    pub simulator: Option<crate::cloud::sim::SimCloud>,
}

/// Opens the store, loads the policy and serves the API until `shutdown` completes.
pub async fn start(
    config: ControllerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<Running, ControllerStartError> {
    let policy = match &config.policy_file {
        None => Policy::kubernikus(),
        Some(path) => {
            let bad = |message: String| ControllerStartError::Policy {
                path: path.clone(),
                message,
            };
            let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
            Policy::from_json(&text).map_err(|e: PolicyError| bad(e.to_string()))?
        }
    };
    let store =
        Store::connect(&config.database)
            .await
            .map_err(|source| ControllerStartError::Store {
                db: config.database.to_string(),
                source,
            })?;
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|source| ControllerStartError::Bind {
            addr: config.listen,
            source,
        })?;
    let addr = listener
        .local_addr()
        .map_err(|source| ControllerStartError::Bind {
            addr: config.listen,
            source,
        })?;
    let mut settings = config.settings.clone();
    settings.stuck_after = config.tuning.timing.creation_timeout;
    if settings.public_url.is_empty() {
        settings.public_url = format!("http://{addr}");
    }
    let keystone = keystone::Client::new(&config.keystone_url)?;
    let shutdown = Shutdown::new(shutdown);
    let built =
        config
            .cloud
            .build(config.tuning.sim, &store)
            .map_err(|e| ControllerStartError::Cloud {
                message: e.to_string(),
            })?;
    let simulator = built.simulator;
    if let (Database::Sqlite(path), Some(simulator)) = (&config.database, &simulator) {
        // Older versions kept the simulated cloud in a side file next to the database.
        simulator
            .import_file(&path.with_extension("cloud.json"))
            .await
            .map_err(|message| ControllerStartError::Cloud { message })?;
    }
    if !matches!(config.cloud, crate::cloud::choice::CloudChoice::Simulated) {
        tokio::spawn(crate::cloud::choice::check_at_start(built.cloud.clone()));
    }
    let metrics = Arc::new(crate::metrics::Metrics::new());
    let cloud: Arc<dyn crate::cloud::Cloud> = Arc::new(crate::cloud::metered::MeteredCloud::new(
        built.cloud,
        metrics.clone(),
    ));
    let state = ApiState {
        store,
        validator: Arc::new(TokenValidator::new(
            keystone,
            config.service.clone(),
            config.token_cache,
        )),
        policy: Arc::new(policy),
        settings: Arc::new(settings),
        sealer: Arc::new(Sealer::new(&config.ca_key.0)),
        cloud,
        simulator: simulator.clone(),
        stop: shutdown.clone(),
        metrics: metrics.clone(),
    };
    tracing::info!(%addr, db = %config.database, cloud = config.cloud.name(), "controller listening");
    let mut tuning = config.tuning;
    if let Some(t) = config.cloud.call_timeout() {
        // A real cloud answers at its own speed, not at the simulated phases' pace.
        tuning.call_timeout = tuning.call_timeout.max(t);
        tuning.project_budget = tuning
            .project_budget
            .max(crate::reconcile::default_budget(t));
    }
    let notices = Arc::new(crate::notices::Notices::default());
    if let Some(bus) = config.cloud.notifications() {
        tokio::spawn(crate::notices::reader::run(
            bus.clone(),
            notices.clone(),
            metrics.clone(),
            shutdown.signal(),
        ));
    }
    let reconciler = crate::reconcile::Reconciler {
        store: state.store.clone(),
        cloud: state.cloud.clone(),
        timing: tuning.timing,
        call_timeout: tuning.call_timeout,
        concurrency: tuning.reconcile_concurrency,
        project_budget: tuning.project_budget,
        lease_ttl: config.tuning.lease_ttl,
        resync_every: Some(config.tuning.resync_every),
        lease: Arc::default(),
        metrics,
        sealer: state.sealer.clone(),
        early_deletes: Arc::default(),
        departing: Arc::default(),
        told: Arc::default(),
        listings: Arc::default(),
        full_listing_every: config.tuning.full_listing_every,
        notices: notices.clone(),
    };
    let reconciling =
        tokio::spawn(reconciler.run(config.tuning.reconcile_every, shutdown.signal()));
    tokio::spawn(prune_events(
        state.store.clone(),
        config.tuning.event_retention,
        shutdown.signal(),
    ));
    let (store, cloud) = (state.store.clone(), state.cloud.clone());
    let app = router(state);
    let api = app.clone();
    let task = tokio::spawn(async move {
        // TCP_NODELAY: no answer waits for the client's delayed ACK (about 40 ms).
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let served = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown.signal())
        .await;
        let _ = reconciling.await;
        served
    });
    Ok(Running {
        addr,
        router: api,
        task,
        store,
        cloud,
        simulator,
    })
}
