//! Sign-in throttling. An attempt is reserved before Keystone is asked, so parallel guesses
//! count at once. Per client address (IPv6 per /64): a hard limit of failures in a sliding
//! window. Per user name: a few free failures, then a delay that doubles with every further
//! failure (up to the window) — except for a client that has signed in as that user
//! before, so a stranger's guesses cannot lock the real user out.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Limits for [`LoginLimiter`].
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
const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 3600);
/// Entries kept per map before stale ones are dropped (a spray of random names or
/// addresses cannot grow memory without bound).
const MAX_ENTRIES: usize = 100_000;

#[derive(Debug, Default)]
struct Counter {
    failures: VecDeque<Instant>,
    pending: usize,
}

impl Counter {
    fn prune(&mut self, now: Instant, window: Duration) {
        while self
            .failures
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            self.failures.pop_front();
        }
    }

    fn load(&self) -> usize {
        self.failures.len() + self.pending
    }

    fn idle(&self, now: Instant, window: Duration) -> bool {
        self.pending == 0
            && self
                .failures
                .back()
                .is_none_or(|t| now.duration_since(*t) >= window)
    }
}

#[derive(Debug, Default)]
struct State {
    clients: HashMap<String, Counter>,
    users: HashMap<String, Counter>,
    /// (client, user) → last successful sign-in.
    known: HashMap<(String, String), Instant>,
}

/// Counts sign-in attempts per client address and per user name.
#[derive(Debug)]
pub struct LoginLimiter {
    limits: RateLimits,
    state: Arc<Mutex<State>>,
}

