//! `GET /events/stream`: the session's project's events as Server-Sent Events.
//!
//! One upstream subscription per project per process (the controller's event stream, or a
//! poller against a Kubernikus without one) is fanned out to every browser of that
//! project. A browser resumes after `Last-Event-ID` (or `?after=`): what it missed is
//! replayed from the controller with its own token, then the live feed continues without
//! duplicates. A browser that falls behind gets `event: resync` and the missed events;
//! when its session ends it gets `event: session-ended` and the stream closes.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
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
use tokio::sync::{broadcast, watch};
use tower_sessions::Session;

use app::error::AppError;
use app::ssr::auth::current;
use app::ssr::{percent_encode, AppState, ControllerClient};

/// Events buffered per project for slow browsers before they are told to resync.
const BUFFER: usize = 1024;
/// Keep-alive comment interval.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How often a stream re-checks its session.
const SESSION_CHECK: Duration = Duration::from_secs(30);
/// Reconnect delay suggested to browsers.
const RETRY: Duration = Duration::from_secs(2);
/// Poll interval against a Kubernikus without an event stream.
const POLL: Duration = Duration::from_secs(5);

/// Whether a project's upstream is delivering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Upstream {
    /// Not connected yet.
    Connecting,
    /// Live from this sequence number on.
    Live(i64),
    /// Lost; retrying.
    Paused,
}

/// What a feed carries.
#[derive(Clone, Debug)]
enum Item {
    /// An event (new or aggregated).
    Event(Arc<ProjectEvent>),
    /// A kluster's stored state changed (empty name: any may have).
    Changed(Arc<str>),
}

struct Feed {
    tx: broadcast::Sender<Item>,
    status: watch::Sender<Upstream>,
    /// Tokens of the browsers subscribed, by client id; the upstream uses one of them.
    tokens: Mutex<HashMap<u64, keystone::TokenSecret>>,
}

/// The fan-out: one feed per project with at least one browser.
pub struct Hub {
    /// Base URL of the controller, for its event stream.
    controller: String,
    /// Client for that stream (no overall timeout: it is long-lived).
    http: reqwest::Client,
    /// The dashboard's client of the controller's JSON API.
    api: ControllerClient,
    feeds: Mutex<HashMap<String, Arc<Feed>>>,
    next_client: std::sync::atomic::AtomicU64,
    stop: controller::run::Shutdown,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("controller", &self.controller)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A browser's subscription; dropping it unsubscribes.
struct Subscription {
    hub: Arc<Hub>,
    project: String,
    client: u64,
    feed: Arc<Feed>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        lock(&self.feed.tokens).remove(&self.client);
        let mut feeds = lock(&self.hub.feeds);
        let ours = feeds
            .get(&self.project)
            .is_some_and(|f| Arc::ptr_eq(f, &self.feed));
        if ours && lock(&self.feed.tokens).is_empty() {
            feeds.remove(&self.project);
        }
    }
}

