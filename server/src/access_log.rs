//! One log line per request: method, path, status, duration; health probes and metrics
//! scrapes at debug, everything else at info.

use std::time::Instant;

use axum::{extract::Request, middleware::Next, response::Response};

/// Logs each request after it completes. Query strings are left out of the line.
pub async fn log(req: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let res = next.run(req).await;
    macro_rules! access {
        ($level:ident) => {
            tracing::$level!(
                target: "access",
                %method,
                path,
                status = res.status().as_u16(),
                ms = start.elapsed().as_secs_f64() * 1e3,
            )
        };
    }
    if serving::request::is_probe(&path) {
        access!(debug);
    } else {
        access!(info);
    }
    res
}
