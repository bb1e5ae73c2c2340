//! When a call to the cloud is sent again, and after how long: a GET that failed (a
//! connection error or a 5xx) up to the configured attempts, any call the cloud rate
//! limited (429, or 503 with `Retry-After`: not processed) up to [`RATE_LIMITED_ATTEMPTS`];
//! waits grow exponentially with jitter, or are what `Retry-After` asks (at most
//! [`LONGEST_RETRY_AFTER`]).

use std::time::Duration;

use super::http::Reply;
use crate::cloud::CloudError;

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

/// Whether and why a try that answered `result` is sent again (`idempotent`: a GET). A
/// 401 is handled before this.
pub(super) fn again(result: &Result<Reply, CloudError>, idempotent: bool) -> Option<Again> {
    match result {
        Ok(r) if r.status == 429 => Some(Again::Limited(r.retry_after)),
        Ok(r) if r.status == 503 && r.retry_after.is_some() => Some(Again::Limited(r.retry_after)),
        Ok(r) if idempotent && matches!(r.status, 500 | 502 | 503 | 504) => Some(Again::Failed),
        Err(_) if idempotent => Some(Again::Failed),
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
