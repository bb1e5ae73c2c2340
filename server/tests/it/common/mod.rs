//! Shared helpers of the server's integration tests: an in-process server pointed at the
//! real local Keystone (`MC_TEST_KEYSTONE_URL`, started by scripts/test).

pub mod clients;
pub mod cluster;
pub mod proxy;
pub mod scenarios;
pub mod stream;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use reqwest::{header, Client, Response};
use server::config::Settings;

/// Origin the test servers are configured with and the test client claims.
pub const ORIGIN: &str = "http://mc.test";

/// The Keystone under test; fails loudly when the suite is run without one.
pub fn keystone_url() -> String {
    std::env::var("MC_TEST_KEYSTONE_URL").expect(
        "MC_TEST_KEYSTONE_URL is not set: run the suite with scripts/test, which starts a local Keystone",
    )
}

/// Serves `app` on a free loopback port (a stand-in upstream); its base URL.
pub async fn serve_router(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

/// A server running in this process, stopped when dropped.
pub struct TestServer {
    /// e.g. http://127.0.0.1:41234
    pub base: String,
    /// Its data dir (session and controller databases).
    pub data_dir: PathBuf,
    /// The controller it talks to (the embedded one on loopback).
    pub controller_url: String,
    /// Its clock (manual: tests move it instead of sleeping).
    pub clock: app::ssr::Clock,
    /// Dropping it stops the server.
    pub _stop: tokio::sync::oneshot::Sender<()>,
}

/// Starts a server with the given settings over sensible test defaults.
pub async fn spawn(tweak: impl FnOnce(&mut Settings)) -> TestServer {
    static N: AtomicUsize = AtomicUsize::new(0);
    let data_dir = std::env::temp_dir().join(format!(
        "mc-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&data_dir);
    let mut s = Settings {
        site_addr: Some("127.0.0.1:0".parse().unwrap()),
        public_origin: Some(ORIGIN.into()),
        keystone_url: Some(keystone_url()),
        data_dir: Some(data_dir.clone()),
        token_recheck_secs: Some(0),
        controller: server::config::ControllerSettings {
            controller_service_password: Some("mission-control-secret".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    tweak(&mut s);
    let mut config = server::Config::resolve(s).expect("test config");
    config.clock = app::ssr::Clock::manual();
    let clock = config.clock.clone();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let running = server::start(config, async {
        let _ = rx.await;
    })
    .await
    .expect("server starts");
    TestServer {
        base: format!("http://{}", running.addr),
        controller_url: running.controller_url,
        data_dir,
        clock,
        _stop: tx,
    }
}

/// A browser-like client: keeps cookies, does not follow redirects.
pub fn browser() -> Client {
    Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Calls a server function the way the hydrated app does (JSON answer).
pub async fn call(c: &Client, srv: &TestServer, name: &str, form: &[(&str, &str)]) -> Response {
    c.post(format!("{}/api/{name}", srv.base))
        .header("sec-fetch-site", "same-origin")
        .header(header::ACCEPT, "application/json")
        .form(form)
        .send()
        .await
        .unwrap()
}

/// Posts a form the way a browser without JavaScript does (HTML answer expected).
pub async fn post_form(
    c: &Client,
    srv: &TestServer,
    name: &str,
    form: &[(&str, &str)],
) -> Response {
    c.post(format!("{}/api/{name}", srv.base))
        .header(header::ORIGIN, ORIGIN)
        .header(header::ACCEPT, "text/html,application/xhtml+xml")
        .header(header::REFERER, format!("{}/login", srv.base))
        .form(form)
        .send()
        .await
        .unwrap()
}

/// Signs in and asserts success.
pub async fn login(c: &Client, srv: &TestServer, user: &str, project: &str) {
    let password = format!("{user}-secret");
    let r = call(
        c,
        srv,
        "login",
        &[
            ("user_name", user),
            ("password", &password),
            ("user_domain", "demo"),
            ("project", project),
        ],
    )
    .await;
    assert_eq!(
        r.status(),
        200,
        "login of {user}: {}",
        r.text().await.unwrap_or_default()
    );
}

/// GETs a page and returns (status, Location header, body).
pub async fn page(c: &Client, srv: &TestServer, path: &str) -> (u16, Option<String>, String) {
    let r = c
        .get(format!("{}{path}", srv.base))
        .header(header::ACCEPT, "text/html")
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let loc = r
        .headers()
        .get(header::LOCATION)
        .map(|v| v.to_str().unwrap().to_string());
    (status, loc, r.text().await.unwrap())
}

/// The raw rows of the server's session database (what a thief of the file would read).
pub async fn raw_sessions(srv: &TestServer) -> Vec<(String, Vec<u8>)> {
    use sqlx::{sqlite::SqliteConnectOptions, ConnectOptions, Row};
    let mut conn = SqliteConnectOptions::new()
        .filename(srv.data_dir.join("sessions.db"))
        .connect()
        .await
        .unwrap();
    sqlx::query("SELECT id, data FROM tower_sessions")
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

/// The fernet tokens ("gAAAAA…") in `text`.
pub fn fernet_tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("gAAAAA") {
        let tok: String = rest[i..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_' || *c == '=')
            .collect();
        rest = &rest[i + tok.len()..];
        tokens.push(tok);
    }
    tokens
}

/// The Keystone tokens held in the server's sessions, opened with the server's own
/// sealing key (`data_dir/session.key`) through the public session store API.
pub async fn stored_tokens(srv: &TestServer) -> Vec<String> {
    use tower_sessions::SessionStore;
    let key = serving::seal::load_or_create_key(&srv.data_dir.join("session.key")).unwrap();
    let pool = sqlx::SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new().filename(srv.data_dir.join("sessions.db")),
    )
    .await
    .unwrap();
    let store = server::sessions::SealedStore::new(
        tower_sessions_sqlx_store::SqliteStore::new(pool),
        std::sync::Arc::new(serving::seal::Sealer::new(&key.0)),
    );
    let mut tokens = Vec::new();
    for (id, _) in raw_sessions(srv).await {
        let id: tower_sessions::session::Id = id.parse().unwrap();
        if let Some(record) = store.load(&id).await.unwrap() {
            tokens.extend(fernet_tokens(&serde_json::to_string(&record.data).unwrap()));
        }
    }
    tokens
}

/// The Keystone client used to check tokens from the outside.
pub fn keystone() -> keystone::Client {
    keystone::Client::new(&keystone_url()).unwrap()
}

/// A project-scoped token of a demo user (password `<user>-secret`, domain `demo`).
pub async fn user_token(user: &str, project: &str) -> keystone::TokenSecret {
    password_token(user, &format!("{user}-secret"), "demo", project).await
}

/// A token of the service user (role `service`), which may validate other users' tokens.
pub async fn service_token() -> keystone::TokenSecret {
    password_token(
        "mission-control",
        "mission-control-secret",
        "Default",
        "service",
    )
    .await
}

async fn password_token(
    user: &str,
    password: &str,
    domain: &str,
    project: &str,
) -> keystone::TokenSecret {
    let auth = keystone::PasswordAuth {
        user_name: user,
        password,
        user_domain: domain,
        project: keystone::ProjectRef::Name {
            name: project,
            domain,
        },
    };
    keystone()
        .password_auth(&auth)
        .await
        .expect("demo user signs in")
        .secret
}

/// Creates a kluster (JSON `body`) in project demo as `user`, through the controller's API.
pub async fn create_kluster(srv: &TestServer, user: &str, body: &str) {
    let token = user_token(user, "demo").await;
    let r = reqwest::Client::new()
        .post(format!("{}/api/v1/clusters", srv.controller_url))
        .header("x-auth-token", token.expose())
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        201,
        "create: {}",
        r.text().await.unwrap_or_default()
    );
}

/// Reads an error answer of a server function as the [`app::error::AppError`] it carries.
pub fn app_error(body: &str) -> app::error::AppError {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not an AppError ({e}): {body}"))
}
