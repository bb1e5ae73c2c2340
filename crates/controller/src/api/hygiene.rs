//! What every response gets: an `X-Request-Id` (the client's, or a new one) and one access
//! log line with method, path, status, duration, user id, project id and request id.

use std::time::Instant;

use axum::{
    extract::Request,
    http::{HeaderName, HeaderValue},
    middleware::Next,
    response::Response,
};

use super::caller::CallerSlot;

/// The request id header.
pub static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// A new random request id (128 bits, hex).
fn new_request_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    // Two independently seeded SipHashes: unique enough for correlation, no extra crate.
    let a = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Instant::now().elapsed().as_nanos());
    format!("{a:016x}{:016x}", h.finish())
}

/// Middleware: request id in and out, caller slot, access log.
pub async fn request_context(mut req: Request, next: Next) -> Response {
    let start = Instant::now();
    let id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
        .unwrap_or_else(new_request_id);
    let slot = CallerSlot::default();
    req.extensions_mut().insert(slot.clone());
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let mut res = next.run(req).await;
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID.clone(), v);
    }
    let (user, project) = slot.0.get().cloned().unwrap_or_default();
    tracing::info!(
        target: "controller::access",
        %method,
        path,
        status = res.status().as_u16(),
        ms = start.elapsed().as_secs_f64() * 1e3,
        user,
        project,
        request_id = id,
    );
    res
}
