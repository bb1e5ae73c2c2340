//! Sign-in throttling. An attempt is reserved before Keystone is asked, so parallel guesses
//! count at once. Per client address (IPv6 per /64): a hard limit of failures in a sliding
//! window. Per user name: a few free failures, then a delay that doubles with every further
//! failure (up to the window) — except for a client that has signed in as that user
//! before, so a stranger's guesses cannot lock the real user out.
//!
//! The decision is [`verdict`], a pure function of what an [`AttemptLog`] remembers; the log
//! lives in this process ([`MemoryLog`]) or, for several replicas, in the shared database.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

mod memory;
#[cfg(test)]
mod tests;

pub use memory::MemoryLog;

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
