//! Liveness, readiness, and the Keystone watcher behind readiness.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::{http::StatusCode, response::IntoResponse};

/// Whether Keystone answered the last probe.
#[derive(Debug, Default)]
pub struct KeystoneHealth {
    up: AtomicBool,
}

impl KeystoneHealth {
    /// True when the last probe succeeded.
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }
}

/// Probes Keystone until the process ends: with backoff (0.25 s doubling to 10 s) while it
/// is down, every 10 s while it is up. Logs once per state change, not per attempt.
pub async fn watch_keystone(client: keystone::Client, health: Arc<KeystoneHealth>) {
    let mut backoff = Duration::from_millis(250);
    let mut last: Option<bool> = None;
    tracing::info!(url = %client.base_url(), "waiting for Keystone");
    loop {
        let result = client.probe().await;
        let up = result.is_ok();
        health.up.store(up, Ordering::Relaxed);
        if last != Some(up) {
            match &result {
                Ok(()) => tracing::info!(url = %client.base_url(), "Keystone is reachable"),
                Err(e) => {
                    tracing::warn!(url = %client.base_url(), error = %e, "Keystone is unreachable; retrying with backoff")
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

/// `GET /readyz`: 200 when Keystone is reachable, else 503 with the reason.
pub async fn readyz(health: Arc<KeystoneHealth>) -> impl IntoResponse {
    if health.is_up() {
        (StatusCode::OK, "ready")
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: Keystone is unreachable",
        )
    }
}
