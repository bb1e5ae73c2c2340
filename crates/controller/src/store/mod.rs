//! Persistent state: SQLite through sqlx (WAL), schema versioned with `PRAGMA user_version`.
//! Every kluster query is keyed by project: one project can never see another's klusters.
//!
//! [`schema`] (migrations), [`klusters`] (klusters and their CA on insert), [`cas`] (a
//! kluster's CA), [`events`] (events, aggregation and the change sequence); here: the
//! store itself and the change notifications streams wait on.

mod cas;
mod events;
mod klusters;
mod schema;

use std::path::Path;

use kluster::Kluster;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::Row;

pub use cas::CaRecord;

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

    /// (project, kluster) of each change to a stored kluster from now on (creation, spec or
    /// status change, removal); a lagging reader should assume everything changed.
    pub fn kluster_changes(&self) -> tokio::sync::broadcast::Receiver<(String, String)> {
        self.changed.subscribe()
    }

    pub(super) fn touch(&self, project: &str, name: &str) {
        let _ = self.changed.send((project.to_string(), name.to_string()));
    }

    /// The newest event sequence number; changes whenever an event is recorded.
    pub fn latest_seq(&self) -> tokio::sync::watch::Receiver<i64> {
        self.latest.subscribe()
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Helpers of the store's unit tests.
    use super::*;

    pub(crate) fn db_path(tag: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("mc-store-{tag}-{}.db", std::process::id()));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
        }
        p
    }

    pub(crate) fn ca() -> CaRecord {
        CaRecord {
            cert_pem: "pem".into(),
            key_sealed: vec![1, 2, 3],
        }
    }

    pub(crate) fn stored(name: &str) -> StoredKluster {
        StoredKluster {
            kluster: Kluster {
                name: name.into(),
                ..Default::default()
            },
            creator: "alice/demo".into(),
            termination_protected: false,
        }
    }
}
