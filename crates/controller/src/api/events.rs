//! Extensions `GET /api/v1/events` (the project's events changed after a sequence number)
//! and `GET /api/v1/events/stream` (the same as Server-Sent Events, resumable, with a token
//! re-check on schedule).

use std::convert::Infallible;
use std::time::Duration;

use axum::{
    extract::{Query, State},
    http::{HeaderMap, StatusCode},
    response::sse::{Event as SseEvent, KeepAlive, Sse},
    Json,
};
use futures_util::stream::{self, Stream, StreamExt};
use kluster::ProjectEvent;
use serde::Deserialize;

use super::error::bad_query;
use super::{ApiError, ApiState, Caller};
use crate::auth::Permission;

/// How many events one read returns at most.
const PAGE: i64 = 500;
/// The reconnect delay suggested to stream clients.
const RETRY: Duration = Duration::from_secs(2);

/// Which events to read.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventQuery {
    /// Only changes after this sequence number (list default 0; stream default: now).
    after: Option<i64>,
    /// Only this kluster's events.
    kluster: Option<String>,
    /// At most this many (list only; 1–500, default 500).
    limit: Option<i64>,
    /// List only: the newest this many (1–500) instead of those after `after`.
    last: Option<i64>,
    /// Stream only, cloud admins only: every project's events (data: the event with its
    /// `projectId`).
    all_projects: Option<bool>,
}

