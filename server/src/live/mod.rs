//! `GET /events/stream`: the session's project's events as Server-Sent Events.
//!
//! One upstream subscription per project per process (the controller's event stream, or a
//! poller against a Kubernikus without one) is fanned out to every browser of that
//! project ([`hub`], [`upstream`]). A browser opens a stream only when the controller
//! explicitly lets its own token read the project's events, and that is asked again with
//! the token re-check interval. It resumes after `Last-Event-ID` (or `?after=`): what it
//! missed is replayed from the controller with its own token (at most
//! [`hub::REPLAY_CAP`] events; further behind, it gets `event: resync` and reloads), then
//! the live feed continues without duplicates. A browser that falls behind gets
//! `event: resync` and the missed events; when its session ends it gets
//! `event: session-ended` and the stream closes. A session and a user hold at most
//! `live_streams_per_user` streams.

pub mod hub;
mod hubs;
mod upstream;

use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::{
    extract::{Query, State},
    http::{HeaderMap, HeaderValue, StatusCode},
    response::{
        sse::{Event as SseEvent, KeepAlive, Sse},
        IntoResponse, Response,
    },
};
use futures_util::stream::{self, Stream, StreamExt};
use kluster::ProjectEvent;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use tower_sessions::Session;

use app::error::AppError;
use app::ssr::auth::{current, AuthRecord};
use app::ssr::AppState;
pub use hub::{Hub, Upstream};
pub use hubs::Hubs;

/// The hub of live feeds over `api`, each project's upstream run by this module.
pub fn hub(
    api: app::ssr::ControllerClient,
    max_streams: usize,
    poll_every: Duration,
    stop: serving::shutdown::Shutdown,
) -> Arc<Hub> {
    Hub::new(api, max_streams, poll_every, stop, |hub, project, feed| {
        tokio::spawn(upstream::run(hub, project, feed));
    })
}
use hub::{Item, Subscription};

/// Keep-alive comment interval.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How often a stream re-checks its session at the latest.
const SESSION_CHECK: Duration = Duration::from_secs(30);
/// Reconnect delay suggested to browsers.
const RETRY: Duration = Duration::from_secs(2);

/// What the stream route needs.
#[derive(Clone, Debug)]
pub struct LiveState {
    /// The fan-outs, one per controller.
    pub hubs: Arc<Hubs>,
    /// The dashboard's state (session checks).
    pub app: AppState,
}

/// Query of the stream route.
#[derive(Debug, Default, Deserialize)]
pub struct StreamQuery {
    /// Resume after this sequence number (a `Last-Event-ID` header wins).
    after: Option<i64>,
    /// Only this kluster's events.
    kluster: Option<String>,
}

/// Where a browser resumes: a numeric `Last-Event-ID` (what this stream sent as `id:`),
/// else `?after=`; anything else in the header is ignored as if absent.
pub fn resume_point(headers: &HeaderMap, after: Option<i64>) -> Option<i64> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .or(after)
}

fn sse_event(e: &ProjectEvent) -> SseEvent {
    SseEvent::default()
        .id(e.seq.to_string())
        .event("kluster-event")
        .data(serde_json::to_string(e).unwrap_or_default())
}

fn refuse(status: StatusCode, message: &'static str) -> Response {
    (status, message).into_response()
}

