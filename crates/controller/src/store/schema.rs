//! The schema: migrations applied in order, per engine. SQLite keeps its version in
//! `PRAGMA user_version`, PostgreSQL in table `mc_schema` (migrated under an advisory lock,
//! so two replicas starting together migrate once). A database migrated by a newer
//! controller is refused with a sentence: the older replica does not run against it.

use super::{Dialect, Store, StoreError};

/// One schema version: its SQLite and its PostgreSQL statements ("" = nothing to do).
struct Migration {
    sqlite: &'static str,
    postgres: &'static str,
}

/// The schema version this controller writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const MIGRATIONS: &[Migration] = &[
    // 1: klusters and events (PostgreSQL starts at version 4's shape).
    Migration {
        sqlite: "CREATE TABLE klusters (
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
        postgres: "CREATE TABLE klusters (
            project_id TEXT NOT NULL,
            name TEXT NOT NULL,
            body TEXT NOT NULL,
            phase TEXT NOT NULL,
            creator TEXT NOT NULL,
            termination_protected BIGINT NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            phase_since TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (project_id, name)
         );
         CREATE TABLE events (
            id BIGSERIAL PRIMARY KEY,
            project_id TEXT NOT NULL,
            kluster TEXT NOT NULL,
            type TEXT NOT NULL,
            reason TEXT NOT NULL,
            message TEXT NOT NULL,
            count BIGINT NOT NULL DEFAULT 1,
            first_timestamp TEXT NOT NULL,
            last_timestamp TEXT NOT NULL,
            seq BIGINT NOT NULL DEFAULT 0
         );
         CREATE INDEX events_by_kluster ON events (project_id, kluster, id);
         CREATE INDEX events_by_seq ON events (project_id, seq);
         CREATE TABLE kluster_cas (
            project_id TEXT NOT NULL,
            name TEXT NOT NULL,
            cert_pem TEXT NOT NULL,
            key_sealed BYTEA NOT NULL,
            PRIMARY KEY (project_id, name)
         );
         CREATE SEQUENCE event_seq;",
    },
    // 2: each kluster's client CA; the key sealed with the configured key.
    Migration {
        sqlite: "CREATE TABLE kluster_cas (
            project_id TEXT NOT NULL,
            name TEXT NOT NULL,
            cert_pem TEXT NOT NULL,
            key_sealed BLOB NOT NULL,
            PRIMARY KEY (project_id, name)
         );",
        postgres: "",
    },
    // 3: when the kluster entered its phase ('' = at creation).
    Migration {
        sqlite: "ALTER TABLE klusters ADD COLUMN phase_since TEXT NOT NULL DEFAULT '';",
        postgres: "",
    },
    // 4: a change sequence on events, so streams can resume after aggregated updates.
    Migration {
        sqlite: "ALTER TABLE events ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
         UPDATE events SET seq = id;
         CREATE INDEX events_by_seq ON events (project_id, seq);",
        postgres: "",
    },
    // 5: which replica reconciles (leases), the simulated cloud's state (it moved from a
    // side file into the database), and the newest sequence number found fast.
    Migration {
        sqlite: "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_ms INTEGER NOT NULL);
         CREATE TABLE sim_projects (project_id TEXT PRIMARY KEY, state TEXT NOT NULL);
         CREATE INDEX events_seq ON events (seq);",
        postgres: "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_ms BIGINT NOT NULL);
         CREATE TABLE sim_projects (project_id TEXT PRIMARY KEY, state TEXT NOT NULL);
         CREATE INDEX events_seq ON events (seq);",
    },
    // 6: a uid per kluster, and events keyed by it (a kluster created again under an old
    // name starts without the old one's history); events found by age for pruning. Old
    // events go to the kluster of their name only if it existed when they began.
    Migration {
        sqlite: "ALTER TABLE klusters ADD COLUMN uid TEXT NOT NULL DEFAULT '';
         UPDATE klusters SET uid = lower(hex(randomblob(16)));
         CREATE UNIQUE INDEX klusters_by_uid ON klusters (uid);
         ALTER TABLE events ADD COLUMN kluster_uid TEXT NOT NULL DEFAULT '';
         UPDATE events SET kluster_uid = COALESCE((SELECT k.uid FROM klusters k
             WHERE k.project_id = events.project_id AND k.name = events.kluster
               AND k.created_at <= events.first_timestamp), '');
         CREATE INDEX events_by_time ON events (last_timestamp);",
        postgres: "ALTER TABLE klusters ADD COLUMN uid TEXT NOT NULL DEFAULT '';
         UPDATE klusters SET uid = md5(random()::text || clock_timestamp()::text || project_id || name);
         CREATE UNIQUE INDEX klusters_by_uid ON klusters (uid);
         ALTER TABLE events ADD COLUMN kluster_uid TEXT NOT NULL DEFAULT '';
         UPDATE events SET kluster_uid = k.uid FROM klusters k
             WHERE k.project_id = events.project_id AND k.name = events.kluster
               AND k.created_at <= events.first_timestamp;
         CREATE INDEX events_by_time ON events (last_timestamp);",
    },
    // 7: a version per kluster that grows with every change of its spec (optimistic
    // concurrency: If-Match), and a row per project that creates lock first, so that two
    // creates never pick the same default pod range.
    Migration {
        sqlite: "ALTER TABLE klusters ADD COLUMN resource_version INTEGER NOT NULL DEFAULT 1;
         CREATE TABLE kluster_creates (project_id TEXT PRIMARY KEY, creates INTEGER NOT NULL DEFAULT 0);",
        postgres: "ALTER TABLE klusters ADD COLUMN resource_version BIGINT NOT NULL DEFAULT 1;
         CREATE TABLE kluster_creates (project_id TEXT PRIMARY KEY, creates BIGINT NOT NULL DEFAULT 0);",
    },
    // 8: the ids of a kluster's servers as the reconciler last knew them, so that a server
    // listing lacking some is checked server by server before anything acts on it.
    Migration {
        sqlite: "ALTER TABLE klusters ADD COLUMN server_ids TEXT NOT NULL DEFAULT '';",
        postgres: "ALTER TABLE klusters ADD COLUMN server_ids TEXT NOT NULL DEFAULT '';",
    },
    // 9: the audit trail: who changed which kluster how, and who was issued credentials.
    Migration {
        sqlite: "CREATE TABLE audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            project_id TEXT NOT NULL,
            project_name TEXT NOT NULL,
            kluster TEXT NOT NULL,
            action TEXT NOT NULL,
            user_id TEXT NOT NULL,
            user_name TEXT NOT NULL,
            user_domain TEXT NOT NULL,
            changes TEXT NOT NULL,
            request_id TEXT NOT NULL,
            client_addr TEXT NOT NULL
         );
         CREATE INDEX audit_by_project ON audit (project_id, id);
         CREATE INDEX audit_by_kluster ON audit (project_id, kluster, id);",
        postgres: "CREATE TABLE audit (
            id BIGSERIAL PRIMARY KEY,
            at TEXT NOT NULL,
            project_id TEXT NOT NULL,
            project_name TEXT NOT NULL,
            kluster TEXT NOT NULL,
            action TEXT NOT NULL,
            user_id TEXT NOT NULL,
            user_name TEXT NOT NULL,
            user_domain TEXT NOT NULL,
            changes TEXT NOT NULL,
            request_id TEXT NOT NULL,
            client_addr TEXT NOT NULL
         );
         CREATE INDEX audit_by_project ON audit (project_id, id);
         CREATE INDEX audit_by_kluster ON audit (project_id, kluster, id);",
    },
    // 10: an event's typed detail (e.g. QuotaExceeded; '' = none).
    Migration {
        sqlite: "ALTER TABLE events ADD COLUMN detail TEXT NOT NULL DEFAULT '';",
        postgres: "ALTER TABLE events ADD COLUMN detail TEXT NOT NULL DEFAULT '';",
    },
    // 11: a kluster's node count (the sum of its pools' sizes), kept with every write of
    // its body, so the list sorts by nodes in the database (like by name, phase, age)
    // instead of loading and sorting the whole project. Existing rows are counted here.
    Migration {
        sqlite: "ALTER TABLE klusters ADD COLUMN nodes INTEGER NOT NULL DEFAULT 0;
         UPDATE klusters SET nodes = COALESCE((SELECT SUM(MAX(CAST(json_extract(p.value, '$.size') AS INTEGER), 0))
             FROM json_each(klusters.body, '$.spec.nodePools') p), 0);
         CREATE INDEX klusters_by_nodes ON klusters (project_id, nodes, name);",
        postgres: "ALTER TABLE klusters ADD COLUMN nodes BIGINT NOT NULL DEFAULT 0;
         UPDATE klusters SET nodes = COALESCE((SELECT SUM(GREATEST((p->>'size')::bigint, 0))
             FROM jsonb_array_elements(CASE WHEN jsonb_typeof(klusters.body::jsonb->'spec'->'nodePools') = 'array'
                 THEN klusters.body::jsonb->'spec'->'nodePools' ELSE '[]'::jsonb END) p), 0);
         CREATE INDEX klusters_by_nodes ON klusters (project_id, nodes, name);",
    },
    // 12: the list filtered by phase reads a page in name order, and counts its matches,
    // from an index (not from every row of the project).
    Migration {
        sqlite: "CREATE INDEX klusters_by_phase ON klusters (project_id, phase, name);",
        postgres: "CREATE INDEX klusters_by_phase ON klusters (project_id, phase, name);",
    },
    // 13: each kluster's own OpenStack user (when the cloud makes them): its name, domain,
    // id once Keystone has it, and its password sealed with the configured key.
    Migration {
        sqlite: "CREATE TABLE kluster_users (
            project_id TEXT NOT NULL,
            name TEXT NOT NULL,
            user_name TEXT NOT NULL,
            domain TEXT NOT NULL,
            user_id TEXT NOT NULL DEFAULT '',
            password_sealed BLOB NOT NULL,
            PRIMARY KEY (project_id, name)
         );",
        postgres: "CREATE TABLE kluster_users (
            project_id TEXT NOT NULL,
            name TEXT NOT NULL,
            user_name TEXT NOT NULL,
            domain TEXT NOT NULL,
            user_id TEXT NOT NULL DEFAULT '',
            password_sealed BYTEA NOT NULL,
            PRIMARY KEY (project_id, name)
         );",
    },
];

