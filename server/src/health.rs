//! Liveness, readiness, and the watchers behind readiness (Keystone and the controller).

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::{http::StatusCode, response::IntoResponse};

/// Whether the services the dashboard depends on answered their last probe.
#[derive(Debug, Default)]
pub struct Readiness {
    /// Keystone answers `GET /v3`.
    pub keystone: AtomicBool,
    /// The controller's `GET /readyz` answers 200 (a Kubernikus without it, 404: its
    /// `GET /info` answers).
    pub controller: AtomicBool,
    /// The session store is usable (PostgreSQL: reachable and migrated).
    pub store: AtomicBool,
    /// Why the controller's last probe failed (its `/readyz` line, e.g. which catalog entry
    /// of the cloud is missing); empty while it answers.
    pub controller_why: std::sync::Mutex<String>,
}

/// Starts the watchers of Keystone and the controller behind `/readyz`.
pub fn watch_dependencies(
    keystone: &keystone::Client,
    controller_url: Option<&str>,
    ready: &Arc<Readiness>,
) -> Result<(), crate::StartError> {
    let ks = keystone.clone();
    let url = ks.base_url().to_string();
    let probe = move || {
        let ks = ks.clone();
        async move { ks.probe().await.map_err(|e| e.to_string()) }
    };
    tokio::spawn(watch(
        "Keystone",
        url,
        ready.clone(),
        |r| &r.keystone,
        probe,
    ));
    let Some(controller_url) = controller_url else {
        // Regions from the catalog: no one controller to wait for; each region's page says
        // when its controller does not answer.
        ready.controller.store(true, Ordering::Relaxed);
        return Ok(());
    };
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .map_err(|e| crate::StartError::Http(e.to_string()))?;
    let base = controller_url.to_string();
    let probe = move || {
        let (http, base) = (http.clone(), base.clone());
        async move { probe_controller(&http, &base).await }
    };
    tokio::spawn(watch(
        "the controller",
        controller_url.to_string(),
        ready.clone(),
        |r| &r.controller,
        probe,
    ));
    Ok(())
}

/// The controller's readiness: its `/readyz` (store and Keystone); a real Kubernikus has
/// none (404), so then its `/info`. `Err` says why it is not ready.
pub async fn probe_controller(http: &reqwest::Client, base: &str) -> Result<(), String> {
    let r = http
        .get(format!("{base}/readyz"))
        .send()
        .await
        .map_err(|e| e.without_url().to_string())?;
    let status = r.status();
    if status.is_success() {
        return Ok(());
    }
    if status == reqwest::StatusCode::NOT_FOUND {
        let info = http
            .get(format!("{base}/info"))
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        return info
            .error_for_status()
            .map(drop)
            .map_err(|e| e.without_url().to_string());
    }
    let why = r.text().await.unwrap_or_default();
    Err(format!(
        "/readyz answered {}: {}",
        status.as_u16(),
        why.chars().take(500).collect::<String>()
    ))
}

/// Probes a dependency until the process ends: with backoff (0.25 s doubling to 10 s)
/// while it is down, every 10 s while it is up. Logs once per state change, not per attempt.
pub async fn watch<F, Fut>(
    name: &'static str,
    url: String,
    flag: Arc<Readiness>,
    pick: fn(&Readiness) -> &AtomicBool,
    probe: F,
) where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    let mut backoff = Duration::from_millis(250);
    let mut last: Option<bool> = None;
    tracing::info!(%url, "waiting for {name}");
    loop {
        let result = probe().await;
        let up = result.is_ok();
        pick(&flag).store(up, Ordering::Relaxed);
        if std::ptr::eq(pick(&flag), &flag.controller) {
            let why = result.as_ref().err().cloned().unwrap_or_default();
            *flag
                .controller_why
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = why;
        }
        if last != Some(up) {
            match &result {
                Ok(()) => tracing::info!(%url, "{name} is reachable"),
                Err(e) => {
                    tracing::warn!(%url, error = %e, "{name} is unreachable; retrying with backoff")
                }
            }
            last = Some(up);
        }
        let pause = if up {
            backoff = Duration::from_millis(250);
            Duration::from_secs(10)
        } else {
            let p = backoff;
            backoff = (backoff * 2).min(Duration::from_secs(10));
            p
        };
        tokio::time::sleep(pause).await;
    }
}

/// `GET /healthz`: the process is alive.
pub async fn healthz() -> impl IntoResponse {
    "ok"
}

/// `GET /readyz`: 200 when Keystone, the controller and the session store answer, else 503
/// naming what is down.
pub async fn readyz(r: Arc<Readiness>) -> impl IntoResponse {
    let mut down = Vec::new();
    if !r.keystone.load(Ordering::Relaxed) {
        down.push("Keystone is unreachable".to_string());
    }
    if !r.controller.load(Ordering::Relaxed) {
        let why = r
            .controller_why
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        down.push(
            match why.strip_prefix("/readyz answered 503: not ready: ") {
                // The controller answers but is not ready: say why (one line, its own words).
                Some(why) => format!("the controller is not ready: {}", why.trim()),
                None => "the controller is unreachable".to_string(),
            },
        );
    }
    if !r.store.load(Ordering::Relaxed) {
        down.push("the session store is unreachable".to_string());
    }
    if down.is_empty() {
        (StatusCode::OK, "ready".to_string())
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {}", down.join("; ")),
        )
    }
}
