//! Every request gets an id and a span: a valid incoming `X-Request-Id` is kept (else a new
//! one is made), answered in the response's `X-Request-Id`, and put into the request as
//! [`RequestMeta`] so that every controller call made for it carries the same id (and the
//! browser's address). The `request` span carries request id, method and route; user,
//! project and kluster are recorded into it once known, and every line logged while the
//! request is served (the access line included) is inside it.

use app::ssr::{ClientAddr, RequestMeta};
use axum::{extract::Request, http::HeaderValue, middleware::Next, response::Response};
pub use serving::request::REQUEST_ID;
use serving::request::{kluster_of, request_id};
use tracing::Instrument;

/// Middleware: request id in and out, the request's span, [`RequestMeta`].
pub async fn tag(mut req: Request, next: Next) -> Response {
    let id = request_id(req.headers());
    let route = serving::metrics::route_of(&req);
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        route,
        user = tracing::field::Empty,
        project = tracing::field::Empty,
        kluster = tracing::field::Empty,
    );
    if let Some(k) = kluster_of(&route, req.uri().path()) {
        span.record("kluster", k);
    }
    let client = req.extensions().get::<ClientAddr>().map(|c| c.0);
    req.extensions_mut().insert(RequestMeta {
        id: id.clone(),
        client,
        span: span.clone(),
        caller_recorded: Default::default(),
    });
    let mut res = next.run(req).instrument(span).await;
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID.clone(), v);
    }
    res
}
