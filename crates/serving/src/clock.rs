//! The one time source of both servers: the real clock, or a manual one that tests move
//! forward (session expiry, sign-in limits, the simulated cloud's boot times), so that no
//! test sleeps for them.
//!
//! Monotonic time is tokio's (`tokio::time::Instant`): the reconcile runner, its queue of
//! due times, the reconcile lease, the token cache and the live streams' access checks read
//! it directly, and [`Clock::real`] reads it too. A test that starts tokio paused
//! (`#[tokio::test(start_paused = true)]`, tokio's `test-util`) and calls
//! `tokio::time::advance` moves all of them at once; outside a runtime it is the OS clock.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Real time, or manual time that moves only with [`Clock::advance`].
#[derive(Clone, Debug, Default)]
pub struct Clock(Option<Arc<Manual>>);

#[derive(Debug)]
struct Manual {
    instant: Instant,
    unix: Duration,
    offset: Mutex<Duration>,
}

fn unix_now() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

impl Clock {
    /// The real clock.
    pub fn real() -> Clock {
        Clock(None)
    }

    /// A manual clock starting at the current time.
    pub fn manual() -> Clock {
        Clock(Some(Arc::new(Manual {
            instant: Instant::now(),
            unix: unix_now(),
            offset: Mutex::new(Duration::ZERO),
        })))
    }

    fn offset(m: &Manual) -> Duration {
        *m.offset.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Monotonic now.
    pub fn instant(&self) -> Instant {
        match &self.0 {
            None => tokio::time::Instant::now().into_std(),
            Some(m) => m.instant + Self::offset(m),
        }
    }

    /// Wall-clock now, as time since the Unix epoch (so that saved times survive a restart).
    pub fn unix(&self) -> Duration {
        match &self.0 {
            None => unix_now(),
            Some(m) => m.unix + Self::offset(m),
        }
    }

    /// Time since `earlier` (an [`Clock::instant`] of this clock).
    pub fn since(&self, earlier: Instant) -> Duration {
        self.instant().saturating_duration_since(earlier)
    }

    /// Moves a manual clock forward (no effect on the real one).
    pub fn advance(&self, by: Duration) {
        if let Some(m) = &self.0 {
            *m.offset.lock().unwrap_or_else(|e| e.into_inner()) += by;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let c = Clock::manual();
        let (i, u) = (c.instant(), c.unix());
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!((c.instant(), c.unix()), (i, u));
        c.advance(Duration::from_secs(90));
        assert_eq!(c.since(i), Duration::from_secs(90));
        assert_eq!(c.unix() - u, Duration::from_secs(90));
        assert!(Clock::real().instant() > i);
        assert!(Clock::real().unix() >= u);
    }

    #[tokio::test(start_paused = true)]
    async fn the_real_clock_follows_tokio_paused_time() {
        let c = Clock::real();
        let i = c.instant();
        tokio::time::advance(Duration::from_secs(3600)).await;
        // An hour passes in no time: the real clock reads tokio's, which the test moved.
        assert!(c.since(i) >= Duration::from_secs(3600));
        assert!(c.since(i) < Duration::from_secs(3601));
    }
}