fn too_new(found: i64) -> StoreError {
    StoreError::TooNew(format!(
        "the database has schema version {found}, newer than this controller's {SCHEMA_VERSION}: \
         a newer controller migrated it; upgrade this replica instead of running it against that database"
    ))
}

impl Store {
    /// Applies the migrations the database has not seen yet, in one transaction; refuses a
    /// database migrated by a newer controller.
    pub(super) async fn migrate(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let version: i64 = match self.dialect {
            Dialect::Sqlite => {
                sqlx::query_scalar("PRAGMA user_version")
                    .fetch_one(&mut *tx)
                    .await?
            }
            Dialect::Postgres => {
                sqlx::query(
                    "SELECT pg_advisory_xact_lock(hashtext('mission-control:controller-schema'))",
                )
                .execute(&mut *tx)
                .await?;
                sqlx::raw_sql("CREATE TABLE IF NOT EXISTS mc_schema (version BIGINT NOT NULL)")
                    .execute(&mut *tx)
                    .await?;
                sqlx::query_scalar("SELECT COALESCE(MAX(version), 0) FROM mc_schema")
                    .fetch_one(&mut *tx)
                    .await?
            }
        };
        if version > SCHEMA_VERSION {
            return Err(too_new(version));
        }
        for (i, m) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            let sql = match self.dialect {
                Dialect::Sqlite => m.sqlite,
                Dialect::Postgres => m.postgres,
            };
            if !sql.is_empty() {
                sqlx::raw_sql(sql).execute(&mut *tx).await?;
            }
            let next = i as i64 + 1;
            match self.dialect {
                Dialect::Sqlite => {
                    sqlx::raw_sql(&format!("PRAGMA user_version = {next}"))
                        .execute(&mut *tx)
                        .await?;
                }
                Dialect::Postgres => {
                    sqlx::query("DELETE FROM mc_schema")
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query("INSERT INTO mc_schema (version) VALUES ($1)")
                        .bind(next)
                        .execute(&mut *tx)
                        .await?;
                }
            }
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;

    #[tokio::test]
    async fn a_database_from_a_newer_controller_is_refused_in_words() {
        let path = db_path("too-new");
        drop(Store::open(&path).await.unwrap());
        {
            let s = Store::open(&path).await.unwrap();
            sqlx::raw_sql("PRAGMA user_version = 99")
                .execute(&s.pool)
                .await
                .unwrap();
        }
        let e = Store::open(&path).await.unwrap_err();
        assert!(e.is_fatal());
        assert!(
            e.to_string()
                .contains("schema version 99, newer than this controller's"),
            "{e}"
        );
    }
}
