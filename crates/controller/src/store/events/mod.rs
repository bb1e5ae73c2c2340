//! Events: recorded with aggregation of identical ones, and a change sequence number that
//! streams resume after.

use kluster::{EventDetail, EventReason, EventType};
use sqlx::any::AnyRow;
use sqlx::Row;

use super::{now_text, Dialect, Store, StoreError};

/// An event to record with [`Store::record_event_counted`]: the event's fields, each a column.
#[derive(Clone, Copy, Debug)]
pub struct NewEvent<'a> {
    /// The kluster's project.
    pub project: &'a str,
    /// The kluster's name.
    pub kluster: &'a str,
    /// The kluster's uid; `None`: the uid of the kluster of that name now, none if there is
    /// none.
    pub uid: Option<&'a str>,
    /// `Normal` or `Warning`.
    pub kind: EventType,
    /// Why, in Kubernikus's spelling.
    pub reason: &'a EventReason,
    /// A typed detail, kept with a new event (an aggregated repeat has the same type, reason
    /// and message, so the same detail).
    pub detail: Option<&'a EventDetail>,
    /// What happened, in words.
    pub message: &'a str,
}

impl Store {
    /// Records an event about the kluster now named `kluster` (see
    /// [`Store::record_event_counted`]). Returns the event's id.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "record_event"))]
    pub async fn record_event(
        &self,
        project: &str,
        kluster: &str,
        kind: EventType,
        reason: &EventReason,
        message: &str,
    ) -> Result<i64, StoreError> {
        self.record_event_counted(NewEvent {
            project,
            kluster,
            uid: None,
            kind,
            reason,
            detail: None,
            message,
        })
        .await
        .map(|(id, _)| id)
    }

    /// Records `event` (see [`NewEvent`] for its uid and detail), returning its id and
    /// count (1: new). An identical event (same type, reason
    /// and message) of the same kluster seen before is aggregated: its count grows and its
    /// last timestamp moves. Either way the event gets the next sequence number and
    /// streams wake up.
    ///
    /// Sequence numbers are handed out in commit order: SQLite has one writer at a time;
    /// on PostgreSQL the transaction takes an advisory lock before it draws from the
    /// `event_seq` sequence, so a reader that saw seq n never misses a smaller one
    /// committed later. Other replicas learn of the event by `NOTIFY` at commit.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "record_event_counted"))]
    pub async fn record_event_counted(
        &self,
        event: NewEvent<'_>,
    ) -> Result<(i64, i64), StoreError> {
        self.check_ready()?;
        let NewEvent {
            project,
            kluster,
            uid,
            kind,
            reason,
            detail,
            message,
        } = event;
        let (kind, reason) = (kind.as_str(), reason.as_str());
        let detail = detail.map(EventDetail::as_str).unwrap_or_default();
        let next_seq = match self.dialect {
            Dialect::Sqlite => "(SELECT COALESCE(MAX(seq), 0) + 1 FROM events)",
            Dialect::Postgres => "nextval('event_seq')",
        };
        let now = now_text(false);
        let mut tx = self.pool.begin().await?;
        if self.dialect == Dialect::Postgres {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext('mission-control:event-seq'))")
                .execute(&mut *tx)
                .await?;
        }
        let uid = match uid {
            Some(u) => u.to_string(),
            None => {
                sqlx::query_scalar("SELECT uid FROM klusters WHERE project_id = $1 AND name = $2")
                    .bind(project)
                    .bind(kluster)
                    .fetch_optional(&mut *tx)
                    .await?
                    .unwrap_or_default()
            }
        };
        let bumped = sqlx::query(&format!(
            "UPDATE events SET count = count + 1, last_timestamp = $6, seq = {next_seq}
             WHERE id = (SELECT id FROM events
                         WHERE project_id = $1 AND kluster = $2 AND type = $3 AND reason = $4 AND message = $5
                           AND kluster_uid = $7
                         ORDER BY id DESC LIMIT 1)
             RETURNING id, seq, count"
        ))
        .bind(project)
        .bind(kluster)
        .bind(kind)
        .bind(reason)
        .bind(message)
        .bind(&now)
        .bind(&uid)
        .fetch_optional(&mut *tx)
        .await?;
        let row = match bumped {
            Some(row) => row,
            None => {
                sqlx::query(&format!(
                    "INSERT INTO events (project_id, kluster, type, reason, message, first_timestamp, last_timestamp, seq, kluster_uid, detail)
                     VALUES ($1, $2, $3, $4, $5, $6, $6, {next_seq}, $7, $8)
                     RETURNING id, seq, count"
                ))
                .bind(project)
                .bind(kluster)
                .bind(kind)
                .bind(reason)
                .bind(message)
                .bind(&now)
                .bind(&uid)
                .bind(detail)
                .fetch_one(&mut *tx)
                .await?
            }
        };
        let (id, seq, count): (i64, i64, i64) = (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
        if self.dialect == Dialect::Postgres {
            self.notify_in(&mut tx, super::notify::EVENTS, &seq.to_string())
                .await?;
        }
        tx.commit().await?;
        self.saw_seq(seq);
        Ok((id, count))
    }