/// `GET /events/stream`: see the module documentation.
pub async fn stream(
    State(st): State<LiveState>,
    session: Session,
    headers: HeaderMap,
    Query(q): Query<StreamQuery>,
) -> Response {
    let rec = match current(&session, &st.app).await {
        Ok(Some(rec)) => rec,
        Ok(None) | Err(_) => return refuse(StatusCode::UNAUTHORIZED, "Please sign in."),
    };
    let resume = resume_point(&headers, q.after);
    // The hub of the session's controller (its region's, with regions from the catalog).
    let hub = match st.app.controller_for(&rec) {
        Ok(api) => st.hubs.for_api(&api),
        Err(_) => None,
    };
    let Some(hub) = hub else {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            "Live updates are unavailable: this region has no Kubernikus service the dashboard can follow.",
        );
    };
    // The feed is shared by the project's browsers: each one must itself be allowed to read
    // the project's events (the controller's policy decides, with the browser's token).
    // Only an explicit yes opens the stream.
    match hub.may_read(&rec.token, st.app.revalidate_after).await {
        Ok(()) => {}
        Err(AppError::SessionExpired) => {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "Your session has ended. Please sign in again.",
            )
        }
        Err(AppError::Forbidden(_)) => {
            return refuse(
                StatusCode::FORBIDDEN,
                "You are not allowed to see this project's events (that needs the kubernetes_member or kubernetes_admin role).",
            )
        }
        Err(_) => {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "Live updates are unavailable: the Kubernikus service cannot confirm your access right now. The page retries by itself.",
            )
        }
    }
    let session_key = session
        .id()
        .map(|id| hub::secret_hash(&id.to_string()))
        .unwrap_or_default()
        .to_string();
    let Some(slot) = hub.open_slot(&session_key, &rec.user_id) else {
        return refuse(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many live update streams are open for you; close some Mission Control tabs.",
        );
    };
    let sub = hub.subscribe(&rec.project_id, rec.token.clone());
    tracing::info!(
        project = rec.project_id,
        user = rec.user_name,
        resume,
        "live stream opened"
    );
    let events = async_stream(move |tx| async move {
        let _slot = slot; // frees the stream slot when the stream ends
        Browser {
            st,
            hub,
            rec,
            sub,
            kluster: q.kluster,
            tx,
        }
        .run(resume)
        .await;
    });
    let hello = SseEvent::default()
        .retry(RETRY)
        .comment("mission control live events");
    let body = stream::once(async move { Ok::<_, Infallible>(hello) }).chain(events.map(Ok));
    let mut resp = Sse::new(body)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response();
    let h = resp.headers_mut();
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    h.insert("cache-control", HeaderValue::from_static("no-store"));
    resp
}

/// One browser's stream.
struct Browser {
    st: LiveState,
    /// The hub of the session's controller.
    hub: Arc<Hub>,
    rec: AuthRecord,
    sub: Subscription,
    kluster: Option<String>,
    tx: mpsc::Sender<SseEvent>,
}

/// The browser went away (a send failed) or the stream must end.
struct Gone;

impl Browser {
    async fn send(&self, e: SseEvent) -> Result<(), Gone> {
        self.tx.send(e).await.map_err(|_| Gone)
    }

    fn wanted(&self, e: &ProjectEvent) -> bool {
        self.kluster.as_deref().is_none_or(|k| e.kluster == k)
    }

    /// Sends what the browser missed after `last` (from the controller, with its token);
    /// too far behind, a `resync` to the feed's newest position instead.
    async fn catch_up(&self, last: &mut i64) -> Result<(), Gone> {
        match self
            .hub
            .replay(&self.rec.token, self.kluster.as_deref(), *last)
            .await
        {
            Ok(Some(missed)) => {
                for e in missed.iter().filter(|e| self.wanted(e)) {
                    *last = (*last).max(e.seq);
                    self.send(sse_event(e)).await?;
                }
            }
            Ok(None) => {
                *last = (*last).max(self.sub.feed.latest.load(Ordering::Relaxed));
                self.send(SseEvent::default().event("resync").data(last.to_string()))
                    .await?;
            }
            Err(AppError::SessionExpired) => {
                let _ = self.send(session_ended()).await;
                return Err(Gone);
            }
            Err(_) => {}
        }
        Ok(())
    }

    async fn run(self, resume: Option<i64>) {
        let _ = self.serve(resume).await;
    }

