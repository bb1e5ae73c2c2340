//! The controller's event stream re-checks its caller's token on schedule even while events
//! keep flowing (a busy project used to push the re-check off forever).

use std::time::{Duration, Instant};

use crate::common::{app_custom, test_settings, token, url};
use axum::{body::Body, http::Request};
use controller::api::ApiSettings;
use futures_util::StreamExt;
use tower::ServiceExt;

#[tokio::test]
async fn a_busy_stream_whose_token_is_revoked_says_unauthorized_within_the_recheck_time() {
    let recheck = Duration::from_millis(400);
    let settings = ApiSettings {
        stream_recheck: recheck,
        ..test_settings()
    };
    // Validated tokens are trusted for 100 ms only, so a revocation shows at the next check.
    let (app, store) = app_custom(&url(), settings, Duration::from_millis(100)).await;
    let alice = token("alice", "demo").await;
    let project = crate::common::account_of(&alice).await;
    let req = Request::get("/api/v1/events/stream")
        .header("x-auth-token", &alice)
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    assert_eq!(res.status(), 200);
    let mut body = res.into_body().into_data_stream();

    // Events keep coming, faster than the re-check interval.
    let writer = tokio::spawn(async move {
        for i in 0.. {
            store
                .record_event(
                    &project,
                    "busy",
                    kluster::EventType::Normal,
                    &kluster::EventReason::Other("Tick".into()),
                    &format!("tick {i}"),
                )
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    });
    // Read with the one SSE parser.
    let mut parser = kubernikus_client::sse::Parser::new(1 << 20);
    let mut frames = Vec::new();
    let deadline = Instant::now() + Duration::from_millis(300);
    while Instant::now() < deadline {
        if let Ok(Some(chunk)) = tokio::time::timeout(Duration::from_millis(100), body.next()).await
        {
            frames.extend(parser.push(&chunk.unwrap()).unwrap());
        }
    }
    assert!(
        frames.iter().any(|f| f.event == "event"),
        "events flow: {frames:?}"
    );

    let ks = keystone::Client::new(&url()).unwrap();
    let t = keystone::TokenSecret::new(alice.as_str());
    ks.revoke(&t, &t).await.unwrap();
    let revoked = Instant::now();
    let mut after = 0;
    let said = 'read: loop {
        let left = Duration::from_secs(3).saturating_sub(revoked.elapsed());
        match tokio::time::timeout(left, body.next()).await {
            Ok(Some(chunk)) => {
                for f in parser.push(&chunk.unwrap()).unwrap() {
                    match f.event.as_str() {
                        "unauthorized" => break 'read true,
                        "event" => after += 1,
                        _ => {}
                    }
                }
            }
            Ok(None) | Err(_) => break false,
        }
    };
    writer.abort();
    assert!(
        said,
        "no `event: unauthorized` within 3 s of the revocation ({after} events after it)"
    );
    assert!(
        revoked.elapsed() < recheck * 2 + Duration::from_millis(500),
        "told after {:?}",
        revoked.elapsed()
    );
    // The stream ends after saying so.
    let end = tokio::time::timeout(Duration::from_secs(2), async {
        while let Some(chunk) = body.next().await {
            if chunk.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(end.is_ok(), "the stream ended");
}
