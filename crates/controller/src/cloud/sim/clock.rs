//! Where the simulation's time comes from: the wall clock, or a manual one tests advance.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::lock;

/// Where the simulation's time comes from.
#[derive(Clone, Debug)]
pub enum Clock {
    /// Wall-clock time (since the Unix epoch, so a saved simulation resumes correctly).
    Real,
    /// Time that moves only when a test advances it.
    Manual(Arc<Mutex<Duration>>),
}

impl Clock {
    /// Wall-clock time.
    pub fn real() -> Clock {
        Clock::Real
    }

    /// A manual clock at zero.
    pub fn manual() -> Clock {
        Clock::Manual(Arc::new(Mutex::new(Duration::ZERO)))
    }

    /// Time since the start.
    pub fn now(&self) -> Duration {
        match self {
            Clock::Real => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default(),
            Clock::Manual(t) => *lock(t),
        }
    }

    /// Moves a manual clock forward (no effect on a real one).
    pub fn advance(&self, by: Duration) {
        if let Clock::Manual(t) = self {
            *lock(t) += by;
        }
    }
}
