//! Persistent state: SQLite through sqlx (WAL), schema versioned with `PRAGMA user_version`.
//! Every kluster query is keyed by project: one project can never see another's klusters.

use std::path::Path;

use kluster::{EventReason, EventType, Kluster};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Row;

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

/// A kluster's CA as stored: certificate and sealed private key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaRecord {
    /// CA certificate (PEM).
    pub cert_pem: String,
    /// Private key sealed by [`crate::pki::Sealer`].
    pub key_sealed: Vec<u8>,
}

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A kluster of that name already exists in the project.
    #[error("a kluster with this name already exists")]
    Conflict,
    /// The database failed.
    #[error("database error: {0}")]
    Db(#[from] sqlx::Error),
    /// A stored row does not decode.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
}

/// A kluster as stored, with what Kubernikus keeps beside the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredKluster {
    /// The kluster (spec and status).
    pub kluster: Kluster,
    /// `user/domain` of its creator.
    pub creator: String,
    /// Delete is refused while set.
    pub termination_protected: bool,
}

/// A kluster as the reconcilers see it.
#[derive(Clone, Debug)]
pub struct Observed {
    /// Its project.
    pub project: String,
    /// The kluster.
    pub stored: StoredKluster,
    /// Time in its current phase.
    pub in_phase: std::time::Duration,
    /// Time since it was created.
    pub age: std::time::Duration,
}

