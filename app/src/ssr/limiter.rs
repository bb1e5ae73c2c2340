//! Sign-in throttling. An attempt is reserved before Keystone is asked, so parallel guesses
//! count at once. Per client address (IPv6 per /64): a hard limit of failures in a sliding
//! window. Per user name: a few free failures, then a delay that doubles with every further
//! failure (up to the window) — except for a client that has signed in as that user
//! before, so a stranger's guesses cannot lock the real user out.
//!
//! The decision is [`verdict`], a pure function of what an [`AttemptLog`] remembers; the log
//! lives in this process ([`MemoryLog`]) or, for several replicas, in the shared database.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;

/// Limits for the sign-in limiter.
#[derive(Clone, Copy, Debug)]
pub struct RateLimits {
    /// Failed sign-ins per user name within `window` before delays start.
    pub per_user: usize,
    /// Failed sign-ins allowed per client address within `window`.
    pub per_client: usize,
    /// Length of the sliding window (also the longest per-user delay).
    pub window: Duration,
}

/// How long a successful sign-in makes a client "known" for that user.
pub const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

/// What a log remembers of one key (a client or a user) within the window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Load {
    /// How long ago each failure was, oldest first.
    pub failures_ago: Vec<Duration>,
    /// Attempts reserved and not yet answered.
    pub pending: usize,
}

impl Load {
    fn count(&self) -> usize {
        self.failures_ago.len() + self.pending
    }
}

/// Whether an attempt may go ahead now; `Err(seconds to wait)` if not. `known`: the client
/// has signed in as this user before (no per-user delay for it).
pub fn verdict(limits: &RateLimits, client: &Load, user: &Load, known: bool) -> Result<(), u64> {
    let window = limits.window;
    if client.count() >= limits.per_client {
        let oldest = client.failures_ago.first().copied().unwrap_or_default();
        return Err(window.saturating_sub(oldest).as_secs().max(1));
    }
    if known {
        return Ok(());
    }
    let Some(over) = user.count().checked_sub(limits.per_user) else {
        return Ok(());
    };
    // 1 s, doubling per attempt past the free ones, counted from the last failure.
    let delay = Duration::from_secs(1u64 << over.min(20)).min(window);
    let since = user.failures_ago.last().copied().unwrap_or_default();
    if user.pending > 0 || since < delay {
        Err(delay.saturating_sub(since).as_secs().max(1))
    } else {
        Ok(())
    }
}

/// How an attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Keystone accepted the password.
    Succeeded,
    /// Keystone rejected it.
    Failed,
    /// No answer (Keystone unavailable): counts as nothing.
    Dropped,
}

/// Where attempts are counted. Implementations make `reserve` atomic: two replicas (or two
/// requests) never both pass on the last free attempt.
#[async_trait]
pub trait AttemptLog: Send + Sync + std::fmt::Debug + 'static {
    /// Reserves an attempt of `user` from `client` unless [`verdict`] refuses it:
    /// `Ok(Ok(id))`, `Ok(Err(seconds to wait))`, or `Err` when the log cannot be reached.
    async fn reserve(
        &self,
        limits: &RateLimits,
        client: &str,
        user: &str,
    ) -> Result<Result<u64, u64>, String>;

    /// Records how reserved attempt `id` ended.
    async fn resolve(&self, id: u64, client: &str, user: &str, outcome: Outcome);
}

/// The sign-in limiter: limits and the log that counts.
#[derive(Clone, Debug)]
pub struct LoginLimiter {
    limits: RateLimits,
    log: Arc<dyn AttemptLog>,
}

/// A reserved sign-in attempt. Report its outcome with [`Attempt::succeeded`] or
/// [`Attempt::failed`]; dropped without either (Keystone could not answer), it counts as
/// nothing.
#[derive(Debug)]
pub struct Attempt {
    log: Arc<dyn AttemptLog>,
    id: u64,
    client: String,
    user: String,
    done: bool,
}

/// Why an attempt cannot be made now.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// Too many attempts: wait this many seconds.
    Wait(u64),
    /// The shared log cannot be reached.
    Unavailable(String),
}

impl LoginLimiter {
    /// A limiter counting in `log`.
    pub fn new(limits: RateLimits, log: Arc<dyn AttemptLog>) -> Self {
        Self { limits, log }
    }

