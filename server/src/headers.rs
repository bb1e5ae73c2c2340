//! Response headers every answer gets (no sniffing, no framing, no caching of anything
//! personal, HSTS on https, a Content-Security-Policy), and the body limit of server
//! functions.
//!
//! A page's policy never depends on its render: the layer makes each request's script
//! nonce, hands it to the render through the request (the app makes it the render's nonce,
//! `app::ssr::provide_request_nonce`) and sets the page policy with that nonce on every
//! HTML answer itself. Before, an HTML answer whose render had not set its own policy got
//! the non-page one and arrived unstyled and dead (issue 33): Leptos's static-file handler
//! had taken the render's headers for a favicon (see `assets::site_file`).

use axum::{
    body::Body,
    extract::{Request, State},
    http::{header, HeaderValue, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use leptos::nonce::Nonce;

/// Largest request body (server functions; the create form is a few KB; nothing uploads).
pub const SERVER_FN_BODY_LIMIT: usize = 256 * 1024;

/// The policy of answers that are not pages (JSON, downloads, errors): nothing may run.
const CSP_NOT_A_PAGE: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/// How every page policy (`app::ssr::page_csp`) begins.
const PAGE_POLICY_START: &str = "default-src 'self';";

/// What the security-header layer needs to know.
#[derive(Clone, Copy, Debug)]
pub struct HeaderPolicy {
    /// The public origin is https: send HSTS.
    pub https: bool,
}

/// Middleware: adds the security headers a response lacks. Every HTML answer gets the page
/// policy with the nonce this layer made for the request (put into the request's
/// extensions as a [`Nonce`] for the render); a page whose render did not set that policy
/// itself is logged as an error (with its path; the request's span adds its id). Every
/// other answer gets a policy that allows nothing. Pages, server-function answers and the
/// event stream are `Cache-Control: no-store` unless they say otherwise.
pub async fn secure(State(policy): State<HeaderPolicy>, mut req: Request, next: Next) -> Response {
    let dynamic = {
        let p = req.uri().path();
        p.starts_with("/api/") || p.starts_with("/events/") || p.starts_with("/klusters/")
    };
    let nonce = Nonce::new();
    req.extensions_mut().insert(nonce.clone());
    let path = req.uri().path().to_owned();
    let mut res = next.run(req).await;
    let is_page = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let h = res.headers_mut();
    if is_page {
        give_page_policy(h, &nonce, &path);
    }
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

/// Sets the page policy of `nonce` on an HTML answer whose render did not set one, and logs
/// that as an error. A render that set the page policy with a nonce of its own (it did not
/// get this request's) keeps it, since its scripts carry that nonce; that is logged too.
fn give_page_policy(h: &mut axum::http::HeaderMap, nonce: &Nonce, path: &str) {
    let want = app::ssr::page_csp(nonce);
    match h.get(header::CONTENT_SECURITY_POLICY) {
        Some(v) if v.as_bytes() == want.as_bytes() => return,
        Some(v) if v.as_bytes().starts_with(PAGE_POLICY_START.as_bytes()) => {
            tracing::error!(
                path,
                "a page was rendered with a nonce of its own, not the request's; its policy kept"
            );
            return;
        }
        had => tracing::error!(
            path,
            had = had.map_or("none".into(), |v| String::from_utf8_lossy(v.as_bytes())
                .into_owned()),
            "a page was answered without its Content-Security-Policy; the server set it"
        ),
    }
    let value = HeaderValue::from_str(&want).unwrap_or(HeaderValue::from_static(CSP_NOT_A_PAGE));
    h.insert(header::CONTENT_SECURITY_POLICY, value);
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

    /// A router whose `/page` answers HTML as a render that never set its policy would, whose
    /// `/rendered` sets the page policy of the nonce it got, and whose `/json` is not a page;
    /// each answer's body is the nonce the handler found in the request.
    fn pages() -> Router {
        use axum::{extract::Request as Req, routing::get};
        let nonce_of = |req: &Req| {
            req.extensions()
                .get::<Nonce>()
                .map(|n| n.to_string())
                .unwrap_or_default()
        };
        Router::new()
            .route(
                "/page",
                get(move |req: Req| async move {
                    (
                        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                        nonce_of(&req),
                    )
                }),
            )
            .route(
                "/rendered",
                get(move |req: Req| async move {
                    let n = nonce_of(&req);
                    (
                        [
                            (header::CONTENT_TYPE, "text/html; charset=utf-8".to_owned()),
                            (header::CONTENT_SECURITY_POLICY, app::ssr::page_csp(&n)),
                        ],
                        n,
                    )
                }),
            )
            .route("/json", get(|| async { axum::Json(1) }))
            .layer(axum::middleware::from_fn_with_state(
                HeaderPolicy { https: false },
                secure,
            ))
    }

    async fn answer(path: &str) -> (String, String) {
        let res = pages()
            .oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap();
        let csp = res.headers()[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .to_owned();
        let body = axum::body::to_bytes(res.into_body(), 1 << 10)
            .await
            .unwrap();
        (csp, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn an_html_answer_without_a_page_policy_gets_the_request_nonces_not_the_non_page_one() {
        let (csp, nonce) = answer("/page").await;
        assert!(nonce.len() >= 16, "the request carried a nonce: {nonce:?}");
        assert_eq!(csp, app::ssr::page_csp(&nonce));
        let (csp2, nonce2) = answer("/page").await;
        assert_ne!(nonce, nonce2, "a nonce per request");
        assert_eq!(csp2, app::ssr::page_csp(&nonce2));
    }

    #[tokio::test]
    async fn a_render_that_set_its_policy_keeps_it_and_non_pages_allow_nothing() {
        let (csp, nonce) = answer("/rendered").await;
        assert_eq!(csp, app::ssr::page_csp(&nonce));
        let (csp, _) = answer("/json").await;
        assert_eq!(csp, CSP_NOT_A_PAGE);
    }

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
