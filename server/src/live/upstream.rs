//! Keeps one project's feed supplied: the controller's event stream, or polling against a
//! Kubernikus without one; reconnects with backoff, resuming after the last event it passed
//! on. When the controller refuses the token it uses (401/403, or `event: unauthorized`),
//! that token is dropped and another listening browser's is used.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use kluster::ProjectEvent;

use super::hub::{Feed, Hub, Item, Upstream};
use app::error::AppError;
use app::ssr::percent_encode;

/// Poll interval against a Kubernikus without an event stream.
const POLL: Duration = Duration::from_secs(5);
/// Most (kluster, type, reason, message) keys the polling fallback remembers.
const POLL_MEMORY: usize = 50_000;

/// Why an upstream attempt ended.
enum Ended {
    /// The controller refused the token.
    Refused,
    /// Anything else (network, server error, stream end): retry with backoff.
    Lost(String),
}

/// Runs until nobody listens or the hub stops.
pub async fn run(hub: Arc<Hub>, project: String, feed: Arc<Feed>) {
    let mut last: Option<i64> = None;
    let mut backoff = Duration::from_millis(500);
    let stop = hub.stop.signal();
    tokio::pin!(stop);
    loop {
        if !feed.has_listeners() {
            return;
        }
        let result: Result<(), String> = match feed.token() {
            Some(token) => {
                let attempt = attempt(&hub, &feed, &token, &mut last);
                tokio::select! {
                    r = attempt => match r {
                        Ended::Refused => {
                            tracing::warn!(project, "the controller refused a browser's token for the live feed; using another");
                            feed.refuse(&token);
                            Err("token refused".to_string())
                        }
                        Ended::Lost(e) => Err(e),
                    },
                    _ = &mut stop => return,
                    _ = nobody_listens(&feed) => return,
                }
            }
            None => {
                // Every listening browser's token was refused: wait for a new browser.
                feed.status.send_replace(Upstream::Paused);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                    _ = &mut stop => return,
                }
            }
        };
        if let Err(e) = result {
            if feed.status.send_replace(Upstream::Paused) != Upstream::Paused {
                tracing::warn!(project, error = e, "live event feed lost; retrying");
            }
        }
        tokio::select! {
            _ = tokio::time::sleep(backoff) => {}
            _ = &mut stop => return,
        }
        backoff = (backoff * 2).min(Duration::from_secs(10));
    }
}

async fn nobody_listens(feed: &Feed) {
    loop {
        tokio::time::sleep(Duration::from_secs(5)).await;
        if !feed.has_listeners() {
            return;
        }
    }
}

fn pass_on(feed: &Feed, last: &mut Option<i64>, e: ProjectEvent) {
    *last = Some(e.seq);
    feed.latest.fetch_max(e.seq, Ordering::Relaxed);
    let _ = feed.tx.send(Item::Event(Arc::new(e)));
}

/// One subscription to the controller's stream, until it ends.
async fn attempt(
    hub: &Hub,
    feed: &Feed,
    token: &keystone::TokenSecret,
    last: &mut Option<i64>,
) -> Ended {
    let mut url = format!("{}/api/v1/events/stream", hub.controller);
    if let Some(l) = last {
        url.push_str(&format!("?after={l}"));
    }
    let resp = match hub
        .http
        .get(&url)
        .header("x-auth-token", token.expose())
        .send()
        .await
    {
        Ok(r) => r,
        Err(e) => return Ended::Lost(e.without_url().to_string()),
    };
    match resp.status().as_u16() {
        200 => {}
        401 | 403 => return Ended::Refused,
        404 => {
            return match poll(hub, feed, token, last).await {
                Err(AppError::SessionExpired | AppError::Forbidden(_)) => Ended::Refused,
                Err(e) => Ended::Lost(e.to_string()),
                Ok(()) => Ended::Lost("polling ended".into()),
            }
        }
        s => return Ended::Lost(format!("controller answered {s}")),
    }
    let mut resp = resp;
    let mut buf = String::new();
    loop {
        let chunk = match resp.chunk().await {
            Ok(Some(c)) => c,
            Ok(None) => return Ended::Lost("the controller ended the stream".into()),
            Err(e) => return Ended::Lost(e.without_url().to_string()),
        };
        buf.push_str(&String::from_utf8_lossy(&chunk));
        if buf.len() > 4 << 20 {
            return Ended::Lost("an event frame over 4 MB".into());
        }
        while let Some(end) = buf.find("\n\n") {
            let frame: String = buf.drain(..end + 2).collect();
            let (mut kind, mut data) = (String::new(), String::new());
            for line in frame.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    kind = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            match kind.as_str() {
                "kluster" => {
                    let _ = feed.tx.send(Item::Changed(data.trim().into()));
                }
                "ready" => {
                    let from = data.trim().parse().unwrap_or(0);
                    let at = *last.get_or_insert(from);
                    feed.latest.fetch_max(at, Ordering::Relaxed);
                    feed.status.send_replace(Upstream::Live(at));
                }
                "event" => {
                    if let Ok(e) = serde_json::from_str::<ProjectEvent>(&data) {
                        pass_on(feed, last, e);
                    }
                }
                "unauthorized" => return Ended::Refused,
                _ => {}
            }
        }
    }
}

/// The polling fallback (a Kubernikus without the stream extension): each kluster's events
/// every few seconds; a changed count or timestamp is a new change. Sequence numbers are
/// local to this process. What it remembers is bounded: only keys the controller still
/// lists, at most [`POLL_MEMORY`].
async fn poll(
    hub: &Hub,
    feed: &Feed,
    token: &keystone::TokenSecret,
    last: &mut Option<i64>,
) -> Result<(), AppError> {
    // (kluster, type, reason, message) → (id, count, last timestamp) of what was passed on.
    type Key = (String, String, String, String);
    let mut seen: HashMap<Key, (i64, i64, String)> = HashMap::new();
    let mut next_id = 0i64;
    let mut seq = last.unwrap_or(0);
    let mut first = true;
    loop {
        let klusters: Vec<kluster::Kluster> = hub.api.get(token, "/api/v1/clusters").await?;
        let mut listed: HashMap<Key, (i64, i64, String)> = HashMap::new();
        for k in klusters {
            let path = format!("/api/v1/clusters/{}/events", percent_encode(&k.name));
            let events: Vec<kluster::Event> = hub.api.get(token, &path).await?;
            for e in events {
                if listed.len() >= POLL_MEMORY {
                    break;
                }
                let key = (
                    k.name.clone(),
                    e.kind.clone(),
                    e.reason.clone(),
                    e.message.clone(),
                );
                let known = seen.get(&key).cloned();
                // An aggregated repeat (new count or time) keeps its event's id.
                let id = match &known {
                    Some((id, ..)) => *id,
                    None => {
                        next_id += 1;
                        next_id
                    }
                };
                listed.insert(key, (id, e.count, e.last_timestamp.clone()));
                if matches!(&known, Some((_, count, ts)) if *count == e.count && *ts == e.last_timestamp)
                {
                    continue;
                }
                if first {
                    continue; // what exists at start is history, not news
                }
                seq += 1;
                let _ = feed.tx.send(Item::Changed(k.name.as_str().into()));
                pass_on(
                    feed,
                    last,
                    ProjectEvent {
                        id,
                        seq,
                        kluster: k.name.clone(),
                        event: e,
                    },
                );
            }
        }
        seen = listed;
        if first {
            feed.status.send_replace(Upstream::Live(seq));
            first = false;
        }
        tokio::time::sleep(POLL).await;
    }
}