impl Hub {
    /// A hub for the controller at `controller` (base URL), read through `api`; streams end
    /// on `stop`.
    pub fn new(
        controller: &str,
        api: ControllerClient,
        stop: controller::run::Shutdown,
    ) -> Arc<Hub> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(3))
            .build()
            .unwrap_or_default();
        Arc::new(Hub {
            controller: controller.trim_end_matches('/').to_string(),
            http,
            api,
            feeds: Mutex::default(),
            next_client: Default::default(),
            stop,
        })
    }

    /// Whether a streaming session may go on: not past its expiry, and its token still
    /// accepted by Keystone (asked at most once per re-check interval per token, however
    /// many browsers stream with it). A Keystone that cannot answer ends nothing.
    async fn still_valid(&self, rec: &app::ssr::auth::AuthRecord, st: &AppState) -> bool {
        if time::OffsetDateTime::now_utc() >= rec.expires_at {
            return false;
        }
        st.token_checks
            .accepted(&st.keystone, &rec.token, st.revalidate_after)
            .await
            .unwrap_or(true)
    }

    fn subscribe(self: &Arc<Hub>, project: &str, token: keystone::TokenSecret) -> Subscription {
        let client = self
            .next_client
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut feeds = lock(&self.feeds);
        let feed = match feeds.get(project) {
            Some(f) => f.clone(),
            None => {
                let (tx, _) = broadcast::channel(BUFFER);
                let (status, _) = watch::channel(Upstream::Connecting);
                let feed = Arc::new(Feed {
                    tx,
                    status,
                    tokens: Mutex::default(),
                });
                feeds.insert(project.to_string(), feed.clone());
                lock(&feed.tokens).insert(client, token.clone());
                tokio::spawn(upstream(self.clone(), project.to_string(), feed.clone()));
                feed
            }
        };
        lock(&feed.tokens).insert(client, token);
        Subscription {
            hub: self.clone(),
            project: project.to_string(),
            client,
            feed,
        }
    }

    async fn fetch(
        &self,
        token: &keystone::TokenSecret,
        query: &str,
    ) -> Result<Vec<ProjectEvent>, AppError> {
        self.api
            .get(token, &format!("/api/v1/events?{query}"))
            .await
    }

    /// Whether the controller lets `token` read the project's events; otherwise its answer
    /// (ended session, forbidden, or unavailable).
    async fn may_read(&self, token: &keystone::TokenSecret) -> Result<(), AppError> {
        match self.fetch(token, "last=1").await {
            Ok(_) => Ok(()),
            // A Kubernikus without the extension: its cluster list has the same audience.
            Err(AppError::NotFound(_)) => self
                .api
                .get::<serde::de::IgnoredAny>(token, "/api/v1/clusters")
                .await
                .map(drop),
            Err(e) => Err(e),
        }
    }

    /// Every event of the project after `after`, page by page.
    async fn replay(
        &self,
        token: &keystone::TokenSecret,
        kluster: Option<&str>,
        after: i64,
    ) -> Result<Vec<ProjectEvent>, AppError> {
        let mut out = Vec::new();
        let mut after = after;
        loop {
            let mut q = format!("after={after}&limit=500");
            if let Some(k) = kluster {
                q.push_str(&format!("&kluster={}", percent_encode(k)));
            }
            let page = self.fetch(token, &q).await?;
            let full = page.len() == 500;
            if let Some(last) = page.last() {
                after = last.seq;
            }
            out.extend(page);
            if !full {
                return Ok(out);
            }
        }
    }
}

/// Keeps one project's feed supplied until nobody listens: the controller's stream, or
/// polling when the controller has none; reconnects with backoff, resuming after the last
/// event it passed on.
async fn upstream(hub: Arc<Hub>, project: String, feed: Arc<Feed>) {
    let mut last: Option<i64> = None;
    let mut backoff = Duration::from_millis(500);
    let stop = hub.stop.signal();
    tokio::pin!(stop);
    loop {
        let token = lock(&feed.tokens).values().next().cloned();
        let Some(token) = token else {
            return; // nobody listens any more
        };
        let attempt = async {
            let mut url = format!("{}/api/v1/events/stream", hub.controller);
            if let Some(l) = last {
                url.push_str(&format!("?after={l}"));
            }
            let resp = hub
                .http
                .get(&url)
                .header("x-auth-token", token.expose())
                .send()
                .await
                .map_err(|e| e.without_url().to_string())?;
            match resp.status().as_u16() {
                200 => {}
                404 => return poll(&hub, &feed, &token, &mut last).await,
                s => return Err(format!("controller answered {s}")),
            }
            let mut resp = resp;
            let mut buf = String::new();
            while let Some(chunk) = resp
                .chunk()
                .await
                .map_err(|e| e.without_url().to_string())?
            {
                buf.push_str(&String::from_utf8_lossy(&chunk));
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
                            last.get_or_insert(from);
                            feed.status
                                .send_replace(Upstream::Live(last.unwrap_or(from)));
                        }
                        "event" => {
                            if let Ok(e) = serde_json::from_str::<ProjectEvent>(&data) {
                                last = Some(e.seq);
                                let _ = feed.tx.send(Item::Event(Arc::new(e)));
                            }
                        }
                        _ => {}
                    }
                }
            }
            Err("the controller ended the stream".to_string())
        };
        let result = tokio::select! {
            r = attempt => r,
            _ = &mut stop => return,
            _ = nobody_listens(&feed) => return,
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
        if lock(&feed.tokens).is_empty() {
            return;
        }
    }
}

