//! The client against a small stand-in server: errors mapped once (typed body, a
//! Kubernikus's plain body, a body that is not JSON), typed calls and the event stream.

use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use futures_util::StreamExt;
use keystone::TokenSecret;
use kluster::{ErrorReason, Kluster};

use super::*;
use crate::klusters::kluster_path;

async fn serve(app: axum::Router) -> Client {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    Client::new(&format!("http://{addr}/")).unwrap()
}

fn stand_in() -> axum::Router {
    axum::Router::new()
        .route(
            "/api/v1/clusters",
            get(|h: axum::http::HeaderMap| async move {
                let ok = h.get("x-auth-token").is_some_and(|v| v == "t");
                if ok {
                    axum::Json(vec![Kluster {
                        name: "a".into(),
                        ..Default::default()
                    }])
                    .into_response()
                } else {
                    (StatusCode::UNAUTHORIZED, r#"{"code":401,"message":"no"}"#).into_response()
                }
            })
            .post(|| async {
                (
                    StatusCode::CONFLICT,
                    r#"{"code":409,"message":"taken","reason":"NameTaken","fields":[{"path":"name","message":"taken"}]}"#,
                )
            }),
        )
        .route(
            "/api/v1/clusters/{name}",
            get(|| async { (StatusCode::BAD_GATEWAY, "<html>proxy</html>") })
                .delete(|| async { (StatusCode::FORBIDDEN, r#"{"code":403,"message":"Termination protection enabled"}"#) }),
        )
        .route(
            "/api/v1/events/stream",
            get(|q: axum::extract::RawQuery| async move {
                let ev = r#"{"id":1,"seq":5,"kluster":"a","count":1,"lastTimestamp":"t","firstTimestamp":"t","reason":"Running","message":"m","type":"Normal"}"#;
                let body = format!(
                    ": hi\n\nevent: ready\ndata: {}\n\nevent: event\ndata: {ev}\n\nevent: other\ndata: x\n\nevent: event\ndata: {{bad\n\nevent: kluster\ndata: a\n\nevent: unauthorized\ndata:\n\nevent: kluster\ndata: after\n\n",
                    q.0.unwrap_or_default()
                );
                ([("content-type", "text/event-stream")], body)
            }),
        )
}

#[tokio::test]
async fn calls_are_typed_and_errors_mapped_once() {
    let c = serve(stand_in()).await;
    let t = TokenSecret::new("t");
    assert_eq!(c.list(&t).await.unwrap()[0].name, "a");
    let e = c.list(&TokenSecret::new("x")).await.unwrap_err();
    assert_eq!(e.status(), Some(401));
    let e = c.create(&t, &Kluster::default()).await.unwrap_err();
    let api = e.api().unwrap();
    assert_eq!(
        (api.code, api.reason.clone()),
        (409, Some(ErrorReason::NameTaken))
    );
    assert_eq!(api.for_field("name"), Some("taken"));
    // A Kubernikus's body: the message, no reason (the caller shows the message).
    let e = c.terminate(&t, "a").await.unwrap_err();
    let api = e.api().unwrap();
    assert_eq!((api.code, api.reason.as_ref()), (403, None));
    assert_eq!(api.message, "Termination protection enabled");
    // Not the API's body at all: the status stays, with nothing else.
    let e = c.get(&t, "a").await.unwrap_err();
    assert_eq!(
        e,
        Error::Api(kluster::ErrorBody {
            code: 502,
            ..Default::default()
        })
    );
    // A name that is not a path segment stays one.
    assert_eq!(
        kluster_path("../x", "/info"),
        "/api/v1/clusters/..%2Fx/info"
    );
    assert_eq!(c.quota(&t).await.unwrap_err().status(), Some(404));
}

#[tokio::test]
async fn the_stream_is_typed_and_ends_after_unauthorized() {
    let c = serve(stand_in()).await;
    let t = TokenSecret::new("t");
    let s = c.event_stream(&t, Some(4)).await.unwrap();
    let got: Vec<_> = s.collect().await;
    let got: Vec<StreamEvent> = got.into_iter().map(Result::unwrap).collect();
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(
        got[0],
        StreamEvent::Ready(0),
        "after=4 is the query, not the data"
    );
    assert!(matches!(&got[1], StreamEvent::Event(e) if e.seq == 5 && e.event.reason == "Running"));
    assert_eq!(got[2], StreamEvent::Kluster("a".into()));
    assert_eq!(got[3], StreamEvent::Unauthorized);
}
