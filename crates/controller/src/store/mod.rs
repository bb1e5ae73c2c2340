//! Persistent state on SQLite (one machine; WAL) or PostgreSQL (several replicas), through
//! sqlx's `Any` driver with one set of portable queries. Every kluster query is keyed by
//! project: one project can never see another's klusters.
//!
//! [`schema`] (migrations per engine, version guard), [`klusters`] (klusters: read,
//! change), [`create`] (klusters added with their CA, one create per project at a time),
//! [`cas`] (a kluster's CA), [`events`] (events, aggregation and the change sequence), [`leases`] (which replica reconciles), [`sim`] (the simulated cloud's state),
//! [`notify`] (changes other replicas made, on PostgreSQL); here: the store itself, where
//! it lives, and the change notifications streams wait on.

mod audit;
mod cas;
mod create;
mod events;
mod klusters;
mod leases;
mod listing;
mod notify;
mod ops;
mod schema;
mod sim;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use kluster::Kluster;
use sqlx::any::AnyPoolOptions;
use sqlx::AnyPool;
use sqlx::Executor;

pub use audit::{audit_time, checks as audit_checks, AuditFilter};
pub use cas::CaRecord;
pub use klusters::new_uid;
pub use ops::RepeatedWarning;
pub use schema::SCHEMA_VERSION;

/// Where the controller's data lives.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// An SQLite file (one controller process).
    Sqlite(PathBuf),
    /// A PostgreSQL database shared by every controller replica.
    Postgres(String),
}

impl std::fmt::Debug for Database {
    /// Never shows a password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl std::fmt::Display for Database {
    /// The file, or the URL with its password hidden.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(p) => write!(f, "{}", p.display()),
            Database::Postgres(url) => match url::Url::parse(url) {
                Ok(mut u) => {
                    if u.password().is_some() {
                        let _ = u.set_password(Some("***"));
                    }
                    write!(f, "{u}")
                }
                Err(_) => f.write_str("postgres://<unparsable URL>"),
            },
        }
    }
}

impl std::str::FromStr for Database {
    type Err = String;

    /// A `postgres://` (or `postgresql://`) URL, else the path of an SQLite file.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            url::Url::parse(s).map_err(|e| format!("not a valid PostgreSQL URL: {e}"))?;
            Ok(Database::Postgres(s.to_string()))
        } else if s.is_empty() {
            Err("empty: give an SQLite file path or a postgres:// URL".into())
        } else {
            Ok(Database::Sqlite(PathBuf::from(
                s.strip_prefix("sqlite://").unwrap_or(s),
            )))
        }
    }
}

/// The SQL dialect of the connected engine (the few places where the engines differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite 3.35+ (RETURNING, UPSERT).
    Sqlite,
    /// PostgreSQL 12+.
    Postgres,
}

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A kluster of that name already exists in the project.
    #[error("a kluster with this name already exists")]
    Conflict,
    /// The database cannot be reached (or is not migrated yet); retrying later may work.
    #[error("the database cannot be reached: {0}")]
    Unavailable(String),
    /// The database failed.
    #[error("database error: {0}")]
    Db(sqlx::Error),
    /// A stored row does not decode.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The database was migrated by a newer controller.
    #[error("{0}")]
    TooNew(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match e {
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => StoreError::Unavailable(e.to_string()),
            // admin_shutdown, crash_shutdown, cannot_connect_now (a restarting server)
            sqlx::Error::Database(ref d)
                if matches!(d.code().as_deref(), Some("57P01" | "57P02" | "57P03")) =>
            {
                StoreError::Unavailable(e.to_string())
            }
            e => StoreError::Db(e),
        }
    }
}

impl StoreError {
    /// Whether no retry will mend it (wrong credentials, missing database, a newer schema).
    pub fn is_fatal(&self) -> bool {
        match self {
            StoreError::TooNew(_) => true,
            StoreError::Db(sqlx::Error::Configuration(_) | sqlx::Error::Tls(_)) => true,
            StoreError::Db(sqlx::Error::Database(d)) => {
                matches!(d.code().as_deref(), Some("28P01" | "28000" | "3D000"))
            }
            _ => false,
        }
    }
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
    /// Ids of its servers as the reconciler last recorded them ([`Store::record_servers`]).
    pub servers: Vec<String>,
}

/// The controller's database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    dialect: Dialect,
    /// Migrated and usable (PostgreSQL may come later than the process).
    ready: Arc<AtomicBool>,
    /// The newest event sequence number, for streams to wait on.
    latest: Arc<tokio::sync::watch::Sender<i64>>,
    /// (project, kluster) of every stored change to a kluster, for streams' hints.
    changed: tokio::sync::broadcast::Sender<(String, String)>,
}