/// A reserved sign-in attempt. Report its outcome with [`Attempt::succeeded`] or
/// [`Attempt::failed`]; dropped without either (Keystone could not answer), it counts as
/// nothing.
#[derive(Debug)]
pub struct Attempt {
    state: Arc<Mutex<State>>,
    client: String,
    user: String,
    done: bool,
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

fn lock(m: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl LoginLimiter {
    /// A limiter with the given limits.
    pub fn new(limits: RateLimits) -> Self {
        Self {
            limits,
            state: Arc::default(),
        }
    }

    /// Reserves an attempt of `user` (domain/name) from `client` (see [`client_key`]) at
    /// `now`, or `Err(seconds to wait)`.
    pub fn begin(&self, client: &str, user: &str, now: Instant) -> Result<Attempt, u64> {
        let user = user.to_lowercase();
        let window = self.limits.window;
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        if st.clients.len() > MAX_ENTRIES {
            st.clients.retain(|_, c| !c.idle(now, window));
        }
        if st.users.len() > MAX_ENTRIES {
            st.users.retain(|_, c| !c.idle(now, window));
        }
        if st.known.len() > MAX_ENTRIES {
            st.known.retain(|_, at| now.duration_since(*at) < KNOWN_FOR);
        }
        let known = st
            .known
            .get(&(client.to_string(), user.clone()))
            .is_some_and(|at| now.duration_since(*at) < KNOWN_FOR);
        let c = st.clients.entry(client.to_string()).or_default();
        c.prune(now, window);
        if c.load() >= self.limits.per_client {
            let left = c
                .failures
                .front()
                .map_or(window, |t| window.saturating_sub(now.duration_since(*t)));
            return Err(left.as_secs().max(1));
        }
        let u = st.users.entry(user.clone()).or_default();
        u.prune(now, window);
        if !known {
            if let Some(wait) = self.user_delay(u, now) {
                return Err(wait.as_secs().max(1));
            }
        }
        u.pending += 1;
        if let Some(c) = st.clients.get_mut(client) {
            c.pending += 1;
        }
        Ok(Attempt {
            state: self.state.clone(),
            client: client.to_string(),
            user,
            done: false,
        })
    }

    /// The wait before the next attempt for a user with this record: none for the first
    /// `per_user` attempts in the window, then 1 s doubling per further attempt (counted
    /// from the last failure), at most the window.
    fn user_delay(&self, u: &Counter, now: Instant) -> Option<Duration> {
        let over = u.load().checked_sub(self.limits.per_user)?;
        let delay = Duration::from_secs(1u64 << over.min(20)).min(self.limits.window);
        let since = u
            .failures
            .back()
            .map_or(Duration::ZERO, |t| now.duration_since(*t));
        if u.pending > 0 || since < delay {
            Some(delay.saturating_sub(since).max(Duration::from_secs(1)))
        } else {
            None
        }
    }
}

impl Attempt {
    fn finish(&mut self, failed_at: Option<Instant>) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let mut guard = lock(&self.state);
        let st = &mut *guard;
        for counter in [
            st.clients.get_mut(&self.client),
            st.users.get_mut(&self.user),
        ]
        .into_iter()
        .flatten()
        {
            counter.pending = counter.pending.saturating_sub(1);
        }
        if let Some(at) = failed_at {
            for counter in [
                st.clients.get_mut(&self.client),
                st.users.get_mut(&self.user),
            ]
            .into_iter()
            .flatten()
            {
                counter.failures.push_back(at);
            }
        }
    }

    /// Keystone accepted the password: the client becomes known for this user.
    pub fn succeeded(mut self, now: Instant) {
        self.finish(None);
        lock(&self.state)
            .known
            .insert((self.client.clone(), self.user.clone()), now);
    }

    /// Keystone rejected the password: a failure for the client and the user.
    pub fn failed(mut self, now: Instant) {
        self.finish(Some(now));
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        self.finish(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter() -> LoginLimiter {
        LoginLimiter::new(RateLimits {
            per_user: 3,
            per_client: 5,
            window: Duration::from_secs(60),
        })
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    #[test]
    fn parallel_attempts_are_counted_before_keystone_answers() {
        let l = limiter();
        let t0 = Instant::now();
        let held: Vec<Attempt> = (0..3)
            .map(|i| l.begin(&format!("10.0.0.{i}"), "alice", t0).unwrap())
            .collect();
        assert!(
            l.begin("10.0.0.9", "alice", t0).is_err(),
            "a fourth guess in flight is refused"
        );
        drop(held); // Keystone could not answer: nothing counted
        assert!(l.begin("10.0.0.9", "alice", t0).is_ok());
    }

    #[test]
    fn user_delays_grow_per_failure_and_end_with_the_window() {
        let l = limiter();
        let t0 = Instant::now();
        for i in 0..3 {
            l.begin(&format!("10.0.0.{i}"), "Alice", t0)
                .unwrap()
                .failed(t0);
        }
        assert_eq!(l.begin("10.0.0.9", "alice", t0).unwrap_err(), 1);
        l.begin("10.0.0.9", "alice", t0 + secs(1))
            .unwrap()
            .failed(t0 + secs(1));
        assert_eq!(l.begin("10.0.0.9", "alice", t0 + secs(2)).unwrap_err(), 1);
        l.begin("10.0.0.9", "alice", t0 + secs(3))
            .unwrap()
            .failed(t0 + secs(3));
        assert_eq!(l.begin("10.0.0.8", "alice", t0 + secs(4)).unwrap_err(), 3);
        assert!(
            l.begin("10.0.0.8", "bob", t0).is_ok(),
            "others are not slowed"
        );
        assert!(l.begin("10.0.0.8", "alice", t0 + secs(64)).is_ok());
    }

    #[test]
    fn a_client_that_signed_in_before_is_not_locked_out_by_strangers() {
        let l = limiter();
        let t0 = Instant::now();
        l.begin("198.51.100.1", "alice", t0).unwrap().succeeded(t0);
        for i in 0..6 {
            if let Ok(a) = l.begin(&format!("203.0.113.{i}"), "alice", t0) {
                a.failed(t0);
            }
        }
        assert!(l.begin("203.0.113.99", "alice", t0).is_err());
        assert!(l.begin("198.51.100.1", "alice", t0).is_ok());
    }

    #[test]
    fn client_is_blocked_across_user_names() {
        let l = limiter();
        let t0 = Instant::now();
        for u in ["a", "b", "c", "d", "e"] {
            l.begin("9.9.9.9", u, t0).unwrap().failed(t0);
        }
        assert_eq!(l.begin("9.9.9.9", "fresh", t0 + secs(10)).unwrap_err(), 50);
        assert!(l.begin("8.8.8.8", "fresh", t0).is_ok());
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
