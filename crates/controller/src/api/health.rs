//! `GET /healthz` (the process answers) and `GET /readyz` (its database, Keystone and
//! cloud answer: 200, else 503 naming what is down), for load balancers and Kubernetes probes;
//! `GET /metrics` (Prometheus text format, aggregates only: no tenant is named).

use axum::{extract::State, http::StatusCode};

use super::ApiState;

/// `GET /metrics`: the controller's metrics; the store-derived gauges are read now.
pub async fn metrics(State(st): State<ApiState>) -> axum::response::Response {
    st.metrics.refresh(&st.store).await;
    crate::metrics::exposition(st.metrics.render())
}

/// `GET /healthz`: alive.
pub async fn healthz() -> &'static str {
    "ok"
}

/// `GET /readyz`: 200 "ready" when the database (reached and migrated), Keystone and the
/// cloud ([`crate::cloud::Cloud::check`]: a real one signs in and finds its services in
/// the catalog) answer within two seconds each; 503 "not ready: …" otherwise.
pub async fn readyz(State(st): State<ApiState>) -> (StatusCode, String) {
    let limit = std::time::Duration::from_secs(2);
    let (db, ks, cloud) = tokio::join!(
        tokio::time::timeout(limit, st.store.ping()),
        tokio::time::timeout(limit, st.validator.keystone_reachable()),
        tokio::time::timeout(limit, st.cloud.check()),
    );
    let mut down = Vec::new();
    if !matches!(db, Ok(Ok(()))) {
        down.push("the database is unreachable".to_string());
    }
    if !matches!(ks, Ok(Ok(()))) {
        down.push("Keystone is unreachable".to_string());
    }
    match cloud {
        Ok(Ok(())) => {}
        Ok(Err(e)) => down.push(format!("the cloud: {e}")),
        Err(_) => down.push("the cloud did not answer within 2 seconds".to_string()),
    }
    if down.is_empty() {
        (StatusCode::OK, "ready".into())
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {}", down.join("; ")),
        )
    }
}
