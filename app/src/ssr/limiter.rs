//! Sign-in failure limiting: a sliding window per client address and per user name.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Limits for [`LoginLimiter`].
#[derive(Clone, Copy, Debug)]
pub struct RateLimits {
    /// Failed sign-ins allowed per user name within `window`.
    pub per_user: usize,
    /// Failed sign-ins allowed per client address within `window`.
    pub per_client: usize,
    /// Length of the sliding window.
    pub window: Duration,
}

/// Counts failed sign-ins; once a key is over its limit, attempts are refused until the
/// oldest failure leaves the window. Successful sign-ins are not counted.
#[derive(Debug)]
pub struct LoginLimiter {
    limits: RateLimits,
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl LoginLimiter {
    /// A limiter with the given limits.
    pub fn new(limits: RateLimits) -> Self {
        Self {
            limits,
            failures: Mutex::new(HashMap::new()),
        }
    }

    fn keys(client: &str, user: &str) -> [(String, bool); 2] {
        [
            (format!("client:{client}"), false),
            (format!("user:{}", user.to_lowercase()), true),
        ]
    }

    /// `Err(seconds to wait)` when `client` or `user` is over its limit at `now`.
    pub fn check(&self, client: &str, user: &str, now: Instant) -> Result<(), u64> {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let mut wait = 0u64;
        for (key, is_user) in Self::keys(client, user) {
            let limit = if is_user {
                self.limits.per_user
            } else {
                self.limits.per_client
            };
            if let Some(q) = map.get_mut(&key) {
                while q
                    .front()
                    .is_some_and(|t| now.duration_since(*t) >= self.limits.window)
                {
                    q.pop_front();
                }
                if q.len() >= limit {
                    if let Some(oldest) = q.front() {
                        let left = self
                            .limits
                            .window
                            .saturating_sub(now.duration_since(*oldest));
                        wait = wait.max(left.as_secs().max(1));
                    }
                }
            }
        }
        if wait > 0 {
            Err(wait)
        } else {
            Ok(())
        }
    }

    /// Records a failed sign-in of `user` from `client` at `now`.
    pub fn record_failure(&self, client: &str, user: &str, now: Instant) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > 100_000 {
            // Bound memory under a spray of random names: drop entries with no recent failure.
            let window = self.limits.window;
            map.retain(|_, q| q.back().is_some_and(|t| now.duration_since(*t) < window));
        }
        for (key, _) in Self::keys(client, user) {
            map.entry(key).or_default().push_back(now);
        }
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

    #[test]
    fn user_is_blocked_after_limit_and_released_after_window() {
        let l = limiter();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(l.check("1.2.3.4", "alice", t0).is_ok());
            l.record_failure("1.2.3.4", "alice", t0);
        }
        assert_eq!(
            l.check("1.2.3.4", "Alice", t0 + Duration::from_secs(10)),
            Err(50)
        );
        assert!(
            l.check("1.2.3.4", "bob", t0).is_ok(),
            "other users are not blocked"
        );
        assert!(l
            .check("1.2.3.4", "alice", t0 + Duration::from_secs(60))
            .is_ok());
    }

    #[test]
    fn client_is_blocked_across_user_names() {
        let l = limiter();
        let t0 = Instant::now();
        for u in ["a", "b", "c", "d", "e"] {
            l.record_failure("9.9.9.9", u, t0);
        }
        assert!(l.check("9.9.9.9", "fresh", t0).is_err());
        assert!(l.check("8.8.8.8", "fresh", t0).is_ok());
    }
}
