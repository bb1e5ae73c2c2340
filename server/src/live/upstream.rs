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
use futures_util::StreamExt;
use kubernikus_client::StreamEvent;

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
    let mut stream = match hub.api.event_stream(token, *last).await {
        Ok(s) => s,
        Err(e) => {
            return match e.status() {
                Some(401 | 403) => Ended::Refused,
                Some(404) => match poll(hub, feed, token, last).await {
                    Err(AppError::SessionExpired | AppError::Forbidden(_)) => Ended::Refused,
                    Err(e) => Ended::Lost(e.to_string()),
                    Ok(()) => Ended::Lost("polling ended".into()),
                },
                Some(s) => Ended::Lost(format!("controller answered {s}")),
                None => Ended::Lost(e.to_string()),
            }
        }
    };
    while let Some(item) = stream.next().await {
        match item {
            Ok(StreamEvent::Kluster(name)) => {
                let _ = feed.tx.send(Item::Changed(name.into()));
            }
            Ok(StreamEvent::Ready(from)) => {
                let at = *last.get_or_insert(from);
                feed.latest.fetch_max(at, Ordering::Relaxed);
                feed.status.send_replace(Upstream::Live(at));
            }
            Ok(StreamEvent::Event(e)) => pass_on(feed, last, e),
            Ok(StreamEvent::Unauthorized) => return Ended::Refused,
            Err(e) => return Ended::Lost(e.to_string()),
        }
    }
    Ended::Lost("the controller ended the stream".into())
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
        let klusters = hub.api.list(token).await?;
        let mut listed: HashMap<Key, (i64, i64, String)> = HashMap::new();
        for k in klusters {
            let events = hub.api.events(token, &k.name).await?;
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
        tokio::time::sleep(hub.poll_every).await;
    }
}