/// The controller's database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
    /// The newest event sequence number, for streams to wait on.
    latest: std::sync::Arc<tokio::sync::watch::Sender<i64>>,
    /// (project, kluster) of every stored change to a kluster, for streams' hints.
    changed: tokio::sync::broadcast::Sender<(String, String)>,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and migrates it.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let opts = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // WAL + NORMAL: a crash of the process loses nothing; power loss may lose the
            // last commits, which the level-triggered reconcilers redo.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(std::time::Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await?;
        let mut store = Store {
            pool,
            latest: std::sync::Arc::new(tokio::sync::watch::Sender::new(0)),
            changed: tokio::sync::broadcast::channel(1024).0,
        };
        store.migrate().await?;
        let latest: i64 = sqlx::query("SELECT COALESCE(MAX(seq), 0) FROM events")
            .fetch_one(&store.pool)
            .await?
            .get(0);
        store.latest = std::sync::Arc::new(tokio::sync::watch::Sender::new(latest));
        Ok(store)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
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

    /// The project's klusters, by name.
    pub async fn list(&self, project: &str) -> Result<Vec<StoredKluster>, StoreError> {
        let rows = sqlx::query(
            "SELECT body, creator, termination_protected FROM klusters WHERE project_id = ? ORDER BY name",
        )
        .bind(project)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(decode).collect()
    }

    /// One kluster of the project.
    pub async fn get(
        &self,
        project: &str,
        name: &str,
    ) -> Result<Option<StoredKluster>, StoreError> {
        let row = sqlx::query(
            "SELECT body, creator, termination_protected FROM klusters WHERE project_id = ? AND name = ?",
        )
        .bind(project)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(decode).transpose()
    }

    /// Adds a kluster and its CA in one transaction; [`StoreError::Conflict`] when the name
    /// is taken in the project.
    pub async fn insert(
        &self,
        project: &str,
        k: &StoredKluster,
        ca: &CaRecord,
    ) -> Result<(), StoreError> {
        let body =
            serde_json::to_string(&k.kluster).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        let res = sqlx::query(
            "INSERT INTO klusters (project_id, name, body, phase, creator, termination_protected, created_at)
             VALUES (?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
        )
        .bind(project)
        .bind(&k.kluster.name)
        .bind(body)
        .bind(k.kluster.status.phase.as_str())
        .bind(&k.creator)
        .bind(k.termination_protected)
        .execute(&mut *tx)
        .await;
        match res {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                return Err(StoreError::Conflict)
            }
            Err(e) => return Err(e.into()),
            Ok(_) => {}
        }
        sqlx::query("INSERT OR REPLACE INTO kluster_cas (project_id, name, cert_pem, key_sealed) VALUES (?, ?, ?, ?)")
            .bind(project)
            .bind(&k.kluster.name)
            .bind(&ca.cert_pem)
            .bind(&ca.key_sealed)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.touch(project, &k.kluster.name);
        Ok(())
    }

    /// A kluster's CA.
    pub async fn ca(&self, project: &str, name: &str) -> Result<Option<CaRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT cert_pem, key_sealed FROM kluster_cas WHERE project_id = ? AND name = ?",
        )
        .bind(project)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| CaRecord {
            cert_pem: r.get(0),
            key_sealed: r.get(1),
        }))
    }

    /// Replaces a kluster's body (spec and status); false when it does not exist.
    pub async fn update(&self, project: &str, k: &Kluster) -> Result<bool, StoreError> {
        let body = serde_json::to_string(k).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let phase = k.status.phase.as_str();
        // SET expressions read the old row: phase_since moves only when the phase changes.
        let res = sqlx::query(
            "UPDATE klusters SET body = ?,
                phase_since = CASE WHEN phase <> ? THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') ELSE phase_since END,
                phase = ?
             WHERE project_id = ? AND name = ?",
        )
        .bind(body)
        .bind(phase)
        .bind(phase)
        .bind(project)
        .bind(&k.name)
        .execute(&self.pool)
        .await?;
        self.touch(project, &k.name);
        Ok(res.rows_affected() == 1)
    }

    /// Changes a stored kluster with `change` inside one write transaction, so that
    /// concurrent writers (API and reconcilers) never overwrite each other's fields. `None`
    /// when the kluster does not exist; `Some(Err)` when `change` refused (nothing written).
    pub async fn modify<E>(
        &self,
        project: &str,
        name: &str,
        change: impl FnOnce(&mut Kluster) -> Result<(), E>,
    ) -> Result<Option<Result<Kluster, E>>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Take the write lock first (a no-op write), so the read below cannot go stale.
        let touched =
            sqlx::query("UPDATE klusters SET name = name WHERE project_id = ? AND name = ?")
                .bind(project)
                .bind(name)
                .execute(&mut *tx)
                .await?;
        if touched.rows_affected() == 0 {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT body, creator, termination_protected FROM klusters WHERE project_id = ? AND name = ?",
        )
        .bind(project)
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
        let mut k = decode(&row)?.kluster;
        if let Err(e) = change(&mut k) {
            return Ok(Some(Err(e)));
        }
        let body = serde_json::to_string(&k).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let phase = k.status.phase.as_str();
        sqlx::query(
            "UPDATE klusters SET body = ?,
                phase_since = CASE WHEN phase <> ? THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') ELSE phase_since END,
                phase = ?
             WHERE project_id = ? AND name = ?",
        )
        .bind(body)
        .bind(phase)
        .bind(phase)
        .bind(project)
        .bind(name)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.touch(project, name);
        Ok(Some(Ok(k)))
    }

    /// Every kluster of every project, by project, with the time it has spent in its phase
    /// and its age, for the reconcilers.
    pub async fn list_all(&self) -> Result<Vec<Observed>, StoreError> {
        let rows = sqlx::query(
            "SELECT body, creator, termination_protected, project_id,
                CAST((julianday('now') - julianday(CASE WHEN phase_since = '' THEN created_at ELSE phase_since END))
                     * 86400000 AS INTEGER),
                CAST((julianday('now') - julianday(created_at)) * 86400000 AS INTEGER)
             FROM klusters ORDER BY project_id, name",
        )
        .fetch_all(&self.pool)
        .await?;
        let ms = |v: i64| std::time::Duration::from_millis(v.max(0) as u64);
        rows.iter()
            .map(|r| {
                Ok(Observed {
                    project: r.get(3),
                    stored: decode(r)?,
                    in_phase: ms(r.get(4)),
                    age: ms(r.get(5)),
                })
            })
            .collect()
    }

    /// Removes a kluster and its CA; its events stay.
    pub async fn delete(&self, project: &str, name: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM kluster_cas WHERE project_id = ? AND name = ?")
            .bind(project)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let res = sqlx::query("DELETE FROM klusters WHERE project_id = ? AND name = ?")
            .bind(project)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.touch(project, name);
        Ok(res.rows_affected() == 1)
    }

    /// Sets or clears termination protection; false when the kluster does not exist.
    pub async fn set_termination_protection(
        &self,
        project: &str,
        name: &str,
        on: bool,
    ) -> Result<bool, StoreError> {
        let res = sqlx::query(
            "UPDATE klusters SET termination_protected = ? WHERE project_id = ? AND name = ?",
        )
        .bind(on)
        .bind(project)
        .bind(name)
        .execute(&self.pool)
        .await?;
        Ok(res.rows_affected() == 1)
    }
}

