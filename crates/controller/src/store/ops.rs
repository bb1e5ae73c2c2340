//! Cross-project reads for cloud admins: every project's events, and warnings that keep
//! repeating.

use kluster::OpsEvent;
use sqlx::Row;

use super::{Store, StoreError};

const EVENT_COLUMNS: &str =
    "count, last_timestamp, first_timestamp, reason, message, type, detail, id, seq, kluster, project_id";

/// A warning that keeps coming back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepeatedWarning {
    /// The project.
    pub project: String,
    /// The kluster.
    pub kluster: String,
    /// The reason.
    pub reason: String,
    /// The message.
    pub message: String,
    /// How often it was seen.
    pub count: i64,
}

impl Store {
    /// Events of every project (or of `project` when not empty) changed after `after`,
    /// oldest change first, at most `limit`.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "ops_events_since"))]
    pub async fn ops_events_since(
        &self,
        project: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<OpsEvent>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(&format!(
            "SELECT {EVENT_COLUMNS} FROM events
             WHERE seq > $1 AND ($2 = '' OR project_id = $2) ORDER BY seq LIMIT $3"
        ))
        .bind(after)
        .bind(project)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(ops_event_of).collect()
    }

    /// The `n` most recently changed events of every project (or of `project`), oldest
    /// change first.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "ops_events_latest"))]
    pub async fn ops_events_latest(
        &self,
        project: &str,
        n: i64,
    ) -> Result<Vec<OpsEvent>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(&format!(
            "SELECT {EVENT_COLUMNS} FROM events
             WHERE ($1 = '' OR project_id = $1) ORDER BY seq DESC LIMIT $2"
        ))
        .bind(project)
        .bind(n)
        .fetch_all(&self.pool)
        .await?;
        let mut out = rows
            .iter()
            .map(ops_event_of)
            .collect::<Result<Vec<_>, _>>()?;
        out.reverse();
        Ok(out)
    }

    /// Warnings seen at least `min_count` times whose last occurrence is at or after
    /// `since` (RFC 3339 without fraction, as events are stamped), newest first, at most 200.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "repeated_warnings"))]
    pub async fn repeated_warnings(
        &self,
        min_count: i64,
        since: &str,
    ) -> Result<Vec<RepeatedWarning>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(
            "SELECT project_id, kluster, reason, message, count FROM events
             WHERE type = 'Warning' AND count >= $1 AND last_timestamp >= $2
             ORDER BY seq DESC LIMIT 200",
        )
        .bind(min_count)
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RepeatedWarning {
                    project: r.try_get(0)?,
                    kluster: r.try_get(1)?,
                    reason: r.try_get(2)?,
                    message: r.try_get(3)?,
                    count: r.try_get(4)?,
                })
            })
            .collect()
    }
}

fn ops_event_of(r: &sqlx::any::AnyRow) -> Result<OpsEvent, StoreError> {
    Ok(OpsEvent {
        project_id: r.try_get(10)?,
        project_name: String::new(),
        event: super::events::project_event_of(r)?,
    })
}
