//! The dashboard on PostgreSQL (several replicas): sessions in tower-sessions' Postgres
//! store and sign-in attempts counted in the same database, so limits hold across replicas.
//! A database that cannot be reached at start is waited for (readiness stays red); wrong
//! credentials or a database that does not exist stop the start with the key named.

use std::sync::Arc;
use std::time::Duration;

use app::ssr::{verdict, AttemptLog, Load, Outcome, RateLimits};
use async_trait::async_trait;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Row;

use crate::config::redact_url;
use crate::StartError;

/// Opens a lazily connecting pool for `url` (config key `key`) and tries it once: wrong
/// credentials, a missing database or a malformed URL are errors; an unreachable server is
/// not (the caller waits for it).
pub async fn pool(key: &str, url: &str) -> Result<PgPool, StartError> {
    let bad = |m: String| StartError::Store(format!("{key} ({}): {m}", redact_url(url)));
    let opts: PgConnectOptions = url.parse().map_err(|e: sqlx::Error| bad(e.to_string()))?;
    let pool = PgPoolOptions::new()
        .max_connections(8)
        .acquire_timeout(Duration::from_secs(5))
        .connect_lazy_with(opts);
    match sqlx::query("SELECT 1").execute(&pool).await {
        Ok(_) => {}
        Err(e) if fatal(&e) => return Err(bad(e.to_string())),
        Err(e) => {
            tracing::warn!(key, error = %e, "PostgreSQL cannot be reached yet; waiting for it")
        }
    }
    Ok(pool)
}

/// Errors no retry will mend: the server answered and refused.
pub fn fatal(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Configuration(_) | sqlx::Error::Tls(_) => true,
        // invalid_password, invalid_authorization_specification, invalid_catalog_name
        sqlx::Error::Database(d) => {
            matches!(d.code().as_deref(), Some("28P01" | "28000" | "3D000"))
        }
        _ => false,
    }
}

/// Creates the attempt tables if missing (one replica at a time).
pub async fn migrate_attempts(pool: &PgPool) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('mission-control:migrate'))")
        .execute(&mut *tx)
        .await?;
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS mc_sign_in_attempts (
            id BIGSERIAL PRIMARY KEY,
            client TEXT NOT NULL,
            username TEXT NOT NULL,
            at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
            failed BOOLEAN NOT NULL DEFAULT false
         );
         CREATE INDEX IF NOT EXISTS mc_sign_in_attempts_client ON mc_sign_in_attempts (client, at);
         CREATE INDEX IF NOT EXISTS mc_sign_in_attempts_user ON mc_sign_in_attempts (username, at);
         CREATE TABLE IF NOT EXISTS mc_known_clients (
            client TEXT NOT NULL,
            username TEXT NOT NULL,
            at TIMESTAMPTZ NOT NULL,
            PRIMARY KEY (client, username)
         );",
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// Sign-in attempts counted in PostgreSQL. Reservations are serialised with a transaction
/// advisory lock, so two replicas never both pass on the last free attempt; times are the
/// database's, so replicas' clocks do not matter.
#[derive(Clone, Debug)]
pub struct PgAttemptLog {
    pool: PgPool,
}

impl PgAttemptLog {
    /// A log in `pool`'s database (tables from [`migrate_attempts`]).
    pub fn new(pool: PgPool) -> Arc<Self> {
        Arc::new(Self { pool })
    }

    async fn load(
        tx: &mut sqlx::PgConnection,
        column: &str,
        key: &str,
        window: f64,
    ) -> Result<Load, sqlx::Error> {
        let rows = sqlx::query(&format!(
            "SELECT (EXTRACT(EPOCH FROM clock_timestamp() - at) * 1000)::BIGINT, failed
             FROM mc_sign_in_attempts
             WHERE {column} = $1 AND at > clock_timestamp() - make_interval(secs => $2)
             ORDER BY at"
        ))
        .bind(key)
        .bind(window)
        .fetch_all(&mut *tx)
        .await?;
        let mut load = Load::default();
        for r in rows {
            if r.get::<bool, _>(1) {
                let ms: i64 = r.get(0);
                load.failures_ago
                    .push(Duration::from_millis(ms.max(0) as u64));
            } else {
                load.pending += 1;
            }
        }
        Ok(load)
    }
}

#[async_trait]
impl AttemptLog for PgAttemptLog {
    async fn reserve(
        &self,
        limits: &RateLimits,
        client: &str,
        user: &str,
    ) -> Result<Result<u64, u64>, String> {
        let window = limits.window.as_secs_f64();
        let run = async {
            let mut tx = self.pool.begin().await?;
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext('mission-control:sign-in'))")
                .execute(&mut *tx)
                .await?;
            // Rows past two windows count for nothing (also reservations of a replica that
            // died before it could resolve them).
            sqlx::query(
                "DELETE FROM mc_sign_in_attempts WHERE at < clock_timestamp() - make_interval(secs => $1)",
            )
            .bind(2.0 * window)
            .execute(&mut *tx)
            .await?;
            let client_load = Self::load(&mut tx, "client", client, window).await?;
            let user_load = Self::load(&mut tx, "username", user, window).await?;
            let known: bool = sqlx::query(
                "SELECT EXISTS (SELECT 1 FROM mc_known_clients
                 WHERE client = $1 AND username = $2 AND at > clock_timestamp() - make_interval(secs => $3))",
            )
            .bind(client)
            .bind(user)
            .bind(app::ssr::KNOWN_FOR.as_secs_f64())
            .fetch_one(&mut *tx)
            .await?
            .get(0);
            if let Err(wait) = verdict(limits, &client_load, &user_load, known) {
                return Ok(Err(wait));
            }
            let id: i64 = sqlx::query(
                "INSERT INTO mc_sign_in_attempts (client, username) VALUES ($1, $2) RETURNING id",
            )
            .bind(client)
            .bind(user)
            .fetch_one(&mut *tx)
            .await?
            .get(0);
            tx.commit().await?;
            Ok::<_, sqlx::Error>(Ok(id as u64))
        };
        run.await.map_err(|e| e.to_string())
    }

    async fn resolve(&self, id: u64, client: &str, user: &str, outcome: Outcome) {
        let id = id as i64;
        let result = match outcome {
            Outcome::Failed => sqlx::query(
                "UPDATE mc_sign_in_attempts SET failed = true, at = clock_timestamp() WHERE id = $1",
            )
            .bind(id)
            .execute(&self.pool)
            .await
            .map(drop),
            Outcome::Dropped => sqlx::query("DELETE FROM mc_sign_in_attempts WHERE id = $1")
                .bind(id)
                .execute(&self.pool)
                .await
                .map(drop),
            Outcome::Succeeded => {
                let known = sqlx::query(
                    "INSERT INTO mc_known_clients (client, username, at) VALUES ($1, $2, clock_timestamp())
                     ON CONFLICT (client, username) DO UPDATE SET at = EXCLUDED.at",
                )
                .bind(client)
                .bind(user)
                .execute(&self.pool)
                .await;
                let gone = sqlx::query("DELETE FROM mc_sign_in_attempts WHERE id = $1")
                    .bind(id)
                    .execute(&self.pool)
                    .await;
                known.and(gone).map(drop)
            }
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "could not record a sign-in attempt's outcome");
        }
    }
}