impl Store {
    /// Records an event about a kluster. An identical event (same type, reason and
    /// message) seen before is aggregated: its count grows and its last timestamp moves.
    /// Either way the event gets the next sequence number and streams wake up. Returns the
    /// event's id.
    pub async fn record_event(
        &self,
        project: &str,
        kluster: &str,
        kind: EventType,
        reason: &EventReason,
        message: &str,
    ) -> Result<i64, StoreError> {
        self.record_event_counted(project, kluster, kind, reason, message)
            .await
            .map(|(id, _)| id)
    }

    /// [`Store::record_event`], also returning the event's count (1: new).
    pub async fn record_event_counted(
        &self,
        project: &str,
        kluster: &str,
        kind: EventType,
        reason: &EventReason,
        message: &str,
    ) -> Result<(i64, i64), StoreError> {
        let (kind, reason) = (kind.as_str(), reason.as_str());
        // Single statements, so concurrent writers cannot hand out one sequence number twice.
        let bumped = sqlx::query(
            "UPDATE events SET count = count + 1,
                last_timestamp = strftime('%Y-%m-%dT%H:%M:%SZ','now'),
                seq = (SELECT MAX(seq) + 1 FROM events)
             WHERE id = (SELECT id FROM events
                         WHERE project_id = ? AND kluster = ? AND type = ? AND reason = ? AND message = ?
                         ORDER BY id DESC LIMIT 1)
             RETURNING id, seq, count",
        )
        .bind(project)
        .bind(kluster)
        .bind(kind)
        .bind(reason)
        .bind(message)
        .fetch_optional(&self.pool)
        .await?;
        let row = match bumped {
            Some(row) => row,
            None => {
                sqlx::query(
                    "INSERT INTO events (project_id, kluster, type, reason, message, first_timestamp, last_timestamp, seq)
                     VALUES (?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'), strftime('%Y-%m-%dT%H:%M:%SZ','now'),
                             (SELECT COALESCE(MAX(seq), 0) + 1 FROM events))
                     RETURNING id, seq, count",
                )
                .bind(project)
                .bind(kluster)
                .bind(kind)
                .bind(reason)
                .bind(message)
                .fetch_one(&self.pool)
                .await?
            }
        };
        let (id, seq, count): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
        self.latest.send_if_modified(|latest| {
            let newer = seq > *latest;
            if newer {
                *latest = seq;
            }
            newer
        });
        Ok((id, count))
    }

