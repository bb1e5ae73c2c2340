//! [`MemoryLog`]: sign-in attempts counted in this process's memory (one replica), bounded
//! so that a spray of random names or addresses cannot grow it without end.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use super::{verdict, AttemptLog, Load, Outcome, RateLimits, KNOWN_FOR};

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
    clock: crate::ssr::Clock,
}

impl MemoryLog {
    /// A log on `clock`.
    pub fn with_clock(clock: crate::ssr::Clock) -> Self {
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
