//! The dashboard's event stream as a browser reads it, with the one SSE parser
//! (`kubernikus_client::sse`): frames as (event, id, data), typed where a test decides.

use std::time::{Duration, Instant};

use kubernikus_client::sse::Parser;
use reqwest::Client;

use super::TestServer;

/// (event type, id, data) of one SSE frame.
pub type Frame = (String, String, String);

/// Opens the dashboard's event stream as browser `c` (resuming after `last_id`), checking
/// the stream's headers.
pub async fn open(c: &Client, srv: &TestServer, last_id: Option<&str>) -> reqwest::Response {
    let mut req = c
        .get(format!("{}/events/stream", srv.base))
        .header("accept", "text/event-stream");
    if let Some(id) = last_id {
        req = req.header("last-event-id", id);
    }
    let r = req.send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    assert_eq!(r.headers()["x-accel-buffering"], "no");
    assert!(
        r.headers().get("content-encoding").is_none(),
        "never compressed"
    );
    r
}

/// Reads frames until `done` holds (or fails after 20 s).
pub async fn read_until(
    r: &mut reqwest::Response,
    buf: &mut Parser,
    frames: &mut Vec<Frame>,
    done: impl Fn(&[Frame]) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done(frames) {
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = tokio::time::timeout(left, r.chunk())
            .await
            .unwrap_or_else(|_| panic!("stream stalled; frames {frames:?}"))
            .unwrap()
            .unwrap_or_else(|| panic!("stream ended; frames {frames:?}"));
        push(buf, frames, &chunk);
    }
}

/// Parses `chunk` and keeps its named frames in `frames`.
pub fn push(buf: &mut Parser, frames: &mut Vec<Frame>, chunk: &[u8]) {
    for f in buf.push(chunk).expect("frames under the bound") {
        if !f.event.is_empty() {
            frames.push((f.event, f.id.unwrap_or_default(), f.data.trim().into()));
        }
    }
}

/// The one SSE parser, bounded as a test needs.
pub fn parser() -> Parser {
    Parser::new(1 << 20)
}

/// The sequence numbers (ids) of the `kluster-event` frames.
pub fn seqs(frames: &[Frame]) -> Vec<i64> {
    frames
        .iter()
        .filter(|f| f.0 == "kluster-event")
        .map(|f| f.1.parse().unwrap())
        .collect()
}

/// The typed event of a `kluster-event` frame (`None` for other frames).
pub fn event(f: &Frame) -> Option<kluster::ProjectEvent> {
    (f.0 == "kluster-event").then(|| serde_json::from_str(&f.2).ok())?
}

/// The typed reason of a `kluster-event` frame's event (`None` for other frames).
pub fn reason(f: &Frame) -> Option<kluster::EventReason> {
    event(f).map(|e| e.event.event_reason())
}