/// `GET /api/v1/events`: the project's events changed after `after`, oldest change first.
pub async fn list(
    State(st): State<ApiState>,
    caller: Caller,
    query: Result<Query<EventQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<ProjectEvent>>, ApiError> {
    let who = caller.allow(&st, Permission::GetClusterEvents)?;
    let Query(q) = query.map_err(bad_query)?;
    let events = match q.last {
        Some(n) => {
            st.store
                .events_latest(&who.account, q.kluster.as_deref(), n.clamp(1, PAGE))
                .await?
        }
        None => {
            let limit = q.limit.unwrap_or(PAGE).clamp(1, PAGE);
            st.store
                .events_since(
                    &who.account,
                    q.kluster.as_deref(),
                    q.after.unwrap_or(0),
                    limit,
                )
                .await?
        }
    };
    Ok(Json(events))
}

/// `GET /api/v1/events/stream`: Server-Sent Events, one `event` per change with
/// `id:` = its sequence number, and an `event: kluster` hint (data: its name; empty: any)
/// whenever a kluster's stored state changes; resumes after `Last-Event-ID` (or `?after=`); comments
/// keep it alive every 15 s. When the caller's token stops being valid the stream sends
/// `event: unauthorized` and ends; on shutdown it ends.
pub async fn stream(
    State(st): State<ApiState>,
    caller: Caller,
    headers: HeaderMap,
    query: Result<Query<EventQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let all = q.all_projects.unwrap_or(false);
    let who = if all {
        super::ops::require_cloud_admin(&st, caller)?
    } else {
        caller.allow(&st, Permission::GetClusterEvents)?
    };
    let resume = match headers.get("last-event-id").map(|v| v.to_str()) {
        None => None,
        Some(Ok(v)) => Some(v.trim().parse::<i64>().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "Last-Event-ID must be a number this stream sent",
            )
        })?),
        Some(Err(_)) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "Last-Event-ID must be a number this stream sent",
            ))
        }
    };
    let mut latest = st.store.latest_seq();
    let now = *latest.borrow_and_update();
    let after = resume.or(q.after).unwrap_or(now);
    let token = headers
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    tracing::info!(
        project = who.account,
        user = who.name,
        after,
        all_projects = all,
        "event stream opened"
    );
    let hello = SseEvent::default()
        .retry(RETRY)
        .event("ready")
        .data(after.to_string());
    let changes = st.store.kluster_changes();
    let recheck_every = st.settings.stream_recheck.max(Duration::from_millis(10));
    let reader = Reader {
        recheck: tokio::time::Instant::now() + recheck_every,
        recheck_every,
        changes,
        st,
        project: who.account,
        all,
        kluster: q.kluster,
        after,
        latest,
        token,
        done: false,
    };
    let events = stream::unfold(reader, Reader::next).flat_map(stream::iter);
    let all = stream::once(async move { Ok(hello) }).chain(events);
    Ok(Sse::new(all).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// One open stream's position and its token re-check schedule.
struct Reader {
    /// When the token is checked next; kept across batches, so a busy stream re-checks too.
    recheck: tokio::time::Instant,
    /// How often the token is checked (the validator's cache answers most checks).
    recheck_every: Duration,
    changes: tokio::sync::broadcast::Receiver<(String, String)>,
    st: ApiState,
    project: String,
    /// Every project's events (cloud admins), not only `project`'s.
    all: bool,
    kluster: Option<String>,
    after: i64,
    latest: tokio::sync::watch::Receiver<i64>,
    token: String,
    done: bool,
}

type Batch = Vec<Result<SseEvent, Infallible>>;

impl Reader {
    /// The next batch of SSE events; `None` ends the stream.
    async fn next(mut self) -> Option<(Batch, Reader)> {
        if self.done {
            return None;
        }
        loop {
            if tokio::time::Instant::now() >= self.recheck {
                self.recheck = tokio::time::Instant::now() + self.recheck_every;
                if let Err(e) = self.st.validator.principal(Some(&self.token)).await {
                    if e.status() == 401 {
                        self.done = true;
                        let bye = SseEvent::default()
                            .event("unauthorized")
                            .data(e.to_string());
                        return Some((vec![Ok(bye)], self));
                    }
                }
            }
            let read = if self.all {
                self.st
                    .store
                    .ops_events_since("", self.after, PAGE)
                    .await
                    .map(|b| {
                        let last = b.last().map(|e| e.event.seq);
                        (b.iter().map(|e| Ok(sse_as(e, e.event.seq))).collect(), last)
                    })
            } else {
                self.st
                    .store
                    .events_since(&self.project, self.kluster.as_deref(), self.after, PAGE)
                    .await
                    .map(|b| {
                        let last = b.last().map(|e| e.seq);
                        (b.iter().map(|e| Ok(sse(e))).collect::<Batch>(), last)
                    })
            };
            match read {
                Ok((out, Some(last))) => {
                    self.after = last;
                    return Some((out, self));
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(project = self.project, error = %e, "event stream read failed");
                    self.done = true;
                    let bye = SseEvent::default()
                        .event("error")
                        .data("The event store failed; reconnect");
                    return Some((vec![Ok(bye)], self));
                }
            }
            let stop = self.st.stop.signal();
            tokio::select! {
                changed = self.latest.changed() => if changed.is_err() { return None },
                hint = self.changes.recv() => {
                    use tokio::sync::broadcast::error::RecvError;
                    let name = match hint {
                        Ok((p, name)) if self.all || p == self.project => name,
                        Ok(_) => continue,
                        Err(RecvError::Lagged(_)) => String::new(), // anything may have changed
                        Err(RecvError::Closed) => return None,
                    };
                    if self.kluster.as_deref().is_some_and(|k| !name.is_empty() && k != name) {
                        continue;
                    }
                    let hint = SseEvent::default().event("kluster").data(name);
                    return Some((vec![Ok(hint)], self));
                }
                // The top of the loop re-checks the token.
                _ = tokio::time::sleep_until(self.recheck) => {}
                _ = stop => return None,
            }
        }
    }
}

fn sse(e: &ProjectEvent) -> SseEvent {
    sse_as(e, e.seq)
}

fn sse_as(e: &impl serde::Serialize, seq: i64) -> SseEvent {
    let data = serde_json::to_string(e).unwrap_or_default();
    SseEvent::default()
        .id(seq.to_string())
        .event("event")
        .data(data)
}
