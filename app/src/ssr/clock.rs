//! The dashboard's time source: the real clock, or a manual one that tests move forward
//! (session expiry, token re-checks, sign-in limits), so no test sleeps for them.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use time::OffsetDateTime;

/// Real time, or manual time that moves only with [`Clock::advance`].
#[derive(Clone, Debug, Default)]
pub struct Clock(Option<Arc<Manual>>);

#[derive(Debug)]
struct Manual {
    instant: Instant,
    utc: OffsetDateTime,
    offset: Mutex<Duration>,
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
            utc: OffsetDateTime::now_utc(),
            offset: Mutex::new(Duration::ZERO),
        })))
    }

    fn offset(m: &Manual) -> Duration {
        *m.offset.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Monotonic now.
    pub fn instant(&self) -> Instant {
        match &self.0 {
            None => Instant::now(),
            Some(m) => m.instant + Self::offset(m),
        }
    }

    /// Wall-clock now (UTC).
    pub fn now_utc(&self) -> OffsetDateTime {
        match &self.0 {
            None => OffsetDateTime::now_utc(),
            Some(m) => m.utc + Self::offset(m),
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
        let (i, u) = (c.instant(), c.now_utc());
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(c.instant(), i);
        c.advance(Duration::from_secs(90));
        assert_eq!(c.since(i), Duration::from_secs(90));
        assert_eq!(c.now_utc() - u, time::Duration::seconds(90));
        assert!(Clock::real().instant() > i);
    }
}
