//! Leases: a named lease row held by one replica until it expires, taken over by another
//! only after that (the database's clock decides, so replicas' clocks do not matter).
//! Reconciling is one lease: exactly one replica reconciles at a time.

use std::time::Duration;

use super::{Dialect, Store, StoreError};

impl Store {
    /// The database's clock in milliseconds since the Unix epoch, as SQL.
    fn now_ms_sql(&self) -> &'static str {
        match self.dialect {
            Dialect::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
            Dialect::Postgres => "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)",
        }
    }

    /// Takes or renews lease `name` for `holder` for `ttl`: true when `holder` holds it
    /// now (it was free, expired, or already its own), false when another holder's lease
    /// has not expired.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "try_lease"))]
    pub async fn try_lease(
        &self,
        name: &str,
        holder: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        self.check_ready()?;
        let now = self.now_ms_sql();
        let held = sqlx::query(&format!(
            "INSERT INTO leases (name, holder, expires_ms) VALUES ($1, $2, {now} + $3)
             ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
             WHERE leases.holder = excluded.holder OR leases.expires_ms < {now}
             RETURNING holder"
        ))
        .bind(name)
        .bind(holder)
        .bind(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX / 2))
        .fetch_optional(&self.pool)
        .await?;
        Ok(held.is_some())
    }

    /// Gives lease `name` up if `holder` holds it (on shutdown: the next replica need not
    /// wait for it to expire).
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "release_lease"))]
    pub async fn release_lease(&self, name: &str, holder: &str) -> Result<(), StoreError> {
        self.check_ready()?;
        sqlx::query("DELETE FROM leases WHERE name = $1 AND holder = $2")
            .bind(name)
            .bind(holder)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;

    #[tokio::test]
    async fn a_lease_is_held_by_one_holder_until_it_expires_or_is_released() {
        let s = Store::open(&db_path("leases")).await.unwrap();
        let ttl = Duration::from_millis(300);
        assert!(s.try_lease("reconcile", "a", ttl).await.unwrap());
        assert!(
            !s.try_lease("reconcile", "b", ttl).await.unwrap(),
            "a holds it"
        );
        assert!(
            s.try_lease("reconcile", "a", ttl).await.unwrap(),
            "a renews"
        );
        assert!(
            s.try_lease("other", "b", ttl).await.unwrap(),
            "leases are by name"
        );
        // Expired (the database's clock decides when): b takes it.
        testkit::eventually(Duration::from_secs(10), "expired: b takes it", || async {
            s.try_lease("reconcile", "b", ttl).await.unwrap()
        })
        .await;
        assert!(!s.try_lease("reconcile", "a", ttl).await.unwrap());
        s.release_lease("reconcile", "a").await.unwrap(); // not a's: nothing happens
        assert!(!s.try_lease("reconcile", "a", ttl).await.unwrap());
        s.release_lease("reconcile", "b").await.unwrap();
        assert!(
            s.try_lease("reconcile", "a", ttl).await.unwrap(),
            "released: a takes it"
        );
    }
}
