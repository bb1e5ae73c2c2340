//! The fan-out: one feed per project with at least one browser, the access checks a browser
//! passes before and while it listens, the replay of what a browser missed, and the bound
//! on streams per session and per user.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use kluster::ProjectEvent;
use tokio::sync::{broadcast, watch};

use app::error::AppError;
use app::ssr::ControllerClient;

/// Events buffered per project for slow browsers before they are told to resync.
const BUFFER: usize = 1024;
/// Page size of a replay.
const PAGE: usize = 500;
/// Most events replayed to one browser; one that missed more is told to resync.
pub const REPLAY_CAP: usize = 2_000;

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
pub enum Item {
    /// An event (new or aggregated).
    Event(Arc<ProjectEvent>),
    /// A kluster's stored state changed (empty name: any may have).
    Changed(Arc<str>),
}

/// One project's feed.
pub struct Feed {
    /// The fan-out channel.
    pub tx: broadcast::Sender<Item>,
    /// Whether the upstream delivers.
    pub status: watch::Sender<Upstream>,
    /// The newest sequence number passed on.
    pub latest: AtomicI64,
    /// Tokens of the browsers subscribed, by client id; the upstream uses one of them.
    tokens: Mutex<HashMap<u64, keystone::TokenSecret>>,
    /// Hashes of tokens the controller refused for the upstream: never tried again.
    refused: Mutex<HashSet<u64>>,
}

impl Feed {
    /// A token to subscribe upstream with: one of a listening browser's that the controller
    /// has not refused; `None` when nobody listens or every token was refused.
    pub fn token(&self) -> Option<keystone::TokenSecret> {
        let refused = lock(&self.refused).clone();
        lock(&self.tokens)
            .values()
            .find(|t| !refused.contains(&token_hash(t)))
            .cloned()
    }

    /// The controller answered 401/403 for `token`: use another browser's from now on.
    pub fn refuse(&self, token: &keystone::TokenSecret) {
        lock(&self.refused).insert(token_hash(token));
    }

    /// Whether any browser still listens.
    pub fn has_listeners(&self) -> bool {
        !lock(&self.tokens).is_empty()
    }
}

/// A token's key in maps (a hash: the token itself is never kept as a key or logged).
pub fn token_hash(t: &keystone::TokenSecret) -> u64 {
    secret_hash(t.expose())
}

/// A secret's key in maps (session ids and tokens are never kept as keys or logged).
pub fn secret_hash(s: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// When the controller answered about a token, and what.
type Verdict = (Instant, Result<(), AppError>);

/// The fan-out: one feed per project with at least one browser.
pub struct Hub {
    /// The dashboard's client of the controller (its JSON API and its event stream).
    pub(super) api: ControllerClient,
    feeds: Mutex<HashMap<String, Arc<Feed>>>,
    next_client: AtomicU64,
    /// The controller's recent answers to "may this token read the project's events?".
    access: Mutex<HashMap<u64, Verdict>>,
    /// Open streams per session and per user.
    open: Mutex<HashMap<String, usize>>,
    /// Most streams per session and per user.
    pub(super) max_streams: usize,
    /// Poll interval against a Kubernikus without the event stream.
    pub(super) poll_every: Duration,
    pub(super) stop: serving::shutdown::Shutdown,
    /// Starts a project's upstream feed (the live module's `upstream::run`, spawned).
    start: Starter,
}

/// What starts a project's upstream for the hub: given the hub, the project and its feed.
pub type Starter = fn(Arc<Hub>, String, Arc<Feed>);

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("controller", &self.api.base())
            .finish_non_exhaustive()
    }
}

/// A browser's subscription; dropping it unsubscribes.
pub struct Subscription {
    hub: Arc<Hub>,
    project: String,
    client: u64,
    /// The project's feed.
    pub feed: Arc<Feed>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        lock(&self.feed.tokens).remove(&self.client);
        let mut feeds = lock(&self.hub.feeds);
        let ours = feeds
            .get(&self.project)
            .is_some_and(|f| Arc::ptr_eq(f, &self.feed));
        if ours && !self.feed.has_listeners() {
            feeds.remove(&self.project);
        }
    }
}

/// A held stream slot of a session and a user; dropping it frees both.
pub struct StreamSlot {
    hub: Arc<Hub>,
    keys: [String; 2],
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = lock(&self.hub.open);
        for k in &self.keys {
            if let Some(n) = open.get_mut(k) {
                *n -= 1;
                if *n == 0 {
                    open.remove(k);
                }
            }
        }
    }
}

impl Hub {
    /// A hub for the controller read through `api`; a session and a user may hold
    /// `max_streams` streams; a Kubernikus without the event stream is polled every
    /// `poll_every`; streams end on `stop`.
    pub fn new(
        api: ControllerClient,
        max_streams: usize,
        poll_every: Duration,
        stop: serving::shutdown::Shutdown,
        start: Starter,
    ) -> Arc<Hub> {
        Arc::new(Hub {
            api,
            feeds: Mutex::default(),
            next_client: AtomicU64::new(0),
            access: Mutex::default(),
            open: Mutex::default(),
            max_streams,
            poll_every,
            stop,
            start,
        })
    }

