//! The schema: migrations applied in order, versioned with `PRAGMA user_version`.

use sqlx::Row;

use super::{Store, StoreError};

/// Schema migrations, applied in order; the index + 1 is the schema version.
const MIGRATIONS: &[&str] = &[
    // 1: klusters and events.
    "CREATE TABLE klusters (
        project_id TEXT NOT NULL,
        name TEXT NOT NULL,
        body TEXT NOT NULL,
        phase TEXT NOT NULL,
        creator TEXT NOT NULL,
        termination_protected INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        PRIMARY KEY (project_id, name)
     );
     CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT NOT NULL,
        kluster TEXT NOT NULL,
        type TEXT NOT NULL,
        reason TEXT NOT NULL,
        message TEXT NOT NULL,
        count INTEGER NOT NULL DEFAULT 1,
        first_timestamp TEXT NOT NULL,
        last_timestamp TEXT NOT NULL
     );
     CREATE INDEX events_by_kluster ON events (project_id, kluster, id);",
    // 2: each kluster's client CA; the key sealed with the configured key.
    "CREATE TABLE kluster_cas (
        project_id TEXT NOT NULL,
        name TEXT NOT NULL,
        cert_pem TEXT NOT NULL,
        key_sealed BLOB NOT NULL,
        PRIMARY KEY (project_id, name)
     );",
    // 3: when the kluster entered its phase ('' = at creation).
    "ALTER TABLE klusters ADD COLUMN phase_since TEXT NOT NULL DEFAULT '';",
    // 4: a change sequence on events, so streams can resume after aggregated updates.
    "ALTER TABLE events ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
     UPDATE events SET seq = id;
     CREATE INDEX events_by_seq ON events (project_id, seq);",
];

impl Store {
    /// Applies the migrations the database has not seen yet, in one transaction.
    pub(super) async fn migrate(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let version: i64 = sqlx::query("PRAGMA user_version")
            .fetch_one(&mut *tx)
            .await?
            .get(0);
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            sqlx::raw_sql(sql).execute(&mut *tx).await?;
            sqlx::raw_sql(&format!("PRAGMA user_version = {}", i + 1))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