    /// A limiter counting in this process's memory (one replica).
    pub fn in_memory(limits: RateLimits) -> Self {
        Self::new(limits, Arc::new(MemoryLog::default()))
    }

    /// Reserves an attempt of `user` (domain/name, any case) from `client` (see
    /// [`client_key`]).
    pub async fn begin(&self, client: &str, user: &str) -> Result<Attempt, Refused> {
        let user = user.to_lowercase();
        match self.log.reserve(&self.limits, client, &user).await {
            Ok(Ok(id)) => Ok(Attempt {
                log: self.log.clone(),
                id,
                client: client.to_string(),
                user,
                done: false,
            }),
            Ok(Err(wait)) => Err(Refused::Wait(wait)),
            Err(e) => Err(Refused::Unavailable(e)),
        }
    }
}

impl Attempt {
    async fn finish(mut self, outcome: Outcome) {
        self.done = true;
        self.log
            .resolve(self.id, &self.client, &self.user, outcome)
            .await;
    }

    /// Keystone accepted the password: the client becomes known for this user.
    pub async fn succeeded(self) {
        self.finish(Outcome::Succeeded).await
    }

    /// Keystone rejected the password: a failure for the client and the user.
    pub async fn failed(self) {
        self.finish(Outcome::Failed).await
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let (log, id) = (self.log.clone(), self.id);
        let (client, user) = (
            std::mem::take(&mut self.client),
            std::mem::take(&mut self.user),
        );
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move { log.resolve(id, &client, &user, Outcome::Dropped).await });
        }
    }
}

