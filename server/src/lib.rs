//! Mission Control's server: builds the axum app (SSR, server functions, sessions, CSRF
//! guard, health) from a [`Config`] and serves it.

pub mod access_log;
pub mod assets;
pub mod client_ip;
pub mod config;
pub mod csrf;
#[cfg(feature = "embedded-controller")]
mod embedded;
pub mod headers;
pub mod health;
pub mod in_process;
pub mod kubeconfig;
pub mod kubeconfig_cli;
pub mod live;
pub mod metrics;
pub mod postgres;
pub mod regions;
pub mod request_id;
pub mod session_cache;
pub mod sessions;
pub mod stores;
pub mod theme;

use std::net::SocketAddr;
use std::sync::Arc;

/// The process's allocator, for the server and everything built on this crate (its
/// binary, tests and benchmarks): mimalloc. A page or a server function allocates
/// thousands of small values (rendered HTML, decoded and encoded JSON) on tokio's worker
/// threads; glibc's malloc took about a fifth of the CPU of `benches/list_render`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use app::app::{shell, App};
use app::ssr::AppState;
use axum::{
    body::Body,
    extract::{FromRef, State},
    http::{header, Request, StatusCode, Uri},
    response::IntoResponse,
    routing::{any, get, post},
    Router,
};
use leptos::prelude::*;
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
use tower_sessions::{cookie::SameSite, Expiry, SessionManagerLayer, SessionStore};

pub use config::{Config, SessionStoreKind};
use health::Readiness;
pub use metrics::{MergeOps, Ops};

/// Axum state: Leptos options for rendering and the server functions' state, behind one
/// `Arc`: axum clones the state of the handler it routes every request to (cloned whole,
/// both took about a twentieth of a server function's time in the dashboard).
#[derive(Clone)]
pub struct ServerState(Arc<SharedState>);

/// What a [`ServerState`] holds.
struct SharedState {
    /// Leptos site options.
    leptos: LeptosOptions,
    /// Shared state for server functions.
    app: AppState,
}

impl ServerState {
    /// `leptos` and `app` as axum's state.
    pub fn new(leptos: LeptosOptions, app: AppState) -> Self {
        Self(Arc::new(SharedState { leptos, app }))
    }
}

impl FromRef<ServerState> for LeptosOptions {
    fn from_ref(s: &ServerState) -> Self {
        s.0.leptos.clone()
    }
}