    /// A kluster's events, oldest first, in the Kubernikus `Event` shape.
    pub async fn events(
        &self,
        project: &str,
        kluster: &str,
    ) -> Result<Vec<kluster::Event>, StoreError> {
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type FROM events
             WHERE project_id = ? AND kluster = ? ORDER BY last_timestamp, id",
        )
        .bind(project)
        .bind(kluster)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(event_of).collect())
    }

    /// The project's events changed after sequence number `after` (optionally of one
    /// kluster), oldest change first, at most `limit`.
    pub async fn events_since(
        &self,
        project: &str,
        kluster: Option<&str>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<kluster::ProjectEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type, id, seq, kluster
             FROM events
             WHERE project_id = ? AND seq > ? AND (? IS NULL OR kluster = ?)
             ORDER BY seq LIMIT ?",
        )
        .bind(project)
        .bind(after)
        .bind(kluster)
        .bind(kluster)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(project_event_of).collect())
    }

    /// The project's `n` most recently changed events (optionally of one kluster), oldest
    /// change first.
    pub async fn events_latest(
        &self,
        project: &str,
        kluster: Option<&str>,
        n: i64,
    ) -> Result<Vec<kluster::ProjectEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type, id, seq, kluster
             FROM events
             WHERE project_id = ? AND (? IS NULL OR kluster = ?)
             ORDER BY seq DESC LIMIT ?",
        )
        .bind(project)
        .bind(kluster)
        .bind(kluster)
        .bind(n)
        .fetch_all(&self.pool)
        .await?;
        let mut out: Vec<kluster::ProjectEvent> = rows.iter().map(project_event_of).collect();
        out.reverse();
        Ok(out)
    }

    /// (project, kluster) of each change to a stored kluster from now on (creation, spec or
    /// status change, removal); a lagging reader should assume everything changed.
    pub fn kluster_changes(&self) -> tokio::sync::broadcast::Receiver<(String, String)> {
        self.changed.subscribe()
    }

    fn touch(&self, project: &str, name: &str) {
        let _ = self.changed.send((project.to_string(), name.to_string()));
    }

    /// The newest event sequence number; changes whenever an event is recorded.
    pub fn latest_seq(&self) -> tokio::sync::watch::Receiver<i64> {
        self.latest.subscribe()
    }
}

/// Columns: the six of [`event_of`], then id, seq, kluster.
fn project_event_of(r: &sqlx::sqlite::SqliteRow) -> kluster::ProjectEvent {
    kluster::ProjectEvent {
        event: event_of(r),
        id: r.get(6),
        seq: r.get(7),
        kluster: r.get(8),
    }
}

fn event_of(r: &sqlx::sqlite::SqliteRow) -> kluster::Event {
    kluster::Event {
        count: r.get(0),
        last_timestamp: r.get(1),
        first_timestamp: r.get(2),
        reason: r.get(3),
        message: r.get(4),
        kind: r.get(5),
    }
}

