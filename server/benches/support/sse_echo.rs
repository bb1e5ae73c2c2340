//! The event-delivery benchmarks' baseline: a bare axum server on loopback whose
//! `POST /poke` sends one SSE event (`event: echo`) at once to every open `GET /stream`.

use std::convert::Infallible;
use std::net::SocketAddr;

use axum::response::sse::{Event, Sse};
use tokio::sync::broadcast;

/// Starts the echo on a free loopback port; answers its address.
pub async fn start() -> SocketAddr {
    let (tx, _) = broadcast::channel::<u64>(16);
    let poke = tx.clone();
    let app = axum::Router::new()
        .route(
            "/poke",
            axum::routing::post(move || {
                let poke = poke.clone();
                async move {
                    let _ = poke.send(1);
                    "ok"
                }
            }),
        )
        .route(
            "/stream",
            axum::routing::get(move || {
                let rx = tx.subscribe();
                async move {
                    let events = futures_util::stream::unfold(rx, |mut rx| async move {
                        let n = rx.recv().await.ok()?;
                        let e: Result<Event, Infallible> =
                            Ok(Event::default().event("echo").data(n.to_string()));
                        Some((e, rx))
                    });
                    Sse::new(events)
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the echo");
    let addr = listener.local_addr().expect("echo address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}