    /// Open browser streams, and upstream feeds by state (`live`, `connecting`, `paused`),
    /// for the metrics.
    pub fn counts(&self) -> (usize, [(&'static str, usize); 3]) {
        let streams = lock(&self.open)
            .iter()
            .filter(|(k, _)| k.starts_with("session:"))
            .map(|(_, n)| *n)
            .sum();
        let mut states = [("live", 0), ("connecting", 0), ("paused", 0)];
        for f in lock(&self.feeds).values() {
            let i = match *f.status.borrow() {
                Upstream::Live(_) => 0,
                Upstream::Connecting => 1,
                Upstream::Paused => 2,
            };
            states[i].1 += 1;
        }
        (streams, states)
    }

    /// Takes a stream slot for `session` and `user`, or `None` when either holds
    /// `max_streams` already.
    pub fn open_slot(self: &Arc<Hub>, session: &str, user: &str) -> Option<StreamSlot> {
        let keys = [format!("session:{session}"), format!("user:{user}")];
        let mut open = lock(&self.open);
        if keys
            .iter()
            .any(|k| open.get(k).copied().unwrap_or(0) >= self.max_streams)
        {
            return None;
        }
        for k in &keys {
            *open.entry(k.clone()).or_default() += 1;
        }
        Some(StreamSlot {
            hub: self.clone(),
            keys,
        })
    }

    /// Joins the project's feed (starting its upstream if it is the first browser).
    pub fn subscribe(self: &Arc<Hub>, project: &str, token: keystone::TokenSecret) -> Subscription {
        let client = self.next_client.fetch_add(1, Ordering::Relaxed);
        let mut feeds = lock(&self.feeds);
        let feed = match feeds.get(project) {
            Some(f) => f.clone(),
            None => {
                let (tx, _) = broadcast::channel(BUFFER);
                let (status, _) = watch::channel(Upstream::Connecting);
                let feed = Arc::new(Feed {
                    tx,
                    status,
                    latest: AtomicI64::new(0),
                    tokens: Mutex::default(),
                    refused: Mutex::default(),
                });
                feeds.insert(project.to_string(), feed.clone());
                lock(&feed.tokens).insert(client, token.clone());
                (self.start)(self.clone(), project.to_string(), feed.clone());
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
        q: &kubernikus_client::EventsQuery,
    ) -> Result<Vec<ProjectEvent>, AppError> {
        Ok(self.api.project_events(token, q).await?)
    }

    /// Whether the controller lets `token` read the project's events (its policy decides);
    /// otherwise its answer: ended session, forbidden, or unavailable. Answers are reused
    /// for `max_age`, so many streams of one user ask once per interval.
    pub async fn may_read(
        &self,
        token: &keystone::TokenSecret,
        max_age: Duration,
    ) -> Result<(), AppError> {
        let key = token_hash(token);
        if let Some((_, verdict)) = lock(&self.access)
            .get(&key)
            .filter(|(at, _)| at.elapsed() < max_age)
        {
            return verdict.clone();
        }
        let last = kubernikus_client::EventsQuery {
            last: Some(1),
            ..Default::default()
        };
        let verdict = match self.fetch(token, &last).await {
            Ok(_) => Ok(()),
            // A Kubernikus without the extension: its cluster list has the same audience.
            Err(AppError::NotFound(_)) => {
                self.api.list(token).await.map(drop).map_err(AppError::from)
            }
            Err(e) => Err(e),
        };
        // "Unavailable" is not an answer worth keeping.
        if !matches!(verdict, Err(AppError::ControllerUnavailable)) {
            let mut access = lock(&self.access);
            if access.len() > 100_000 {
                access.retain(|_, (at, _)| at.elapsed() < max_age);
            }
            access.insert(key, (Instant::now(), verdict.clone()));
        }
        verdict
    }

    /// Every event of the project after `after`, page by page; `Ok(None)` when there are
    /// more than [`REPLAY_CAP`] (the browser should resync instead).
    pub async fn replay(
        &self,
        token: &keystone::TokenSecret,
        kluster: Option<&str>,
        after: i64,
    ) -> Result<Option<Vec<ProjectEvent>>, AppError> {
        let mut out = Vec::new();
        let mut after = after;
        loop {
            let q = kubernikus_client::EventsQuery {
                after: Some(after),
                limit: Some(PAGE),
                kluster: kluster.map(String::from),
                ..Default::default()
            };
            let page = self.fetch(token, &q).await?;
            let full = page.len() == PAGE;
            if let Some(last) = page.last() {
                after = last.seq;
            }
            out.extend(page);
            if out.len() > REPLAY_CAP {
                return Ok(None);
            }
            if !full {
                return Ok(Some(out));
            }
        }
    }
}