fn decode(row: &sqlx::sqlite::SqliteRow) -> Result<StoredKluster, StoreError> {
    let body: String = row.get(0);
    let kluster = serde_json::from_str(&body).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(StoredKluster {
        kluster,
        creator: row.get(1),
        termination_protected: row.get(2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kluster::KlusterPhase;

    fn db_path(tag: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("mc-store-{tag}-{}.db", std::process::id()));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
        }
        p
    }

    fn ca() -> CaRecord {
        CaRecord {
            cert_pem: "pem".into(),
            key_sealed: vec![1, 2, 3],
        }
    }

    fn stored(name: &str) -> StoredKluster {
        StoredKluster {
            kluster: Kluster {
                name: name.into(),
                ..Default::default()
            },
            creator: "alice/demo".into(),
            termination_protected: false,
        }
    }

    #[tokio::test]
    async fn klusters_are_per_project_unique_and_survive_reopening() {
        let path = db_path("tenancy");
        let s = Store::open(&path).await.unwrap();
        s.insert("p1", &stored("a"), &ca()).await.unwrap();
        s.insert("p2", &stored("a"), &ca()).await.unwrap();
        assert!(matches!(
            s.insert("p1", &stored("a"), &ca()).await,
            Err(StoreError::Conflict)
        ));
        assert_eq!(s.list("p1").await.unwrap().len(), 1);
        assert_eq!(s.ca("p1", "a").await.unwrap(), Some(ca()));
        assert_eq!(s.ca("p3", "a").await.unwrap(), None);
        assert!(
            s.get("p3", "a").await.unwrap().is_none(),
            "other projects see nothing"
        );
        let mut k = s.get("p1", "a").await.unwrap().unwrap().kluster;
        k.status.phase = KlusterPhase::Running;
        assert!(s.update("p1", &k).await.unwrap());
        assert!(
            !s.update("p3", &k).await.unwrap(),
            "no cross-project update"
        );
        assert!(s.set_termination_protection("p1", "a", true).await.unwrap());
        drop(s);
        let s = Store::open(&path).await.unwrap();
        let again = s.get("p1", "a").await.unwrap().unwrap();
        assert_eq!(again.kluster.status.phase, KlusterPhase::Running);
        assert!(again.termination_protected);
        assert_eq!(
            s.get("p2", "a")
                .await
                .unwrap()
                .unwrap()
                .kluster
                .status
                .phase,
            KlusterPhase::Pending
        );
    }

    #[tokio::test]
    async fn identical_events_aggregate_and_stay_in_their_project() {
        let s = Store::open(&db_path("events")).await.unwrap();
        let a = s
            .record_event(
                "p1",
                "k",
                EventType::Warning,
                &EventReason::FailedCreateNode,
                "quota",
            )
            .await
            .unwrap();
        let b = s
            .record_event(
                "p1",
                "k",
                EventType::Warning,
                &EventReason::FailedCreateNode,
                "quota",
            )
            .await
            .unwrap();
        let c = s
            .record_event("p1", "k", EventType::Normal, &EventReason::Running, "up")
            .await
            .unwrap();
        assert_eq!(a, b);
        assert!(c > a, "ids grow");
        let ev = s.events("p1", "k").await.unwrap();
        assert_eq!(ev.len(), 2);
        assert_eq!(
            (ev[0].reason.as_str(), ev[0].count),
            ("FailedCreateNode", 2)
        );
        assert!(s.events("p2", "k").await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn every_change_gets_the_next_sequence_number_and_wakes_readers() {
        let s = Store::open(&db_path("seq")).await.unwrap();
        let mut latest = s.latest_seq();
        let a = s
            .record_event(
                "p1",
                "k",
                EventType::Warning,
                &EventReason::Other("X".into()),
                "m",
            )
            .await
            .unwrap();
        s.record_event(
            "p1",
            "j",
            EventType::Normal,
            &EventReason::Other("Y".into()),
            "n",
        )
        .await
        .unwrap();
        assert!(latest.has_changed().unwrap());
        let after: i64 = *latest.borrow_and_update();
        assert_eq!(after, 2);
        // Aggregating an old event moves it to the end of the sequence.
        s.record_event(
            "p1",
            "k",
            EventType::Warning,
            &EventReason::Other("X".into()),
            "m",
        )
        .await
        .unwrap();
        let since = s.events_since("p1", None, after, 100).await.unwrap();
        assert_eq!(since.len(), 1);
        assert_eq!((since[0].id, since[0].seq, since[0].event.count), (a, 3, 2));
        let all = s.events_since("p1", None, 0, 100).await.unwrap();
        assert_eq!(
            all.iter().map(|e| e.kluster.as_str()).collect::<Vec<_>>(),
            ["j", "k"]
        );
        assert_eq!(
            s.events_since("p1", Some("j"), 0, 100).await.unwrap().len(),
            1
        );
        assert!(s.events_since("p2", None, 0, 100).await.unwrap().is_empty());
        assert_eq!(
            s.events_since("p1", None, 0, 1).await.unwrap().len(),
            1,
            "limit"
        );
        let newest = s.events_latest("p1", None, 1).await.unwrap();
        assert_eq!((newest[0].kluster.as_str(), newest[0].seq), ("k", 3));
    }
}