/// The key of a client address: IPv4 as is, IPv6 by its /64 (one subscriber's prefix).
pub fn client_key(addr: &IpAddr) -> String {
    match addr {
        IpAddr::V4(a) => a.to_string(),
        IpAddr::V6(a) => match a.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = a.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// Entries kept per map before stale ones are dropped (a spray of random names or
/// addresses cannot grow memory without bound).
const MAX_ENTRIES: usize = 100_000;

#[derive(Debug, Default)]
struct Counter {
    failures: VecDeque<Instant>,
    pending: usize,
}

impl Counter {
    fn load(&mut self, now: Instant, window: Duration) -> Load {
        while self
            .failures
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            self.failures.pop_front();
        }
        Load {
            failures_ago: self
                .failures
                .iter()
                .map(|t| now.duration_since(*t))
                .collect(),
            pending: self.pending,
        }
    }
}

#[derive(Debug, Default)]
struct Memory {
    clients: HashMap<String, Counter>,
    users: HashMap<String, Counter>,
    /// (client, user) → last successful sign-in.
    known: HashMap<(String, String), Instant>,
}

/// Attempts counted in this process (one replica; the SQLite and memory modes).
#[derive(Debug, Default)]
pub struct MemoryLog {
    state: Mutex<Memory>,
    /// The time source (tests move it).
    clock: crate::ssr::clock::Clock,
}

impl MemoryLog {
    /// A log on `clock`.
    pub fn with_clock(clock: crate::ssr::clock::Clock) -> Self {
        Self {
            state: Mutex::default(),
            clock,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl AttemptLog for MemoryLog {
    async fn reserve(
        &self,
        limits: &RateLimits,
        client: &str,
        user: &str,
    ) -> Result<Result<u64, u64>, String> {
        let now = self.clock.instant();
        let window = limits.window;
        let mut guard = self.lock();
        let m = &mut *guard;
        let idle = |c: &Counter| {
            c.pending == 0
                && c.failures
                    .back()
                    .is_none_or(|t| now.duration_since(*t) >= window)
        };
        if m.clients.len() > MAX_ENTRIES {
            m.clients.retain(|_, c| !idle(c));
        }
        if m.users.len() > MAX_ENTRIES {
            m.users.retain(|_, c| !idle(c));
        }
        if m.known.len() > MAX_ENTRIES {
            m.known.retain(|_, at| now.duration_since(*at) < KNOWN_FOR);
        }
        let known = m
            .known
            .get(&(client.to_string(), user.to_string()))
            .is_some_and(|at| now.duration_since(*at) < KNOWN_FOR);
        let c = m.clients.entry(client.to_string()).or_default();
        let client_load = c.load(now, window);
        let u = m.users.entry(user.to_string()).or_default();
        let user_load = u.load(now, window);
        if let Err(wait) = verdict(limits, &client_load, &user_load, known) {
            return Ok(Err(wait));
        }
        u.pending += 1;
        if let Some(c) = m.clients.get_mut(client) {
            c.pending += 1;
        }
        Ok(Ok(0))
    }

    async fn resolve(&self, _id: u64, client: &str, user: &str, outcome: Outcome) {
        let now = self.clock.instant();
        let mut guard = self.lock();
        let m = &mut *guard;
        for counter in [m.clients.get_mut(client), m.users.get_mut(user)]
            .into_iter()
            .flatten()
        {
            counter.pending = counter.pending.saturating_sub(1);
            if outcome == Outcome::Failed {
                counter.failures.push_back(now);
            }
        }
        if outcome == Outcome::Succeeded {
            m.known.insert((client.to_string(), user.to_string()), now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssr::clock::Clock;

    fn limiter() -> (LoginLimiter, Clock) {
        let clock = Clock::manual();
        let limits = RateLimits {
            per_user: 3,
            per_client: 5,
            window: Duration::from_secs(60),
        };
        let log = Arc::new(MemoryLog::with_clock(clock.clone()));
        (LoginLimiter::new(limits, log), clock)
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    #[tokio::test]
    async fn parallel_attempts_are_counted_before_keystone_answers() {
        let (l, _) = limiter();
        let mut held = Vec::new();
        for i in 0..3 {
            held.push(l.begin(&format!("10.0.0.{i}"), "alice").await.unwrap());
        }
        assert_eq!(
            l.begin("10.0.0.9", "alice").await.unwrap_err(),
            Refused::Wait(1),
            "a fourth guess in flight is refused"
        );
        for a in held {
            a.finish(Outcome::Dropped).await; // Keystone could not answer: nothing counted
        }
        assert!(l.begin("10.0.0.9", "alice").await.is_ok());
    }

    #[tokio::test]
    async fn user_delays_grow_per_failure_and_end_with_the_window() {
        let (l, clock) = limiter();
        for i in 0..3 {
            l.begin(&format!("10.0.0.{i}"), "Alice")
                .await
                .unwrap()
                .failed()
                .await;
        }
        assert_eq!(
            l.begin("10.0.0.9", "alice").await.unwrap_err(),
            Refused::Wait(1)
        );
        clock.advance(secs(1));
        l.begin("10.0.0.9", "alice").await.unwrap().failed().await;
        clock.advance(secs(1));
        assert_eq!(
            l.begin("10.0.0.9", "alice").await.unwrap_err(),
            Refused::Wait(1)
        );
        clock.advance(secs(1));
        l.begin("10.0.0.9", "alice").await.unwrap().failed().await;
        clock.advance(secs(1));
        assert_eq!(
            l.begin("10.0.0.8", "alice").await.unwrap_err(),
            Refused::Wait(3)
        );
        assert!(
            l.begin("10.0.0.8", "bob").await.is_ok(),
            "others are not slowed"
        );
        clock.advance(secs(60));
        assert!(l.begin("10.0.0.8", "alice").await.is_ok());
    }

    #[tokio::test]
    async fn a_client_that_signed_in_before_is_not_locked_out_by_strangers() {
        let (l, _) = limiter();
        l.begin("198.51.100.1", "alice")
            .await
            .unwrap()
            .succeeded()
            .await;
        for i in 0..6 {
            if let Ok(a) = l.begin(&format!("203.0.113.{i}"), "alice").await {
                a.failed().await;
            }
        }
        assert!(l.begin("203.0.113.99", "alice").await.is_err());
        assert!(l.begin("198.51.100.1", "alice").await.is_ok());
    }

    #[tokio::test]
    async fn client_is_blocked_across_user_names() {
        let (l, clock) = limiter();
        for u in ["a", "b", "c", "d", "e"] {
            l.begin("9.9.9.9", u).await.unwrap().failed().await;
        }
        clock.advance(secs(10));
        assert_eq!(
            l.begin("9.9.9.9", "fresh").await.unwrap_err(),
            Refused::Wait(50)
        );
        assert!(l.begin("8.8.8.8", "fresh").await.is_ok());
    }

    #[test]
    fn ipv6_clients_count_per_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(&a), client_key(&b));
        assert_ne!(client_key(&a), client_key(&c));
        let v4: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(client_key(&v4), "192.0.2.1");
    }
}
