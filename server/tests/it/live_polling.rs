//! The live event stream against a Kubernikus without the event-stream extension: the
//! dashboard's feed polls the events instead, and delivers each once.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::stream::{open, parser, read_until, reason};
use crate::common::{browser, create_kluster, login, proxy};
use kluster::EventReason;

/// A Kubernikus without the event-stream extension: the embedded controller behind a proxy
/// that answers 404 for `/api/v1/events…`; counts the kluster listings (one per poll).
async fn plain_kubernikus(upstream: String) -> (String, Arc<AtomicUsize>) {
    let listings = Arc::new(AtomicUsize::new(0));
    let counted = listings.clone();
    let hook: proxy::Hook = Arc::new(move |req: &proxy::Seen| {
        if req.method == axum::http::Method::GET
            && (req.path == "/api/v1/clusters" || req.path.starts_with("/api/v1/clusters?"))
        {
            counted.fetch_add(1, SeqCst);
        }
        req.path
            .starts_with("/api/v1/events")
            .then(|| proxy::answer(404, r#"{"code":404,"message":"Not found"}"#))
    });
    (proxy::start(&upstream, hook).await, listings)
}

/// Reads whatever the stream sends until `listings` has grown by `polls` (or fails after
/// 20 s).
async fn read_through_polls(
    r: &mut reqwest::Response,
    buf: &mut kubernikus_client::sse::Parser,
    frames: &mut Vec<crate::common::stream::Frame>,
    listings: &AtomicUsize,
    polls: usize,
) {
    let target = listings.load(SeqCst) + polls;
    let deadline = Instant::now() + Duration::from_secs(20);
    while listings.load(SeqCst) < target {
        assert!(Instant::now() < deadline, "the feed stopped polling");
        if let Ok(chunk) = tokio::time::timeout(Duration::from_millis(100), r.chunk()).await {
            let chunk = chunk.unwrap().expect("the stream ended");
            crate::common::stream::push(buf, frames, &chunk);
        }
    }
}

#[tokio::test]
async fn against_a_kubernikus_without_the_stream_the_feed_polls_and_deduplicates() {
    // A dashboard with its embedded controller provides the real controller…
    let backing = crate::common::spawn(|s| s.controller.controller_phase_seconds = Some(1.0)).await;
    let (proxy, listings) = plain_kubernikus(backing.controller_url.clone()).await;
    // …and a second dashboard talks to it through the proxy, like to an old Kubernikus,
    // polling five times a second.
    let srv = crate::common::spawn(|s| {
        s.controller_url = Some(proxy.clone());
        s.live_poll_seconds = Some(0.2);
    })
    .await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let mut r = open(&c, &srv, None).await;
    let (mut buf, mut frames) = (parser(), vec![]);
    read_until(&mut r, &mut buf, &mut frames, |f| {
        f.iter().any(|x| x.0 == "live")
    })
    .await;
    // More nodes than the quota allows: its FailedCreateNode warning repeats (aggregated).
    create_kluster(&backing, "alice", r#"{"name":"polled","spec":{"nodePools":[{"name":"p","size":11,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#).await;
    read_until(&mut r, &mut buf, &mut frames, |f| {
        f.iter().any(|x| reason(x) == Some(EventReason::Running))
            && f.iter()
                .filter(|x| reason(x) == Some(EventReason::FailedCreateNode))
                .count()
                >= 2
    })
    .await;
    // Five more polls, and what they sent: nothing already delivered comes again.
    read_through_polls(&mut r, &mut buf, &mut frames, &listings, 5).await;
    let events: Vec<serde_json::Value> = frames
        .iter()
        .filter(|x| x.0 == "kluster-event")
        .map(|x| serde_json::from_str(&x.2).unwrap())
        .collect();
    let mut keys: Vec<String> = events
        .iter()
        .map(|e| format!("{} {} {}", e["reason"], e["message"], e["count"]))
        .collect();
    assert!(events.iter().any(|e| e["reason"] == "Creating"), "{keys:?}");
    // A repeat keeps its event's id; different events have different ids.
    let ids = |reason: &str| {
        let mut v: Vec<i64> = events
            .iter()
            .filter(|e| e["reason"] == reason)
            .map(|e| e["id"].as_i64().unwrap())
            .collect();
        v.dedup();
        v
    };
    assert_eq!(ids("FailedCreateNode").len(), 1, "one event, counted up");
    assert_ne!(ids("FailedCreateNode"), ids("Creating"));
    let n = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), n, "no event twice");
}
