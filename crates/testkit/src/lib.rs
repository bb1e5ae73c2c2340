//! Test-only helpers shared by the server's and the controller's test suites.
//!
//! A crate of its own, used only as a dev-dependency: both suites (integration tests,
//! `#[cfg(test)]` modules, benches) use the same helper, and it is in no library's public
//! API and in no shipped binary.
//!
//! Tests wait on conditions, not on the wall clock: [`eventually`] retries a probe until
//! it succeeds, so a test takes as long as the thing it waits for, and a limit only says
//! when to give up. Its retry interval (10 ms, growing to 50 ms) is not something a test
//! relies on.

use std::fmt::Display;
use std::future::Future;
use std::time::{Duration, Instant};

/// First pause between two tries; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(10);
/// Longest pause between two tries.
const MAX_PAUSE: Duration = Duration::from_millis(50);

/// What a probe of [`eventually`] answers: done (with a value), or not yet (with what it
/// saw, for the message when time is up).
pub trait Outcome {
    /// What [`eventually`] returns once the probe is done.
    type Value;
    /// `Ok` when done; `Err` with what was seen (if anything) when not yet.
    fn done(self) -> Result<Self::Value, Option<String>>;
}

impl Outcome for bool {
    type Value = ();
    fn done(self) -> Result<(), Option<String>> {
        if self {
            Ok(())
        } else {
            Err(None)
        }
    }
}

impl<T> Outcome for Option<T> {
    type Value = T;
    fn done(self) -> Result<T, Option<String>> {
        self.ok_or(None)
    }
}

impl<T, E: Display> Outcome for Result<T, E> {
    type Value = T;
    fn done(self) -> Result<T, Option<String>> {
        self.map_err(|e| Some(e.to_string()))
    }
}

/// Runs `probe` until it is done (`true`, `Some`, `Ok`) and returns its value; panics
/// naming `what` (and the last `Err` seen) if that takes longer than `within`.
///
/// ```ignore
/// let k = eventually(Duration::from_secs(15), "the kluster runs", || async {
///     let k = get(&url).await;
///     if k["status"]["phase"] == "Running" { Ok(k) } else { Err(k) }
/// })
/// .await;
/// ```
pub async fn eventually<O, F, Fut>(within: Duration, what: impl Display, mut probe: F) -> O::Value
where
    O: Outcome,
    F: FnMut() -> Fut,
    Fut: Future<Output = O>,
{
    let start = Instant::now();
    let mut pause = FIRST_PAUSE;
    let mut tries = 0u32;
    loop {
        tries += 1;
        let seen = match probe().await.done() {
            Ok(v) => return v,
            Err(seen) => seen,
        };
        if start.elapsed() >= within {
            match seen {
                Some(seen) => {
                    panic!("{what}: not within {within:?} ({tries} tries); last seen: {seen}")
                }
                None => panic!("{what}: not within {within:?} ({tries} tries)"),
            }
        }
        // The last try comes at the limit, not a pause after it.
        tokio::time::sleep(pause.min(within.saturating_sub(start.elapsed()))).await;
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[tokio::test]
    async fn returns_the_value_once_the_probe_is_done() {
        let n = AtomicU32::new(0);
        let v = eventually(Duration::from_secs(5), "three tries", || async {
            let i = n.fetch_add(1, Ordering::Relaxed) + 1;
            if i >= 3 {
                Ok(i)
            } else {
                Err(format!("try {i}"))
            }
        })
        .await;
        assert_eq!(v, 3);
    }

    #[tokio::test]
    #[should_panic(expected = "never: not within")]
    async fn gives_up_naming_what_it_waited_for() {
        eventually(Duration::from_millis(30), "never", || async { false }).await;
    }

    #[tokio::test]
    #[should_panic(expected = "last seen: still 7")]
    async fn says_what_it_saw_last() {
        eventually(Duration::from_millis(30), "never", || async {
            Err::<(), _>("still 7")
        })
        .await;
    }
}
