//! The embedded controller answered in-process: the dashboard's calls to it (all but the
//! live event stream) go straight to its router, through the same handlers and layers as
//! over HTTP, without the loopback connection (per call: a socket write and a wake-up each
//! way, and HTTP written and parsed twice).

use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use futures_util::future::BoxFuture;
use kubernikus_client::{CALL_TIMEOUT, MAX_ANSWER};
use tower::ServiceExt;

/// The embedded controller's router as the API client's [`kubernikus_client::InProcessApi`].
#[derive(Clone)]
pub struct InProcess {
    router: axum::Router,
}

impl InProcess {
    /// Answers with `router`: the controller's API as its listener serves it.
    pub fn new(router: axum::Router) -> Self {
        Self { router }
    }
}

impl kubernikus_client::InProcessApi for InProcess {
    fn answer(
        &self,
        req: reqwest::Request,
    ) -> BoxFuture<'static, Result<reqwest::Response, String>> {
        let router = self.router.clone();
        Box::pin(async move {
            // The client's own bounds: its call timeout (set on every call) and answer size.
            let timeout = req.timeout().copied().unwrap_or(CALL_TIMEOUT);
            let request = to_router(&req)?;
            let answered = async {
                let resp = match router.oneshot(request).await {
                    Ok(r) => r,
                    Err(never) => match never {},
                };
                let (parts, body) = resp.into_parts();
                let bytes = axum::body::to_bytes(body, MAX_ANSWER)
                    .await
                    .map_err(|e| format!("the controller's answer could not be read: {e}"))?;
                Ok(reqwest::Response::from(http::Response::from_parts(
                    parts, bytes,
                )))
            };
            tokio::time::timeout(timeout, answered)
                .await
                .map_err(|_| format!("the controller did not answer within {timeout:?}"))?
        })
    }
}

/// `req` as the router takes it (method, URI, headers, body), from the loopback address
/// as over HTTP, so the controller believes its `X-Forwarded-For` alike.
fn to_router(req: &reqwest::Request) -> Result<axum::extract::Request, String> {
    let mut builder = http::Request::builder()
        .method(req.method().clone())
        .uri(req.url().as_str());
    for (name, value) in req.headers() {
        builder = builder.header(name, value);
    }
    let body = match req.body().map(|b| b.as_bytes()) {
        None => axum::body::Body::empty(),
        Some(Some(bytes)) => axum::body::Body::from(bytes.to_vec()),
        Some(None) => return Err("a streamed request body is not answered in-process".into()),
    };
    let mut request = builder.body(body).map_err(|e| e.to_string())?;
    request
        .extensions_mut()
        .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 0))));
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::post;
    use kubernikus_client::InProcessApi;

    /// A route that answers with what it was asked: method, path and query, a header, the
    /// body, the caller's address.
    async fn echo(
        ConnectInfo(peer): ConnectInfo<SocketAddr>,
        req: axum::extract::Request,
    ) -> (http::StatusCode, [(&'static str, String); 1], String) {
        let (parts, body) = req.into_parts();
        let body = axum::body::to_bytes(body, 1 << 20)
            .await
            .unwrap_or_default();
        let token = parts
            .headers
            .get("x-auth-token")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        (
            http::StatusCode::CREATED,
            [("x-seen-token", token)],
            format!(
                "{} {} {} {}",
                parts.method,
                parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or(""),
                String::from_utf8_lossy(&body),
                peer.ip()
            ),
        )
    }

    #[tokio::test]
    async fn answers_with_the_router_as_over_http() {
        let local = InProcess::new(axum::Router::new().route("/api/v1/clusters", post(echo)));
        let req = reqwest::Client::new()
            .post("http://controller.invalid/api/v1/clusters?limit=5")
            .header("x-auth-token", "t0ken")
            .body("{\"name\":\"k\"}")
            .build()
            .unwrap();
        let resp = local.answer(req).await.unwrap();
        assert_eq!(resp.status(), 201);
        assert_eq!(resp.headers()["x-seen-token"], "t0ken");
        assert_eq!(
            resp.text().await.unwrap(),
            "POST /api/v1/clusters?limit=5 {\"name\":\"k\"} 127.0.0.1"
        );
        let missing = reqwest::Client::new()
            .get("http://controller.invalid/nowhere")
            .build()
            .unwrap();
        assert_eq!(local.answer(missing).await.unwrap().status(), 404);
    }
}
