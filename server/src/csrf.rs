//! Cross-site request forgery guard for every state-changing request.

use axum::{
    extract::{Request, State},
    http::{header, Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use std::sync::Arc;

/// Rejects POST/PUT/PATCH/DELETE when `Sec-Fetch-Site` says `cross-site`, or, for clients
/// that do not send that header, when `Origin` is not the configured public origin.
pub async fn guard(State(public_origin): State<Arc<str>>, req: Request, next: Next) -> Response {
    if is_state_changing(req.method()) && !allowed(&req, &public_origin) {
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

fn allowed(req: &Request, public_origin: &str) -> bool {
    let h = req.headers();
    if let Some(site) = h.get("sec-fetch-site") {
        return site.as_bytes() != b"cross-site";
    }
    h.get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .is_some_and(|o| o.eq_ignore_ascii_case(public_origin))
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
}
