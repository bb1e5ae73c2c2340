//! Changes other replicas made (PostgreSQL): a listener on `mc_events` (new sequence
//! numbers) and `mc_klusters` (stored klusters changed) wakes this process's streams; the
//! events table stays what streams read from, and a slow poll of the newest sequence
//! number covers notifications lost while the listener reconnected, so nothing is lost.
//! On SQLite there is one process, which wakes its own streams.

use std::sync::OnceLock;
use std::time::Duration;

use sqlx::postgres::PgListener;
use sqlx::AnyConnection;

use super::{Dialect, Store, StoreError};

/// Channel of new event sequence numbers.
pub(super) const EVENTS: &str = "mc_events";
/// Channel of changed klusters (`project/name`).
pub(super) const KLUSTERS: &str = "mc_klusters";
/// How often the newest sequence number is polled besides the notifications.
const POLL: Duration = Duration::from_secs(2);

/// This process's id in notification payloads, so it ignores its own.
fn replica() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        use rand_core::RngCore;
        format!("{:016x}", rand_core::OsRng.next_u64())
    })
}

impl Store {
    /// Sends `payload` on `channel` when `tx` commits (PostgreSQL only).
    pub(super) async fn notify_in(
        &self,
        tx: &mut AnyConnection,
        channel: &str,
        payload: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(channel)
            .bind(format!("{}\t{payload}", replica()))
            .execute(tx)
            .await?;
        Ok(())
    }

    /// Tells the reconcilers (here and on other replicas) and the streams that something of
    /// `project` changed outside its klusters' rows (e.g. the simulator's settings), so a
    /// settled project is looked at again at once.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "project_touched"))]
    pub async fn project_touched(&self, project: &str) {
        self.kluster_changed(project, "").await;
    }

    /// After a committed change to kluster `project/name`: wakes this process's streams
    /// and, on PostgreSQL, the other replicas' (a failed notification is logged: the
    /// others also poll).
    pub(super) async fn kluster_changed(&self, project: &str, name: &str) {
        self.touch(project, name);
        if self.dialect != Dialect::Postgres {
            return;
        }
        let sent = sqlx::query("SELECT pg_notify($1, $2)")
            .bind(KLUSTERS)
            .bind(format!("{}\t{project}/{name}", replica()))
            .execute(&self.pool)
            .await;
        if let Err(e) = sent {
            tracing::debug!(error = %e, "could not notify other replicas of a kluster change");
        }
    }
}

/// Until the process ends: passes other replicas' notifications to this process's streams,
/// and polls the newest sequence number every [`POLL`].
pub(super) async fn listen(store: Store, url: String) {
    let mut backoff = Duration::from_millis(250);
    let mut poll = tokio::time::interval(POLL);
    loop {
        let mut listener = match PgListener::connect(&url).await {
            Ok(mut l) => match l.listen_all([EVENTS, KLUSTERS]).await {
                Ok(()) => {
                    backoff = Duration::from_millis(250);
                    l
                }
                Err(_) => {
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(10));
                    continue;
                }
            },
            Err(_) => {
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(10));
                continue;
            }
        };
        loop {
            tokio::select! {
                n = listener.try_recv() => match n {
                    Ok(Some(n)) => deliver(&store, n.channel(), n.payload()),
                    // The connection dropped (notifications meanwhile are lost: the poll
                    // covers them); reconnect.
                    Ok(None) | Err(_) => break,
                },
                _ = poll.tick() => {
                    if store.check_ready().is_ok() {
                        if let Ok(seq) = sqlx::query_scalar::<_, i64>("SELECT COALESCE(MAX(seq), 0) FROM events")
                            .fetch_one(&store.pool)
                            .await
                        {
                            store.saw_seq(seq);
                        }
                    }
                }
            }
        }
    }
}

fn deliver(store: &Store, channel: &str, payload: &str) {
    let Some((from, what)) = payload.split_once('\t') else {
        return;
    };
    if from == replica() {
        return;
    }
    match channel {
        EVENTS => {
            if let Ok(seq) = what.parse::<i64>() {
                store.saw_seq(seq);
            }
        }
        KLUSTERS => {
            if let Some((project, name)) = what.split_once('/') {
                store.touch(project, name);
            }
        }
        _ => {}
    }
}
