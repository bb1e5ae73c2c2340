//! Opening the store: connecting to SQLite or PostgreSQL, migrating, and (PostgreSQL)
//! waiting with backoff for a database that is not reachable yet.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::Executor;

use super::{notify, Database, Dialect, Store, StoreError};

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
}