    async fn serve(&self, resume: Option<i64>) -> Result<(), Gone> {
        let mut rx = self.sub.feed.tx.subscribe();
        let mut status = self.sub.feed.status.subscribe();
        // Wait until the upstream is live, then catch up from where the browser was.
        let mut last = resume.unwrap_or(i64::MIN);
        loop {
            let now = *status.borrow_and_update();
            match now {
                Upstream::Live(from) => {
                    if last == i64::MIN {
                        last = from;
                    }
                    self.send(SseEvent::default().event("live").data(last.to_string()))
                        .await?;
                    break;
                }
                Upstream::Paused => {
                    self.send(SseEvent::default().event("paused").data(""))
                        .await?
                }
                Upstream::Connecting => {}
            }
            if status.changed().await.is_err() {
                return Err(Gone);
            }
        }
        if resume.is_some() {
            self.catch_up(&mut last).await?;
        }
        // As often as sessions are re-checked with Keystone, at least every 30 s.
        let every = self
            .st
            .app
            .revalidate_after
            .clamp(Duration::from_secs(1), SESSION_CHECK);
        let mut check = tokio::time::interval(every);
        check.tick().await;
        let stop = self.hub.stop.signal();
        tokio::pin!(stop);
        loop {
            tokio::select! {
                r = rx.recv() => match r {
                    Ok(Item::Changed(name)) => {
                        if self.kluster.as_deref().is_none_or(|k| name.is_empty() || *k == *name) {
                            self.send(SseEvent::default().event("kluster-changed").data(&*name)).await?;
                        }
                    }
                    Ok(Item::Event(e)) => {
                        if e.seq > last && self.wanted(&e) {
                            last = e.seq;
                            self.send(sse_event(&e)).await?;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "a browser fell behind the live feed; resyncing it");
                        self.send(SseEvent::default().event("resync").data(last.to_string())).await?;
                        self.catch_up(&mut last).await?;
                    }
                    Err(broadcast::error::RecvError::Closed) => return Err(Gone),
                },
                changed = status.changed() => {
                    if changed.is_err() {
                        return Err(Gone);
                    }
                    let now = *status.borrow_and_update();
                    let note = match now {
                        Upstream::Paused => SseEvent::default().event("paused").data(""),
                        Upstream::Live(_) => SseEvent::default().event("live").data(last.to_string()),
                        Upstream::Connecting => continue,
                    };
                    self.send(note).await?;
                }
                _ = check.tick() => self.recheck().await?,
                _ = &mut stop => return Err(Gone),
                _ = self.tx.closed() => return Err(Gone),
            }
        }
    }

    /// Ends the stream when the session expired, Keystone no longer accepts the token, or
    /// the controller no longer lets it read the project's events. A Keystone or
    /// controller that cannot answer ends nothing already open.
    async fn recheck(&self) -> Result<(), Gone> {
        let (st, rec) = (&self.st.app, &self.rec);
        let valid = app::ssr::now_utc(&st.clock) < rec.expires_at
            && st
                .token_checks
                .accepted(&st.keystone, &rec.token, st.revalidate_after, &st.clock)
                .await
                .unwrap_or(true);
        if !valid {
            let _ = self.send(session_ended()).await;
            return Err(Gone);
        }
        match self.hub.may_read(&rec.token, st.revalidate_after).await {
            Err(AppError::SessionExpired) => {
                let _ = self.send(session_ended()).await;
                Err(Gone)
            }
            Err(AppError::Forbidden(m)) => {
                tracing::info!(
                    user = rec.user_name,
                    project = rec.project_id,
                    "live stream closed: access withdrawn"
                );
                let _ = self
                    .send(SseEvent::default().event("forbidden").data(m))
                    .await;
                Err(Gone)
            }
            _ => Ok(()),
        }
    }
}

fn session_ended() -> SseEvent {
    SseEvent::default()
        .event("session-ended")
        .data("/login?error=session_expired")
}

/// A stream fed by a task that sends into a bounded channel; the task stops when the
/// browser goes away (its sends fail).
fn async_stream<F, Fut>(f: F) -> impl Stream<Item = SseEvent>
where
    F: FnOnce(mpsc::Sender<SseEvent>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(f(tx));
    stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_points_are_numbers_or_ignored() {
        let h = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert("last-event-id", v.parse().unwrap());
            h
        };
        assert_eq!(resume_point(&h("42"), Some(7)), Some(42));
        assert_eq!(resume_point(&h(" 9 "), None), Some(9));
        assert_eq!(resume_point(&h("abc"), Some(7)), Some(7));
        assert_eq!(resume_point(&h("99999999999999999999999"), None), None);
        assert_eq!(resume_point(&HeaderMap::new(), None), None);
    }
}
