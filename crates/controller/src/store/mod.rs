//! Persistent state on SQLite (one machine; WAL) or PostgreSQL (several replicas), through
//! sqlx's `Any` driver with one set of portable queries. Every kluster query is keyed by
//! project: one project can never see another's klusters.
//!
//! [`schema`] (migrations per engine, version guard), [`klusters`] (klusters: read,
//! change), [`create`] (klusters added with their CA, one create per project at a time),
//! [`cas`] (a kluster's CA), [`events`] (events, aggregation and the change sequence), [`leases`] (which replica reconciles), [`sim`] (the simulated cloud's state),
//! [`notify`] (changes other replicas made, on PostgreSQL), [`database`] (where it lives:
//! [`Database`], [`Dialect`]), [`error`] ([`StoreError`]), [`connect`] (connecting and
//! migrating, with backoff on PostgreSQL); here: the store itself and the change
//! notifications streams wait on. Every method on the store runs in a `store` span
//! (`store.operation`), a child of the request or reconcile span that called it.

mod audit;
mod cas;
mod connect;
mod create;
mod database;
mod error;
mod events;
mod klusters;
mod leases;
mod listing;
mod notify;
mod ops;
mod schema;
mod sim;
mod users;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use kluster::Kluster;
use sqlx::AnyPool;

#[cfg(any(test, feature = "test-fixtures"))]
pub use audit::checks as audit_checks;
pub use audit::{audit_time, AuditFilter};
pub use cas::CaRecord;
pub use database::{Database, Dialect};
pub use error::StoreError;
pub use events::NewEvent;
pub use klusters::new_uid;
#[cfg(any(test, feature = "test-fixtures"))]
pub use listing::checks as listing_checks;
pub use ops::RepeatedWarning;
pub use schema::SCHEMA_VERSION;
pub use users::UserRecord;

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
    /// What the reconciler remembers about some of those servers beyond their ids.
    pub marks: std::collections::BTreeMap<String, ServerMark>,
}

/// What the reconciler remembers about one of a kluster's servers beyond its id (stored
/// beside it in the list of server ids as `id:booting` or `id:started`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerMark {
    /// Launch created it and it has not been seen up yet: its `SuccessfulCreateNode` is
    /// still to come.
    Booting,
    /// It was found stopped and started once: if it stops again it is replaced.
    Started,
}

impl ServerMark {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerMark::Booting => "booting",
            ServerMark::Started => "started",
        }
    }

    /// Splits a stored entry (`id` or `id:mark`); an unknown mark is dropped.
    pub fn split(entry: &str) -> (&str, Option<ServerMark>) {
        match entry.split_once(':') {
            Some((id, "booting")) => (id, Some(ServerMark::Booting)),
            Some((id, "started")) => (id, Some(ServerMark::Started)),
            Some((id, _)) => (id, None),
            None => (entry, None),
        }
    }
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
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "ping"))]
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
}
