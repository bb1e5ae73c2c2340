//! Where sessions and sign-in attempt counts live, by `session_store`: in memory, in the
//! SQLite file `data_dir/sessions.db` (one replica; attempts counted in memory), or in a
//! PostgreSQL database shared by every replica (sessions and attempts). Sessions are
//! sealed at rest in all three.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use app::ssr::{LoginLimiter, MemoryLog, RateLimits};
use serving::seal::Sealer;
use tower_sessions::session_store::ExpiredDeletion;
use tower_sessions_sqlx_store::{PostgresStore, SqliteStore};

use crate::health::Readiness;
use crate::session_cache::CachedStore;
use crate::sessions::{self, SealedStore};
use crate::{Config, SessionStoreKind, StartError};

/// The session store the server runs with.
pub enum Sessions {
    /// In process memory.
    Memory(SealedStore<tower_sessions::MemoryStore>),
    /// `data_dir/sessions.db`, which only this process writes: its sessions are read from
    /// memory once read or written ([`CachedStore`]).
    Sqlite(CachedStore<SealedStore<SqliteStore>>),
    /// A shared PostgreSQL database.
    Postgres(SealedStore<PostgresStore>),
}

/// Counts the sessions in a database store (for the metrics).
#[derive(Clone, Debug)]
pub enum SessionCount {
    /// The memory store cannot be counted.
    Unknown,
    /// `data_dir/sessions.db`.
    Sqlite(sqlx::SqlitePool),
    /// The shared PostgreSQL database.
    Postgres(sqlx::PgPool),
}

impl SessionCount {
    /// The number of stored sessions; `None` when unknown or the database did not answer.
    pub async fn count(&self) -> Option<i64> {
        let r = match self {
            SessionCount::Unknown => return None,
            SessionCount::Sqlite(p) => {
                sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM tower_sessions")
                    .fetch_one(p)
                    .await
            }
            SessionCount::Postgres(p) => {
                sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM tower_sessions.session")
                    .fetch_one(p)
                    .await
            }
        };
        r.ok()
    }
}

/// Opens the configured store and the sign-in limiter that goes with it; marks the store
/// ready in `ready` (at once, or once PostgreSQL answers and is migrated).
pub async fn open(
    config: &Config,
    ready: &Arc<Readiness>,
) -> Result<(Sessions, LoginLimiter, SessionCount), StartError> {
    let sealer = Arc::new(Sealer::new(
        &serving::seal::load_or_create_key(&config.session_key_file)
            .map_err(|e| StartError::SessionKey(e.to_string()))?
            .0,
    ));
    let limits = RateLimits {
        per_user: config.login_failures_per_user,
        per_client: config.login_failures_per_client,
        window: config.login_window,
    };
    let in_memory = || {
        LoginLimiter::new(
            limits,
            Arc::new(MemoryLog::with_clock(config.clock.clone())),
        )
    };
    // An unchanged session's sliding expiry is written at most every minute (a twentieth of
    // the idle time when that is shorter), not on every request.
    let touch = (config.session_idle / 20).min(std::time::Duration::from_secs(60));
    match &config.session_store {
        SessionStoreKind::Memory => {
            ready.store.store(true, Ordering::Relaxed);
            let store =
                SealedStore::with_touch(tower_sessions::MemoryStore::default(), sealer, touch);
            Ok((Sessions::Memory(store), in_memory(), SessionCount::Unknown))
        }
        SessionStoreKind::Sqlite => {
            let (store, pool) = sqlite(config).await?;
            let store = CachedStore::new(SealedStore::with_touch(store, sealer, touch));
            ready.store.store(true, Ordering::Relaxed);
            Ok((
                Sessions::Sqlite(store),
                in_memory(),
                SessionCount::Sqlite(pool),
            ))
        }
        SessionStoreKind::Postgres(url) => {
            let pool = crate::postgres::pool("session_store", url).await?;
            let store = PostgresStore::new(pool.clone());
            tokio::spawn(watch_postgres(store.clone(), pool.clone(), ready.clone()));
            let limiter =
                LoginLimiter::new(limits, crate::postgres::PgAttemptLog::new(pool.clone()));
            Ok((
                Sessions::Postgres(SealedStore::with_touch(store, sealer, touch)),
                limiter,
                SessionCount::Postgres(pool),
            ))
        }
    }
}

/// Until the process ends: migrates the database once it answers, then checks it every
/// 10 s (readiness follows; one log line per change); expired sessions are deleted.
async fn watch_postgres(store: PostgresStore, pool: sqlx::PgPool, ready: Arc<Readiness>) {
    let migrated = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let probe = move || -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send>> {
        Box::pin(probe_postgres(store.clone(), pool.clone(), migrated.clone()))
    };
    crate::health::watch(
        "the session database",
        "PostgreSQL".into(),
        ready,
        |r| &r.store,
        probe,
    )
    .await;
}

/// Migrates once (then starts the expired-session sweeper), and checks the database answers.
async fn probe_postgres(
    store: PostgresStore,
    pool: sqlx::PgPool,
    migrated: Arc<std::sync::atomic::AtomicBool>,
) -> Result<(), String> {
    if !migrated.load(Ordering::Relaxed) {
        // sqlx's transaction futures are not provably Send here (a rustc limitation
        // with higher-ranked lifetimes): run the migrations on a blocking thread.
        let (s, p) = (store.clone(), pool.clone());
        let rt = tokio::runtime::Handle::current();
        tokio::task::spawn_blocking(move || {
            rt.block_on(async {
                s.migrate().await?;
                crate::postgres::migrate_attempts(&p).await
            })
        })
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
        migrated.store(true, Ordering::Relaxed);
        tokio::spawn(ExpiredDeletion::continuously_delete_expired(
            store,
            tokio::time::Duration::from_secs(60),
        ));
    }
    sqlx::query("SELECT 1")
        .execute(&pool)
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

async fn sqlite(config: &Config) -> Result<(SqliteStore, sqlx::SqlitePool), StartError> {
    use sqlx::sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
    };
    let err = |e: &dyn std::fmt::Display| StartError::Store(e.to_string());
    let path = config.data_dir.join("sessions.db");
    sessions::private_db(&path).map_err(|e| err(&format!("{}: {e}", path.display())))?;
    let opts = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // In WAL mode NORMAL never corrupts the file; a power cut may lose the last
        // moments' writes (a sign-in to repeat), and no request waits for an fsync.
        .synchronous(SqliteSynchronous::Normal);
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(opts)
        .await
        .map_err(|e| err(&e))?;
    let store = SqliteStore::new(pool.clone());
    store.migrate().await.map_err(|e| err(&e))?;
    tokio::spawn(ExpiredDeletion::continuously_delete_expired(
        store.clone(),
        tokio::time::Duration::from_secs(60),
    ));
    Ok((store, pool))
}