/// Now as RFC 3339 (UTC), with `subsec` fractional seconds or none.
pub(crate) fn now_text(subsec: bool) -> String {
    let now = time::OffsetDateTime::now_utc();
    let now = if subsec {
        now.replace_nanosecond(now.millisecond() as u32 * 1_000_000)
    } else {
        now.replace_nanosecond(0)
    }
    .unwrap_or(now);
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

impl Store {
    /// Opens (creating if needed) the SQLite database at `path` and migrates it.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        Self::connect(&Database::Sqlite(path.to_path_buf())).await
    }

    /// Connects to `db` and migrates it. SQLite: at once. PostgreSQL: when it cannot be
    /// reached yet, the store is returned unready (its calls answer
    /// [`StoreError::Unavailable`]) and a task connects and migrates with backoff, one log
    /// line per change; wrong credentials, a missing database or a schema migrated by a
    /// newer controller are errors.
    pub async fn connect(db: &Database) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let (pool, dialect) = match db {
            Database::Sqlite(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                }
                let abs =
                    std::path::absolute(path).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                let url = format!(
                    "sqlite://{}?mode=rwc",
                    url::form_urlencoded::byte_serialize(abs.to_string_lossy().as_bytes())
                        .collect::<String>()
                        .replace("%2F", "/")
                );
                let pool = AnyPoolOptions::new()
                    .max_connections(4)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            // WAL + NORMAL: a crash of the process loses nothing; power loss
                            // may lose the last commits, which the reconcilers redo.
                            conn.execute(
                                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;",
                            )
                            .await
                            .map(drop)
                        })
                    })
                    .connect(&url)
                    .await?;
                (pool, Dialect::Sqlite)
            }
            Database::Postgres(url) => {
                let pool = AnyPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(5))
                    .connect_lazy(url)?;
                (pool, Dialect::Postgres)
            }
        };
        let store = Store {
            pool,
            dialect,
            ready: Arc::default(),
            latest: Arc::new(tokio::sync::watch::Sender::new(0)),
            changed: tokio::sync::broadcast::channel(1024).0,
        };
        match store.prepare().await {
            Ok(()) => {}
            Err(e) if dialect == Dialect::Sqlite || e.is_fatal() => return Err(e),
            Err(e) => {
                tracing::warn!(db = %db, error = %e, "the database cannot be reached; waiting for it");
                // On a blocking thread: sqlx's migration futures are not provably Send in
                // a spawned task (a rustc limitation with higher-ranked lifetimes).
                let (s, d, rt) = (store.clone(), db.clone(), tokio::runtime::Handle::current());
                tokio::task::spawn_blocking(move || rt.block_on(s.prepare_with_backoff(d)));
            }
        }
        if let Database::Postgres(url) = db {
            tokio::spawn(notify::listen(store.clone(), url.clone()));
        }
        Ok(store)
    }

    /// Migrates, reads the newest sequence number, and marks the store ready.
    async fn prepare(&self) -> Result<(), StoreError> {
        self.migrate().await?;
        let latest: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM events")
            .fetch_one(&self.pool)
            .await?;
        self.latest.send_if_modified(|l| {
            let newer = latest > *l;
            *l = (*l).max(latest);
            newer
        });
        self.ready.store(true, Ordering::Release);
        Ok(())
    }

    async fn prepare_with_backoff(self, db: Database) {
        let mut backoff = Duration::from_millis(250);
        loop {
            tokio::time::sleep(backoff).await;
            match self.prepare().await {
                Ok(()) => {
                    tracing::info!(db = %db, "the database is reachable and migrated");
                    return;
                }
                Err(e) if e.is_fatal() => {
                    tracing::error!(db = %db, error = %e, "the database refuses this controller; it stays unready");
                    return;
                }
                Err(_) => backoff = (backoff * 2).min(Duration::from_secs(10)),
            }
        }
    }

    /// `Err(Unavailable)` until the database has been reached and migrated.
    pub(crate) fn check_ready(&self) -> Result<(), StoreError> {
        if self.ready.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(StoreError::Unavailable(
                "not connected and migrated yet".into(),
            ))
        }
    }

    /// Whether the database answers now (for readiness probes).
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.check_ready()?;
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// The engine this store runs on.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// (project, kluster) of each change to a stored kluster from now on (creation, spec or
    /// status change, removal), made by any replica; a lagging reader should assume
    /// everything changed.
    pub fn kluster_changes(&self) -> tokio::sync::broadcast::Receiver<(String, String)> {
        self.changed.subscribe()
    }

    /// Tells this process's streams that a kluster changed (other replicas learn it from
    /// the database's notification).
    pub(super) fn touch(&self, project: &str, name: &str) {
        let _ = self.changed.send((project.to_string(), name.to_string()));
    }

    /// Moves the newest sequence number forward to `seq` (streams wake up).
    pub(super) fn saw_seq(&self, seq: i64) {
        self.latest.send_if_modified(|latest| {
            let newer = seq > *latest;
            if newer {
                *latest = seq;
            }
            newer
        });
    }

    /// The newest event sequence number; changes whenever any replica records an event.
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

    #[test]
    fn databases_parse_from_paths_and_urls_and_hide_passwords() {
        let db: Database = "postgres://mc:s3cret@db:5432/mc".parse().unwrap();
        assert_eq!(db.to_string(), "postgres://mc:***@db:5432/mc");
        assert!(!format!("{db:?}").contains("s3cret"));
        assert_eq!(
            ".state/c.db".parse::<Database>().unwrap(),
            Database::Sqlite(".state/c.db".into())
        );
        assert!("".parse::<Database>().is_err());
    }
}
