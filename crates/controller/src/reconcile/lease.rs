//! Which replica reconciles: the one holding the `reconcile` lease in the database. The
//! holder renews it every third of its time to live; another replica takes it over only
//! once it has expired (a replica that died stops renewing). A holder that cannot renew in
//! time stops acting on klusters before its lease could have passed to someone else.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::store::Store;

/// The lease's name in the database.
pub const NAME: &str = "reconcile";

/// Until when this replica may act (its last renewal plus the time to live, less a margin).
#[derive(Debug, Default)]
pub struct Lease {
    until: Mutex<Option<Instant>>,
}

impl Lease {
    /// Whether this replica holds the lease now.
    pub fn valid(&self) -> bool {
        self.until
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|u| Instant::now() < u)
    }

    fn set(&self, until: Option<Instant>) {
        *self.until.lock().unwrap_or_else(|p| p.into_inner()) = until;
    }

    /// Takes or renews the lease for `holder` (`ttl` to live); logs when this replica
    /// starts or stops reconciling. Returns whether it holds the lease.
    pub async fn renew(&self, store: &Store, holder: &str, ttl: Duration) -> bool {
        let was = self.valid();
        let asked = Instant::now();
        match store.try_lease(NAME, holder, ttl).await {
            Ok(true) => {
                // Counted from before the question: the database's expiry is later still.
                self.set(Some(asked + ttl.mul_f64(0.8)));
                if !was {
                    tracing::info!(
                        controller = "reconcile",
                        holder,
                        "this replica reconciles now (it holds the reconcile lease)"
                    );
                }
                true
            }
            Ok(false) => {
                self.set(None);
                if was {
                    tracing::warn!(
                        controller = "reconcile",
                        holder,
                        "another replica holds the reconcile lease; this one stops reconciling"
                    );
                }
                false
            }
            Err(e) => {
                // Keep acting only until the lease could have expired.
                let still = self.valid();
                if was && !still {
                    tracing::warn!(controller = "reconcile", holder, error = %e, "could not renew the reconcile lease in time; this replica stops reconciling");
                }
                still
            }
        }
    }
}

/// A holder name for this process: host and a random suffix.
pub fn holder_name() -> String {
    use rand_core::RngCore;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "controller".into());
    format!(
        "{host}-{}-{:08x}",
        std::process::id(),
        rand_core::OsRng.next_u32()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_lease_ends_on_tokio_time() {
        let lease = Lease::default();
        assert!(!lease.valid(), "no lease before the first renewal");
        lease.set(Some(Instant::now() + Duration::from_secs(24)));
        tokio::time::advance(Duration::from_secs(23)).await;
        assert!(lease.valid(), "still held within its time");
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(
            !lease.valid(),
            "gone once its time has passed, without waiting for it"
        );
    }
}
