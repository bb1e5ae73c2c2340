//! Events: recorded with aggregation of identical ones, and a change sequence number that
//! streams resume after.

use kluster::{EventReason, EventType};
use sqlx::Row;

use super::{Store, StoreError};

impl Store {
    /// Records an event about a kluster. An identical event (same type, reason and
    /// message) seen before is aggregated: its count grows and its last timestamp moves.
    /// Either way the event gets the next sequence number and streams wake up. Returns the
    /// event's id.
    pub async fn record_event(
        &self,
        project: &str,
        kluster: &str,
        kind: EventType,
        reason: &EventReason,
        message: &str,
    ) -> Result<i64, StoreError> {
        self.record_event_counted(project, kluster, kind, reason, message)
            .await
            .map(|(id, _)| id)
    }

    /// [`Store::record_event`], also returning the event's count (1: new).
    pub async fn record_event_counted(
        &self,
        project: &str,
        kluster: &str,
        kind: EventType,
        reason: &EventReason,
        message: &str,
    ) -> Result<(i64, i64), StoreError> {
        let (kind, reason) = (kind.as_str(), reason.as_str());
        // Single statements, so concurrent writers cannot hand out one sequence number twice.
        let bumped = sqlx::query(
            "UPDATE events SET count = count + 1,
                last_timestamp = strftime('%Y-%m-%dT%H:%M:%SZ','now'),
                seq = (SELECT MAX(seq) + 1 FROM events)
             WHERE id = (SELECT id FROM events
                         WHERE project_id = ? AND kluster = ? AND type = ? AND reason = ? AND message = ?
                         ORDER BY id DESC LIMIT 1)
             RETURNING id, seq, count",
        )
        .bind(project)
        .bind(kluster)
        .bind(kind)
        .bind(reason)
        .bind(message)
        .fetch_optional(&self.pool)
        .await?;
        let row = match bumped {
            Some(row) => row,
            None => {
                sqlx::query(
                    "INSERT INTO events (project_id, kluster, type, reason, message, first_timestamp, last_timestamp, seq)
                     VALUES (?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'), strftime('%Y-%m-%dT%H:%M:%SZ','now'),
                             (SELECT COALESCE(MAX(seq), 0) + 1 FROM events))
                     RETURNING id, seq, count",
                )
                .bind(project)
                .bind(kluster)
                .bind(kind)
                .bind(reason)
                .bind(message)
                .fetch_one(&self.pool)
                .await?
            }
        };
        let (id, seq, count): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
        self.latest.send_if_modified(|latest| {
            let newer = seq > *latest;
            if newer {
                *latest = seq;
            }
            newer
        });
        Ok((id, count))
    }

    /// A kluster's events, oldest first, in the Kubernikus `Event` shape.
    pub async fn events(
        &self,
        project: &str,
        kluster: &str,
    ) -> Result<Vec<kluster::Event>, StoreError> {
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type FROM events
             WHERE project_id = ? AND kluster = ? ORDER BY last_timestamp, id",
        )
        .bind(project)
        .bind(kluster)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(event_of).collect())
    }

    /// The project's events changed after sequence number `after` (optionally of one
    /// kluster), oldest change first, at most `limit`.
    pub async fn events_since(
        &self,
        project: &str,
        kluster: Option<&str>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<kluster::ProjectEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type, id, seq, kluster
             FROM events
             WHERE project_id = ? AND seq > ? AND (? IS NULL OR kluster = ?)
             ORDER BY seq LIMIT ?",
        )
        .bind(project)
        .bind(after)
        .bind(kluster)
        .bind(kluster)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(project_event_of).collect())
    }

    /// The project's `n` most recently changed events (optionally of one kluster), oldest
    /// change first.
    pub async fn events_latest(
        &self,
        project: &str,
        kluster: Option<&str>,
        n: i64,
    ) -> Result<Vec<kluster::ProjectEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT count, last_timestamp, first_timestamp, reason, message, type, id, seq, kluster
             FROM events
             WHERE project_id = ? AND (? IS NULL OR kluster = ?)
             ORDER BY seq DESC LIMIT ?",
        )
        .bind(project)
        .bind(kluster)
        .bind(kluster)
        .bind(n)
        .fetch_all(&self.pool)
        .await?;
        let mut out: Vec<kluster::ProjectEvent> = rows.iter().map(project_event_of).collect();
        out.reverse();
        Ok(out)
    }
}

