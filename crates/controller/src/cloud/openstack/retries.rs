//! When a call to the cloud is sent again, and after how long: a GET that failed (a
//! connection error or a 5xx) up to the configured attempts, any call the cloud rate
//! limited (429, or 503 with `Retry-After`: not processed) up to [`RATE_LIMITED_ATTEMPTS`];
//! waits grow exponentially with jitter, or are what `Retry-After` asks (at most
//! [`LONGEST_RETRY_AFTER`]).

use std::time::Duration;

/// Tries of a call the cloud keeps rate limiting (at least the configured attempts).
pub const RATE_LIMITED_ATTEMPTS: u32 = 6;

/// The longest `Retry-After` honoured; a longer one is cut to it.
pub const LONGEST_RETRY_AFTER: Duration = Duration::from_secs(30);

/// Why a try is sent again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Again {
    /// It failed (a connection error or a 5xx on a GET).
    Failed,
    /// The cloud is rate limiting (429, or 503 with `Retry-After`); not processed.
    Limited(Option<Duration>),
}

/// What a try got: a status with the `Retry-After` it carried, or no answer at all (a
/// connection error or a timeout).
pub type Answer = Option<(u16, Option<Duration>)>;

/// Whether and why a try that got `answer` is sent again (`idempotent`: a GET). A 401 is
/// handled before this.
pub(super) fn again(answer: Answer, idempotent: bool) -> Option<Again> {
    match answer {
        Some((429, after)) => Some(Again::Limited(after)),
        Some((503, Some(after))) => Some(Again::Limited(Some(after))),
        Some((500 | 502 | 503 | 504, _)) if idempotent => Some(Again::Failed),
        None if idempotent => Some(Again::Failed),
        _ => None,
    }
}

/// `Retry-After` as seconds (an HTTP date is not read: the backoff applies then).
pub fn retry_after(value: Option<&str>) -> Option<Duration> {
    let secs: f64 = value?.trim().parse().ok()?;
    Duration::try_from_secs_f64(secs).ok()
}

/// `d` scaled by a random factor in [0.5, 1): tries of many callers spread out.
pub(super) fn jitter(d: Duration) -> Duration {
    use rand_core::RngCore;
    let r = rand_core::OsRng.next_u32() as f64 / u32::MAX as f64;
    d.mul_f64(0.5 + r / 2.0)
}