    /// The events of kluster `kluster` with uid `uid` (`None`: of every kluster that had
    /// the name), oldest first, in the Kubernikus `Event` shape.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "events"))]
    pub async fn events(
        &self,
        project: &str,
        kluster: &str,
        uid: Option<&str>,
    ) -> Result<Vec<kluster::Event>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type, detail FROM events
             WHERE project_id = $1 AND kluster = $2 AND ($3 = '*' OR kluster_uid = $3)
             ORDER BY last_timestamp, id",
        )
        .bind(project)
        .bind(kluster)
        .bind(uid.unwrap_or("*"))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(event_of).collect()
    }

    /// Deletes the events whose last occurrence is older than `age`; returns how many.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "prune_events"))]
    pub async fn prune_events(&self, age: std::time::Duration) -> Result<u64, StoreError> {
        self.check_ready()?;
        let age = time::Duration::try_from(age).unwrap_or(time::Duration::MAX);
        let cutoff = time::OffsetDateTime::now_utc()
            .checked_sub(age)
            .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
            .max(time::OffsetDateTime::UNIX_EPOCH)
            .replace_nanosecond(0)
            .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
        let cutoff = cutoff
            .format(&time::format_description::well_known::Rfc3339)
            .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let res = sqlx::query("DELETE FROM events WHERE last_timestamp < $1")
            .bind(cutoff)
            .execute(&self.pool)
            .await?;
        Ok(res.rows_affected())
    }

    /// The project's events changed after sequence number `after` (optionally of one
    /// kluster), oldest change first, at most `limit`.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "events_since"))]
    pub async fn events_since(
        &self,
        project: &str,
        kluster: Option<&str>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<kluster::ProjectEvent>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type, detail, id, seq, kluster
             FROM events
             WHERE project_id = $1 AND seq > $2 AND ($3 = '' OR kluster = $3)
             ORDER BY seq LIMIT $4",
        )
        .bind(project)
        .bind(after)
        .bind(kluster.unwrap_or_default())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(project_event_of).collect()
    }

    /// The project's `n` most recently changed events (optionally of one kluster), oldest
    /// change first.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "events_latest"))]
    pub async fn events_latest(
        &self,
        project: &str,
        kluster: Option<&str>,
        n: i64,
    ) -> Result<Vec<kluster::ProjectEvent>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type, detail, id, seq, kluster
             FROM events
             WHERE project_id = $1 AND ($2 = '' OR kluster = $2)
             ORDER BY seq DESC LIMIT $3",
        )
        .bind(project)
        .bind(kluster.unwrap_or_default())
        .bind(n)
        .fetch_all(&self.pool)
        .await?;
        let mut out = rows
            .iter()
            .map(project_event_of)
            .collect::<Result<Vec<_>, _>>()?;
        out.reverse();
        Ok(out)
    }
}

/// Columns: the seven of [`event_of`], then id, seq, kluster.
pub(super) fn project_event_of(r: &AnyRow) -> Result<kluster::ProjectEvent, StoreError> {
    Ok(kluster::ProjectEvent {
        event: event_of(r)?,
        id: r.try_get(7)?,
        seq: r.try_get(8)?,
        kluster: r.try_get(9)?,
    })
}

/// Columns: count, last_timestamp, first_timestamp, reason, message, type, detail.
fn event_of(r: &AnyRow) -> Result<kluster::Event, StoreError> {
    let detail: String = r.try_get(6)?;
    Ok(kluster::Event {
        count: r.try_get(0)?,
        last_timestamp: r.try_get(1)?,
        first_timestamp: r.try_get(2)?,
        reason: r.try_get(3)?,
        message: r.try_get(4)?,
        kind: r.try_get(5)?,
        detail: (!detail.is_empty()).then(|| EventDetail::parse(&detail)),
    })
}

#[cfg(test)]
mod tests;
