//! Cross-site request forgery guard for every state-changing request, and the fetch-metadata
//! check of routes that mint something on a GET (the kubeconfig download).

use axum::{
    extract::{Request, State},
    http::{header, HeaderMap, Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use std::sync::Arc;

/// Rejects POST/PUT/PATCH/DELETE unless the browser says the request comes from this very
/// origin (`Sec-Fetch-Site: same-origin`) or, for clients without fetch metadata, the
/// `Origin` header is exactly the configured public origin. A sibling site (`same-site`:
/// another subdomain, or another port of the same host on http) is refused like any
/// other site.
pub async fn guard(State(public_origin): State<Arc<str>>, req: Request, next: Next) -> Response {
    if is_state_changing(req.method()) && !allowed(req.headers(), &public_origin) {
        tracing::warn!(method = %req.method(), path = req.uri().path(), "cross-site request rejected");
        return (
            StatusCode::FORBIDDEN,
            "Cross-site request rejected: this form must be sent from Mission Control itself.",
        )
            .into_response();
    }
    next.run(req).await
}

fn is_state_changing(m: &Method) -> bool {
    !matches!(
        *m,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    )
}

fn allowed(h: &HeaderMap, public_origin: &str) -> bool {
    match h.get("sec-fetch-site").map(|v| v.as_bytes()) {
        Some(b"same-origin") => true,
        // A browser that says where the request comes from, and it is not us.
        Some(b"same-site" | b"cross-site") => false,
        // `none` (typed or bookmarked: never a form post of ours), unknown values and
        // clients without fetch metadata must name exactly our origin.
        _ => h
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .is_some_and(|o| o.eq_ignore_ascii_case(public_origin)),
    }
}

/// For a GET that mints something (a kubeconfig carries a new client certificate): refuses
/// it when the browser says another site started it (`Sec-Fetch-Site: cross-site` or
/// `same-site`). Links followed inside Mission Control (`same-origin`), typed or bookmarked
/// URLs (`none`) and clients without fetch metadata (curl) pass.
pub fn minting_get_allowed(h: &HeaderMap) -> bool {
    !matches!(
        h.get("sec-fetch-site").map(|v| v.as_bytes()),
        Some(b"same-site" | b"cross-site")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::{body::Body, routing::post, Router};
    use tower::ServiceExt;

    fn app() -> Router {
        Router::new()
            .route("/x", post(|| async { "ok" }).get(|| async { "ok" }))
            .layer(axum::middleware::from_fn_with_state(
                Arc::<str>::from("https://mc.example"),
                guard,
            ))
    }

    async fn status(method: &str, headers: &[(&str, &str)]) -> StatusCode {
        let mut b = Request::builder().method(method).uri("/x");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        app()
            .oneshot(b.body(Body::empty()).unwrap())
            .await
            .unwrap()
            .status()
    }

    #[tokio::test]
    async fn cross_site_fetch_metadata_is_rejected_same_origin_passes() {
        assert_eq!(
            status("POST", &[("sec-fetch-site", "cross-site")]).await,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            status("POST", &[("sec-fetch-site", "same-origin")]).await,
            StatusCode::OK
        );
        // Fetch metadata wins over a matching Origin.
        assert_eq!(
            status(
                "POST",
                &[
                    ("sec-fetch-site", "cross-site"),
                    ("origin", "https://mc.example")
                ]
            )
            .await,
            StatusCode::FORBIDDEN
        );
    }

    #[tokio::test]
    async fn a_sibling_site_is_refused_like_any_other() {
        for origin in ["http://127.0.0.1:9999", "https://evil.mc.example"] {
            assert_eq!(
                status(
                    "POST",
                    &[("sec-fetch-site", "same-site"), ("origin", origin)]
                )
                .await,
                StatusCode::FORBIDDEN,
                "{origin}"
            );
        }
        // `none` is never one of our form posts: it must name our origin.
        assert_eq!(
            status("POST", &[("sec-fetch-site", "none")]).await,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            status(
                "POST",
                &[("sec-fetch-site", "none"), ("origin", "https://mc.example")]
            )
            .await,
            StatusCode::OK
        );
    }

    #[tokio::test]
    async fn without_fetch_metadata_the_origin_must_match() {
        assert_eq!(
            status("POST", &[("origin", "https://evil.example")]).await,
            StatusCode::FORBIDDEN
        );
        assert_eq!(status("POST", &[]).await, StatusCode::FORBIDDEN);
        assert_eq!(
            status("POST", &[("origin", "https://mc.example")]).await,
            StatusCode::OK
        );
        assert_eq!(
            status("DELETE", &[("origin", "null")]).await,
            StatusCode::FORBIDDEN
        );
    }

    #[tokio::test]
    async fn safe_methods_pass_untouched() {
        assert_eq!(
            status("GET", &[("sec-fetch-site", "cross-site")]).await,
            StatusCode::OK
        );
    }

    #[test]
    fn minting_gets_refuse_other_sites_only() {
        let h = |v: Option<&str>| {
            let mut h = HeaderMap::new();
            if let Some(v) = v {
                h.insert("sec-fetch-site", v.parse().unwrap());
            }
            h
        };
        assert!(minting_get_allowed(&h(None)));
        assert!(minting_get_allowed(&h(Some("same-origin"))));
        assert!(minting_get_allowed(&h(Some("none"))));
        assert!(!minting_get_allowed(&h(Some("same-site"))));
        assert!(!minting_get_allowed(&h(Some("cross-site"))));
    }
}