impl FromRef<ServerState> for AppState {
    fn from_ref(s: &ServerState) -> Self {
        s.0.app.clone()
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The Keystone URL is unusable.
    #[error("keystone_url: {0}")]
    Keystone(#[from] keystone::Error),
    /// The session database (or the data directory) could not be opened.
    #[error("session store: {0}")]
    Store(String),
    /// The key that seals sessions is unusable.
    #[error("session key: {0}")]
    SessionKey(String),
    /// The HTTP client for the controller could not be built.
    #[error("HTTP client: {0}")]
    Http(String),
    /// The embedded controller could not start.
    #[cfg(feature = "embedded-controller")]
    #[error("embedded controller: {0}")]
    Controller(#[from] controller::run::ControllerStartError),
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// A running server.
pub struct Running {
    /// The address it listens on (useful with port 0).
    pub addr: SocketAddr,
    /// The controller the dashboard talks to (the embedded one's loopback URL, or the
    /// configured remote one).
    pub controller_url: String,
    /// Completes when the server stops.
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Builds the app for `config` and starts serving it; returns once the port is bound.
/// The server stops when `shutdown` completes.
pub async fn start(
    config: Config,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<Running, StartError> {
    let metrics = metrics::DashboardMetrics::new(
        leptos::server_fn::axum::server_fn_paths()
            .map(|(path, _)| path.to_string())
            .collect(),
    );
    let keystone = keystone::Client::with_options(&config.keystone_url, &config.keystone_options)?
        .with_observer(metrics.keystone_observer());
    let private = |e: std::io::Error| {
        StartError::Store(format!("data_dir {}: {e}", config.data_dir.display()))
    };
    sessions::private_dir(&config.data_dir).map_err(private)?;
    // One shutdown signal for the dashboard and the embedded controller.
    let shutdown = serving::shutdown::Shutdown::new(shutdown);
    // The embedded controller answers the dashboard's calls in-process (its listener stays
    // for health checks, tools and other replicas).
    // With regions from the catalog, each session's region names its controller; the base
    // client's URL is only a name in logs and is never called.
    let regional =
        (config.controller_url == config::CATALOG).then(|| config.controller_interface.clone());
    let remote = match regional {
        Some(_) => "http://catalog.invalid".to_string(),
        None => config.controller_url.trim_end_matches('/').to_string(),
    };
    #[cfg(feature = "embedded-controller")]
    let (controller_url, in_process) = match &config.embedded {
        Some(embedded) => {
            let (url, local) = embedded::start(&config, embedded, &shutdown).await?;
            (url, Some(local))
        }
        None => (remote, None),
    };
    #[cfg(not(feature = "embedded-controller"))]
    let (controller_url, in_process) = (remote, None::<in_process::InProcess>);
    let mut controller =
        app::ssr::ControllerClient::new(&controller_url).map_err(StartError::Http)?;
    if let Some(local) = in_process {
        controller = controller.with_local(Arc::new(local));
    }
    let ready = Arc::new(Readiness::default());
    let watched = regional.is_none().then_some(controller_url.as_str());
    health::watch_dependencies(&keystone, watched, &ready)?;
    let (sessions, limiter, session_count) = stores::open(&config, &ready).await?;
    let state = AppState::new(
        app::ssr::AppShared {
            keystone,
            limiter,
            session_max_lifetime: config.session_max_lifetime,
            revalidate_after: config.token_recheck,
            token_checks: Default::default(),
            project_lists: Default::default(),
            clock: config.clock.clone(),
            regional,
        },
        controller.with_observer(metrics.controller_observer()),
    );
    let hub = live::Hubs::new(
        state.base_controller().clone(),
        config.live_streams_per_user,
        config.live_poll,
        shutdown.clone(),
    );
    let ops = Ops {
        metrics,
        sessions: session_count,
        hub: hub.clone(),
    };
    let router = match sessions {
        stores::Sessions::Memory(s) => router(&config, state, ready, hub, s).merge_ops(ops),
        stores::Sessions::Sqlite(s) => router(&config, state, ready, hub, s).merge_ops(ops),
        stores::Sessions::Postgres(s) => router(&config, state, ready, hub, s).merge_ops(ops),
    };
    let listener = tokio::net::TcpListener::bind(config.site_addr)
        .await
        .map_err(|source| StartError::Bind {
            addr: config.site_addr,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| StartError::Bind {
        addr: config.site_addr,
        source,
    })?;
    tracing::info!(%addr, public_origin = config.public_origin, controller = controller_url, "Mission Control listening");
    // Without TCP_NODELAY an answer's last small segment can wait for the client's delayed
    // ACK (about 40 ms on Linux): measured on the list page and on static files alike.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let task = tokio::spawn(async move {
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown.signal())
        .await
    });
    Ok(Running {
        addr,
        controller_url,
        task,
    })
}

/// The app's routes, worked out once per process. Working them out renders the app with
/// resource loading switched off by a process-wide flag (leptos_server's
/// `SuppressResourceLoad`), so a page rendering meanwhile on another thread (a second
/// server starting in the same process: the test suite) would wait forever for a resource
/// first polled in that window (leptos issue #4773).
pub fn route_list() -> Vec<AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<AxumRouteListing>> = std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

/// The whole app: health, pages, server functions, static files (`/pkg`: see [`assets`],
/// the rest through Leptos's file handler); sessions, body limit,
/// CSRF guard, compression, security headers, the access log and the client address
/// around them (outermost last). The live event stream has sessions but no compression
/// (it must not be buffered).
pub fn router<S: SessionStore + Clone>(
    config: &Config,
    app_state: AppState,
    ready: Arc<Readiness>,
    hub: Arc<live::Hubs>,
    store: S,
) -> Router {
    // The build's hashed asset names, when the site has them (see `assets`).
    let hash_file = assets::hash_file(&config.site_root, "pkg", "mission-control");
    let leptos = LeptosOptions::builder()
        .output_name("mission-control")
        .site_root(config.site_root.to_string_lossy().as_ref())
        .site_pkg_dir("pkg")
        .site_addr(config.site_addr)
        .hash_files(hash_file.is_some())
        .hash_file(
            hash_file
                .as_deref()
                .map_or("hash.txt".into(), |p| p.to_string_lossy().into()),
        )
        .build();
    let state = ServerState::new(leptos.clone(), app_state.clone());
    let routes = route_list();
    let sessions = SessionManagerLayer::new(store)
        .with_name(if config.https {
            "__Host-mc_session"
        } else {
            "mc_session"
        })
        .with_secure(config.https)
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_path("/")
        .with_expiry(Expiry::OnInactivity(
            time::Duration::try_from(config.session_idle).unwrap_or(time::Duration::HOUR),
        ));
    let origin: Arc<str> = config.public_origin.as_str().into();
    Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(move || health::readyz(ready.clone())))
        .route("/api/{*fn_name}", any(unknown_api))
        .route("/klusters/{name}/kubeconfig", get(kubeconfig::download))
        .route("/theme", {
            let https = config.https;
            post(move |form| theme::set(https, form))
        })
        .nest_service(
            "/pkg",
            assets::pkg_service(&config.site_root, "pkg", hash_file.is_some()),
        )
        .leptos_routes_with_context(
            &state,
            routes,
            {
                let app_state = app_state.clone();
                move || {
                    provide_context(app_state.clone());
                    app::ssr::provide_request_nonce();
                }
            },
            {
                let leptos = leptos.clone();
                move || shell(leptos.clone())
            },
        )
        .fallback({
            // Static files first, by our own service (see `assets::site_file`), then
            // Leptos's handler, which then only renders the 404 page.
            let not_found = leptos_axum::file_and_error_handler_with_context::<ServerState, _>(
                app::ssr::provide_request_nonce,
                shell,
            );
            let site_root = config.site_root.clone();
            move |uri: Uri, state: State<ServerState>, req: Request<Body>| {
                let (not_found, site_root) = (not_found.clone(), site_root.clone());
                async move {
                    let (parts, body) = req.into_parts();
                    match assets::site_file(&site_root, &parts).await {
                        Some(file) => file,
                        None => not_found(uri, state, Request::from_parts(parts, body)).await,
                    }
                }
            }
        })
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(
            app_state.clone(),
            regions::follow_url,
        ))
        .layer(sessions.clone())
        .layer(axum::middleware::from_fn(headers::limit_body))
        .layer(axum::middleware::from_fn_with_state(origin, csrf::guard))
        .layer(tower_http::compression::CompressionLayer::new())
        .merge(
            Router::new()
                .route("/events/stream", get(live::stream))
                .with_state(live::LiveState {
                    hubs: hub,
                    app: app_state.clone(),
                })
                .layer(sessions),
        )
        .layer(axum::middleware::from_fn_with_state(
            headers::HeaderPolicy {
                https: config.https,
            },
            headers::secure,
        ))
        .layer(axum::middleware::from_fn(access_log::log))
        .layer(axum::middleware::from_fn(request_id::tag))
        .layer(axum::middleware::from_fn_with_state(
            config.trusted_proxies.clone(),
            client_ip::resolve,
        ))
}

/// Answers a call under `/api/` that no server function serves (each function has its own
/// route, registered by `leptos_routes_with_context`): a 404 in words, most likely from a page
/// loaded before this version of the dashboard was deployed.
async fn unknown_api(req: Request<Body>) -> impl IntoResponse {
    let name = req.uri().path().trim_start_matches("/api/");
    let name: String = name.chars().take(80).filter(|c| !c.is_control()).collect();
    (
        StatusCode::NOT_FOUND,
        [(header::CACHE_CONTROL, "no-store")],
        format!(
            "The dashboard has no function called {name:?}. The page that asked may be from \
             an older version of Mission Control: reload it and try again.\n"
        ),
    )
}