/// Columns: the six of [`event_of`], then id, seq, kluster.
fn project_event_of(r: &sqlx::sqlite::SqliteRow) -> kluster::ProjectEvent {
    kluster::ProjectEvent {
        event: event_of(r),
        id: r.get(6),
        seq: r.get(7),
        kluster: r.get(8),
    }
}

fn event_of(r: &sqlx::sqlite::SqliteRow) -> kluster::Event {
    kluster::Event {
        count: r.get(0),
        last_timestamp: r.get(1),
        first_timestamp: r.get(2),
        reason: r.get(3),
        message: r.get(4),
        kind: r.get(5),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;

    #[tokio::test]
    async fn identical_events_aggregate_and_stay_in_their_project() {
        let s = Store::open(&db_path("events")).await.unwrap();
        let a = s
            .record_event(
                "p1",
                "k",
                EventType::Warning,
                &EventReason::FailedCreateNode,
                "quota",
            )
            .await
            .unwrap();
        let b = s
            .record_event(
                "p1",
                "k",
                EventType::Warning,
                &EventReason::FailedCreateNode,
                "quota",
            )
            .await
            .unwrap();
        let c = s
            .record_event("p1", "k", EventType::Normal, &EventReason::Running, "up")
            .await
            .unwrap();
        assert_eq!(a, b);
        assert!(c > a, "ids grow");
        let ev = s.events("p1", "k").await.unwrap();
        assert_eq!(ev.len(), 2);
        assert_eq!(
            (ev[0].reason.as_str(), ev[0].count),
            ("FailedCreateNode", 2)
        );
        assert!(s.events("p2", "k").await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn every_change_gets_the_next_sequence_number_and_wakes_readers() {
        let s = Store::open(&db_path("seq")).await.unwrap();
        let mut latest = s.latest_seq();
        let a = s
            .record_event(
                "p1",
                "k",
                EventType::Warning,
                &EventReason::Other("X".into()),
                "m",
            )
            .await
            .unwrap();
        s.record_event(
            "p1",
            "j",
            EventType::Normal,
            &EventReason::Other("Y".into()),
            "n",
        )
        .await
        .unwrap();
        assert!(latest.has_changed().unwrap());
        let after: i64 = *latest.borrow_and_update();
        assert_eq!(after, 2);
        // Aggregating an old event moves it to the end of the sequence.
        s.record_event(
            "p1",
            "k",
            EventType::Warning,
            &EventReason::Other("X".into()),
            "m",
        )
        .await
        .unwrap();
        let since = s.events_since("p1", None, after, 100).await.unwrap();
        assert_eq!(since.len(), 1);
        assert_eq!((since[0].id, since[0].seq, since[0].event.count), (a, 3, 2));
        let all = s.events_since("p1", None, 0, 100).await.unwrap();
        assert_eq!(
            all.iter().map(|e| e.kluster.as_str()).collect::<Vec<_>>(),
            ["j", "k"]
        );
        assert_eq!(
            s.events_since("p1", Some("j"), 0, 100).await.unwrap().len(),
            1
        );
        assert!(s.events_since("p2", None, 0, 100).await.unwrap().is_empty());
        assert_eq!(
            s.events_since("p1", None, 0, 1).await.unwrap().len(),
            1,
            "limit"
        );
        let newest = s.events_latest("p1", None, 1).await.unwrap();
        assert_eq!((newest[0].kluster.as_str(), newest[0].seq), ("k", 3));
    }
}
