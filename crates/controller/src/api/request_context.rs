//! What every response gets: an `X-Request-Id` (the client's, or a new one), a `request`
//! tracing span (request id, route, user, project, kluster) around its handling, and one
//! access log line with method, path, status, duration, user id, project id and request id.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use axum::{extract::Request, http::HeaderValue, middleware::Next, response::Response};

use serving::request::{is_probe, kluster_of, request_id, REQUEST_ID};
use tracing::Instrument;

/// The request's id, in its extensions (for audit records).
#[derive(Clone, Debug)]
pub struct RequestId(pub String);

/// Filled with (user id, project id) once a request is authenticated (the access log
/// reads it).
#[derive(Clone, Debug, Default)]
pub struct CallerSlot(pub Arc<OnceLock<(String, String)>>);

/// The request's tracing span, in its extensions: the caller's user and project are
/// recorded into it once known.
#[derive(Clone, Debug)]
pub struct RequestSpan(pub tracing::Span);

/// Middleware: request id in and out, caller slot, access log.
pub async fn request_context(mut req: Request, next: Next) -> Response {
    let start = Instant::now();
    let id = request_id(req.headers());
    let slot = CallerSlot::default();
    req.extensions_mut().insert(slot.clone());
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let route = crate::metrics::route_of(&req);
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        %method,
        route,
        user = tracing::field::Empty,
        project = tracing::field::Empty,
        kluster = tracing::field::Empty,
    );
    if let Some(k) = kluster_of(&route, &path) {
        span.record("kluster", k);
    }
    req.extensions_mut().insert(RequestId(id.clone()));
    req.extensions_mut().insert(RequestSpan(span.clone()));
    let mut res = next.run(req).instrument(span.clone()).await;
    let _entered = span.enter();
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID.clone(), v);
    }
    let (user, project) = slot.0.get().cloned().unwrap_or_default();
    // Health probes and scrapes every few seconds would drown the log at info.
    macro_rules! access {
        ($level:ident) => {
            tracing::$level!(
                target: "controller::access",
                %method,
                path,
                status = res.status().as_u16(),
                ms = start.elapsed().as_secs_f64() * 1e3,
                user,
                project,
                request_id = id,
            )
        };
    }
    if is_probe(&path) {
        access!(debug);
    } else {
        access!(info);
    }
    res
}
