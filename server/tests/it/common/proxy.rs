//! A forwarding proxy for tests that stands in front of a real upstream (the controller,
//! Keystone) and lets a test see, count or refuse requests: each request is shown to a hook
//! first, which may answer it itself; otherwise it goes upstream (headers but `host` and
//! `content-length`, the body up to 1 MB) and the answer streams back (status and headers but
//! the hop-by-hop ones), so event streams pass through as they come.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};

/// What the hook is shown of a request.
pub struct Seen<'a> {
    /// Its method.
    pub method: &'a Method,
    /// Its path and query, e.g. `/api/v1/events/stream?after=3`.
    pub path: &'a str,
    /// Its headers.
    pub headers: &'a HeaderMap,
}

impl Seen<'_> {
    /// The header `name` as text ("" when absent).
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }
}

/// Sees each request first; `Some` answers it instead of the upstream.
pub type Hook = Arc<dyn Fn(&Seen) -> Option<Response> + Send + Sync>;

/// An answer of `status` with a JSON `body` (for hooks).
pub fn answer(status: u16, body: &'static str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, [("content-type", "application/json")], body).into_response()
}

/// Starts a proxy to `upstream` (its base URL; the request's path is appended) and returns
/// the proxy's base URL.
pub async fn start(upstream: &str, hook: Hook) -> String {
    let state = (
        reqwest::Client::new(),
        upstream.trim_end_matches('/').to_string(),
        hook,
    );
    super::serve_router(axum::Router::new().fallback(forward).with_state(state)).await
}

async fn forward(
    State((http, upstream, hook)): State<(reqwest::Client, String, Hook)>,
    req: Request<Body>,
) -> Response {
    let path = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    let seen = Seen {
        method: req.method(),
        path: &path,
        headers: req.headers(),
    };
    if let Some(answer) = hook(&seen) {
        return answer;
    }
    let mut out = http.request(req.method().clone(), format!("{upstream}{path}"));
    for (name, value) in req.headers() {
        if name != "host" && name != "content-length" {
            out = out.header(name.clone(), value.clone());
        }
    }
    let body = axum::body::to_bytes(req.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    let r = match out.body(body).send().await {
        Ok(r) => r,
        Err(e) => return (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    };
    let status = StatusCode::from_u16(r.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let mut headers = HeaderMap::new();
    for (name, value) in r.headers() {
        if !matches!(
            name.as_str(),
            "content-length" | "transfer-encoding" | "connection" | "keep-alive"
        ) {
            headers.append(name.clone(), value.clone());
        }
    }
    let chunks = futures_util::stream::unfold(r, |mut r| async move {
        match r.chunk().await {
            Ok(Some(c)) => Some((Ok::<_, std::io::Error>(c), r)),
            _ => None,
        }
    });
    (status, headers, Body::from_stream(chunks)).into_response()
}