/// The polling fallback (a Kubernikus without the stream extension): each kluster's events
/// every few seconds; a changed count or timestamp is a new change. Sequence numbers are
/// local to this process.
async fn poll(
    hub: &Hub,
    feed: &Feed,
    token: &keystone::TokenSecret,
    last: &mut Option<i64>,
) -> Result<(), String> {
    // (kluster, type, reason, message) → (id, count, last timestamp) of what was passed on.
    type Key = (String, String, String, String);
    let mut seen: HashMap<Key, (i64, i64, String)> = HashMap::new();
    let mut seq = last.unwrap_or(0);
    let mut first = true;
    loop {
        let failed = |e: AppError| e.to_string();
        let klusters: Vec<kluster::Kluster> = hub
            .api
            .get(token, "/api/v1/clusters")
            .await
            .map_err(failed)?;
        for k in klusters {
            let path = format!("/api/v1/clusters/{}/events", percent_encode(&k.name));
            let events: Vec<kluster::Event> = hub.api.get(token, &path).await.map_err(failed)?;
            for e in events {
                let key = (
                    k.name.clone(),
                    e.kind.clone(),
                    e.reason.clone(),
                    e.message.clone(),
                );
                // An aggregated repeat (new count or time) keeps its event's id.
                let id = match seen.get(&key) {
                    Some((_, count, ts)) if *count == e.count && *ts == e.last_timestamp => {
                        continue
                    }
                    Some((id, ..)) => *id,
                    None => seen.len() as i64 + 1,
                };
                seen.insert(key, (id, e.count, e.last_timestamp.clone()));
                if first {
                    continue; // what exists at start is history, not news
                }
                seq += 1;
                *last = Some(seq);
                let _ = feed.tx.send(Item::Changed(k.name.as_str().into()));
                let _ = feed.tx.send(Item::Event(Arc::new(ProjectEvent {
                    id,
                    seq,
                    kluster: k.name.clone(),
                    event: e,
                })));
            }
        }
        if first {
            feed.status.send_replace(Upstream::Live(seq));
            first = false;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// What the stream route needs.
#[derive(Clone, Debug)]
pub struct LiveState {
    /// The fan-out.
    pub hub: Arc<Hub>,
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

fn sse_event(e: &ProjectEvent) -> SseEvent {
    SseEvent::default()
        .id(e.seq.to_string())
        .event("kluster-event")
        .data(serde_json::to_string(e).unwrap_or_default())
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
        Ok(None) | Err(_) => {
            return (StatusCode::UNAUTHORIZED, "Please sign in.").into_response();
        }
    };
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .or(q.after);
    // The feed is shared by the project's browsers: each one must itself be allowed to read
    // the project's events (the controller's policy decides, with the browser's token).
    match st.hub.may_read(&rec.token).await {
        Err(AppError::SessionExpired) => {
            return (StatusCode::UNAUTHORIZED, "Your session has ended. Please sign in again.")
                .into_response()
        }
        Err(AppError::Forbidden(_)) => {
            return (
                StatusCode::FORBIDDEN,
                "You are not allowed to see this project's events (that needs the kubernetes_member or kubernetes_admin role).",
            )
                .into_response()
        }
        // Ok, or the controller is away: the stream opens and says it is paused.
        _ => {}
    }
    let sub = st.hub.subscribe(&rec.project_id, rec.token.clone());
    let mut rx = sub.feed.tx.subscribe();
    let mut status = sub.feed.status.subscribe();
    let stop = st.hub.stop.signal();
    let kluster = q.kluster.clone();
    tracing::info!(
        project = rec.project_id,
        user = rec.user_name,
        resume,
        "live stream opened"
    );

    let events = async_stream(move |tx: tokio::sync::mpsc::Sender<SseEvent>| async move {
        let _sub = sub; // unsubscribes when the stream ends
        let send = |e: SseEvent| tx.send(e);
        let wanted = |e: &ProjectEvent| kluster.as_deref().is_none_or(|k| e.kluster == k);
        // Wait until the upstream is live, then catch up from where the browser was.
        let mut last = resume.unwrap_or(i64::MIN);
        loop {
            let s = *status.borrow_and_update();
            match s {
                Upstream::Live(from) => {
                    if last == i64::MIN {
                        last = from;
                    }
                    if send(SseEvent::default().event("live").data(last.to_string()))
                        .await
                        .is_err()
                    {
                        return;
                    }
                    break;
                }
                Upstream::Paused => {
                    if send(SseEvent::default().event("paused").data(""))
                        .await
                        .is_err()
                    {
                        return;
                    }
                }
                Upstream::Connecting => {}
            }
            if status.changed().await.is_err() {
                return;
            }
        }
        if resume.is_some() {
            match st.hub.replay(&rec.token, kluster.as_deref(), last).await {
                Ok(missed) => {
                    for e in missed.iter().filter(|e| wanted(e)) {
                        last = last.max(e.seq);
                        if send(sse_event(e)).await.is_err() {
                            return;
                        }
                    }
                }
                Err(AppError::SessionExpired) => {
                    let _ = send(session_ended()).await;
                    return;
                }
                Err(_) => {}
            }
        }
        // As often as sessions are re-checked with Keystone, at least every 30 s.
        let every = st
            .app
            .revalidate_after
            .clamp(Duration::from_secs(1), SESSION_CHECK);
        let mut check = tokio::time::interval(every);
        check.tick().await;
        let stop = stop;
        tokio::pin!(stop);
        loop {
            tokio::select! {
                r = rx.recv() => match r {
                    Ok(Item::Changed(name)) => {
                        if kluster.as_deref().is_none_or(|k| name.is_empty() || *k == *name) {
                            let hint = SseEvent::default().event("kluster-changed").data(&*name);
                            if send(hint).await.is_err() {
                                return;
                            }
                        }
                    }
                    Ok(Item::Event(e)) => {
                        if e.seq > last && wanted(&e) {
                            last = e.seq;
                            if send(sse_event(&e)).await.is_err() {
                                return;
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "a browser fell behind the live feed; resyncing it");
                        if send(SseEvent::default().event("resync").data(last.to_string())).await.is_err() {
                            return;
                        }
                        if let Ok(missed) = st.hub.replay(&rec.token, kluster.as_deref(), last).await {
                            for e in missed.iter().filter(|e| wanted(e)) {
                                last = last.max(e.seq);
                                if send(sse_event(e)).await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                changed = status.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    let s = *status.borrow_and_update();
                    let note = match s {
                        Upstream::Paused => SseEvent::default().event("paused").data(""),
                        Upstream::Live(_) => SseEvent::default().event("live").data(last.to_string()),
                        Upstream::Connecting => continue,
                    };
                    if send(note).await.is_err() {
                        return;
                    }
                }
                _ = check.tick() => {
                    if !st.hub.still_valid(&rec, &st.app).await {
                        let _ = send(session_ended()).await;
                        return;
                    }
                }
                _ = &mut stop => return,
                _ = tx.closed() => return,
            }
        }
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
    h.insert("cache-control", HeaderValue::from_static("no-cache"));
    resp
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
    F: FnOnce(tokio::sync::mpsc::Sender<SseEvent>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    tokio::spawn(f(tx));
    stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|e| (e, rx)) })
}
