//! Response headers every answer gets (no sniffing, no framing, no caching of anything
//! personal, HSTS on https, a Content-Security-Policy), and the body limit of server
//! functions.

use axum::{
    body::Body,
    extract::{Request, State},
    http::{header, HeaderValue, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};

/// Largest request body (server functions; the create form is a few KB; nothing uploads).
pub const SERVER_FN_BODY_LIMIT: usize = 256 * 1024;

/// The policy of answers that are not pages (JSON, downloads, errors): nothing may run.
const CSP_NOT_A_PAGE: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/// What the security-header layer needs to know.
#[derive(Clone, Copy, Debug)]
pub struct HeaderPolicy {
    /// The public origin is https: send HSTS.
    pub https: bool,
}

/// Middleware: adds the security headers a response lacks. Pages carry their own
/// Content-Security-Policy with the render's script nonce (set by the app's shell); every
/// other answer gets one that allows nothing. Pages, server-function answers and the event
/// stream are `Cache-Control: no-store` unless they say otherwise.
pub async fn secure(State(policy): State<HeaderPolicy>, req: Request, next: Next) -> Response {
    let dynamic = {
        let p = req.uri().path();
        p.starts_with("/api/") || p.starts_with("/events/") || p.starts_with("/klusters/")
    };
    let mut res = next.run(req).await;
    let is_page = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let h = res.headers_mut();
    let set = |h: &mut axum::http::HeaderMap, name, value: &'static str| {
        if !h.contains_key(&name) {
            h.insert(name, HeaderValue::from_static(value));
        }
    };
    set(h, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(h, header::X_FRAME_OPTIONS, "DENY");
    set(h, header::REFERRER_POLICY, "same-origin");
    set(h, header::CONTENT_SECURITY_POLICY, CSP_NOT_A_PAGE);
    if is_page || dynamic {
        set(h, header::CACHE_CONTROL, "no-store");
    }
    if policy.https {
        set(h, header::STRICT_TRANSPORT_SECURITY, "max-age=63072000");
    }
    res
}

/// Middleware: a request body over [`SERVER_FN_BODY_LIMIT`] is refused with 413 and a
/// sentence, before anything reads it (server functions read whole bodies).
pub async fn limit_body(req: Request, next: Next) -> Response {
    let too_big = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "The request is too large: forms may send at most {} KB.",
                SERVER_FN_BODY_LIMIT / 1024
            ),
        )
            .into_response()
    };
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > SERVER_FN_BODY_LIMIT as u64) {
        return too_big();
    }
    let (parts, body) = req.into_parts();
    match axum::body::to_bytes(body, SERVER_FN_BODY_LIMIT).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(_) => too_big(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::{routing::post, Router};
    use tower::ServiceExt;

    #[tokio::test]
    async fn oversized_bodies_get_413_in_words_small_ones_pass() {
        let app = Router::new()
            .route(
                "/api/x",
                post(|b: String| async move { b.len().to_string() }),
            )
            .layer(axum::middleware::from_fn(limit_body));
        // No Content-Length: the limit must hold while reading.
        let send = |body: Vec<u8>, declared: Option<&'static str>| {
            let app = app.clone();
            async move {
                let body = Body::from_stream(futures_util::stream::iter(
                    body.chunks(64 * 1024)
                        .map(|c| Ok::<_, std::io::Error>(c.to_vec()))
                        .collect::<Vec<_>>(),
                ));
                let mut req = Request::post("/api/x");
                if let Some(n) = declared {
                    req = req.header(header::CONTENT_LENGTH, n);
                }
                let res = app.oneshot(req.body(body).unwrap()).await.unwrap();
                let status = res.status();
                let text = axum::body::to_bytes(res.into_body(), 1 << 20)
                    .await
                    .unwrap();
                (status, String::from_utf8_lossy(&text).into_owned())
            }
        };
        let (s, t) = send(vec![b'a'; 300 * 1024], None).await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(t.contains("at most 256 KB"), "{t}");
        let (s, _) = send(Vec::new(), Some("20000000")).await;
        assert_eq!(
            s,
            StatusCode::PAYLOAD_TOO_LARGE,
            "refused on the declared size"
        );
        let (s, t) = send(vec![b'a'; 1000], None).await;
        assert_eq!((s, t.as_str()), (StatusCode::OK, "1000"));
    }
}
