//! The audit trail: one record per change to a kluster and per kubeconfig issued, newest
//! first when read, filtered by project, kluster, user, action and time.

use kluster::{AuditRecord, SpecChange};
use sqlx::any::AnyRow;
use sqlx::Row;

use super::{Store, StoreError};

/// Which audit records to read (empty strings: no filter).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Only this project (empty: all projects; callers scope it).
    pub project: String,
    /// Only this kluster.
    pub kluster: String,
    /// Only this user (name or id).
    pub user: String,
    /// Only this action.
    pub action: String,
    /// Only records at or after this time ([`audit_time`] format).
    pub since: String,
    /// Only records older than this id (paging; 0: from the newest).
    pub before: i64,
    /// At most this many.
    pub limit: i64,
}

/// A time in the audit's sortable text form: RFC 3339, UTC, always three fraction digits,
/// so that text order is time order on both engines.
pub fn audit_time(t: time::OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

const COLUMNS: &str = "id, at, project_id, project_name, kluster, action, user_id, user_name, \
                       user_domain, changes, request_id, client_addr";

impl Store {
    /// Appends an audit record (its `id` and `at` are set here); returns the id.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "audit"))]
    pub async fn audit(&self, r: &AuditRecord) -> Result<i64, StoreError> {
        self.check_ready()?;
        let changes =
            serde_json::to_string(&r.changes).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO audit (at, project_id, project_name, kluster, action, user_id, user_name,
                                user_domain, changes, request_id, client_addr)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        )
        .bind(audit_time(time::OffsetDateTime::now_utc()))
        .bind(&r.project_id)
        .bind(&r.project_name)
        .bind(&r.kluster)
        .bind(&r.action)
        .bind(&r.user_id)
        .bind(&r.user_name)
        .bind(&r.user_domain)
        .bind(changes)
        .bind(&r.request_id)
        .bind(&r.client_addr)
        .fetch_one(&self.pool)
        .await?;
        Ok(id)
    }

    /// Audit records matching `f`, newest first.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "audit_records"))]
    pub async fn audit_records(&self, f: &AuditFilter) -> Result<Vec<AuditRecord>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM audit
             WHERE ($1 = '' OR project_id = $1) AND ($2 = '' OR kluster = $2)
               AND ($3 = '' OR user_name = $3 OR user_id = $3) AND ($4 = '' OR action = $4)
               AND ($5 = '' OR at >= $5) AND ($6 = 0 OR id < $6)
             ORDER BY id DESC LIMIT $7"
        ))
        .bind(&f.project)
        .bind(&f.kluster)
        .bind(&f.user)
        .bind(&f.action)
        .bind(&f.since)
        .bind(f.before)
        .bind(f.limit.max(1))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(record_of).collect()
    }

    /// The request id of the newest change (not a credentials record) to each of the
    /// project's klusters, so that the reconcilers' lines carry the id of what they act on.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "last_change_requests"))]
    pub async fn last_change_requests(
        &self,
        project: &str,
    ) -> Result<std::collections::HashMap<String, String>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(
            "SELECT kluster, request_id FROM audit WHERE id IN (
                SELECT MAX(id) FROM audit WHERE project_id = $1 AND action <> 'credentials'
                GROUP BY kluster)",
        )
        .bind(project)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect()
    }

    /// Project names as callers' tokens named them (from the audit trail), by project id.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "project_names"))]
    pub async fn project_names(
        &self,
    ) -> Result<std::collections::HashMap<String, String>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(
            "SELECT project_id, project_name FROM audit WHERE id IN (
                SELECT MAX(id) FROM audit GROUP BY project_id)",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect()
    }
}

fn record_of(r: &AnyRow) -> Result<AuditRecord, StoreError> {
    let changes: String = r.try_get(9)?;
    Ok(AuditRecord {
        id: r.try_get(0)?,
        at: r.try_get(1)?,
        project_id: r.try_get(2)?,
        project_name: r.try_get(3)?,
        kluster: r.try_get(4)?,
        action: r.try_get(5)?,
        user_id: r.try_get(6)?,
        user_name: r.try_get(7)?,
        user_domain: r.try_get(8)?,
        changes: serde_json::from_str::<Vec<SpecChange>>(&changes)
            .map_err(|e| StoreError::Corrupt(format!("audit changes: {e}")))?,
        request_id: r.try_get(10)?,
        client_addr: r.try_get(11)?,
    })
}

#[cfg(any(test, feature = "test-fixtures"))]
pub mod checks {
    //! One behaviour check of the audit store, run on each engine (a test fixture, built
    //! for tests and with the `test-fixtures` feature only).
    use super::*;

    fn rec(project: &str, kluster: &str, action: &str, user: &str) -> AuditRecord {
        AuditRecord {
            project_id: project.into(),
            project_name: format!("{project}-name"),
            kluster: kluster.into(),
            action: action.into(),
            user_id: format!("{user}-id"),
            user_name: user.into(),
            user_domain: "demo".into(),
            changes: vec![SpecChange {
                field: "spec.nodePools[0].size".into(),
                before: "1".into(),
                after: "2".into(),
            }],
            request_id: format!("req-{kluster}-{action}"),
            client_addr: "198.51.100.7".into(),
            ..Default::default()
        }
    }

    /// Records are kept per project, filtered, newest first, paged; panics on a mismatch.
    pub async fn audit_trail_filters_and_scopes(s: &Store) {
        let start = audit_time(time::OffsetDateTime::now_utc() - time::Duration::seconds(1));
        let a = s.audit(&rec("p1", "a", "create", "alice")).await.unwrap();
        let b = s.audit(&rec("p1", "a", "scale", "bob")).await.unwrap();
        let c = s.audit(&rec("p2", "a", "create", "carol")).await.unwrap();
        s.audit(&rec("p1", "b", "credentials", "alice"))
            .await
            .unwrap();
        assert!(a < b && b < c, "ids grow");
        let all = |f: AuditFilter| async move {
            s.audit_records(&AuditFilter { limit: 100, ..f })
                .await
                .unwrap()
        };
        let p1 = all(AuditFilter {
            project: "p1".into(),
            ..Default::default()
        })
        .await;
        assert_eq!(p1.len(), 3, "p1's records only");
        assert!(p1.iter().all(|r| r.project_id == "p1"));
        assert_eq!(p1[0].action, "credentials", "newest first");
        assert_eq!(p1[2].changes[0].after, "2");
        assert_eq!(p1[2].client_addr, "198.51.100.7");
        assert!(p1[2].at >= start, "{} >= {start}", p1[2].at);
        let by_user = all(AuditFilter {
            project: "p1".into(),
            user: "bob".into(),
            ..Default::default()
        })
        .await;
        assert_eq!(by_user.len(), 1);
        assert_eq!(by_user[0].request_id, "req-a-scale");
        let by_kluster_action = all(AuditFilter {
            kluster: "a".into(),
            action: "create".into(),
            ..Default::default()
        })
        .await;
        assert_eq!(by_kluster_action.len(), 2, "all projects when unscoped");
        let future = all(AuditFilter {
            since: audit_time(time::OffsetDateTime::now_utc() + time::Duration::hours(1)),
            ..Default::default()
        })
        .await;
        assert!(future.is_empty(), "since filters");
        let page = s
            .audit_records(&AuditFilter {
                project: "p1".into(),
                before: b,
                limit: 10,
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(page.iter().map(|r| r.id).collect::<Vec<_>>(), [a]);
        let last = s.last_change_requests("p1").await.unwrap();
        assert_eq!(last.get("a").map(String::as_str), Some("req-a-scale"));
        assert!(!last.contains_key("b"), "credentials are not changes");
        let names = s.project_names().await.unwrap();
        assert_eq!(names.get("p2").map(String::as_str), Some("p2-name"));
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;

    #[tokio::test]
    async fn audit_records_are_scoped_filtered_and_paged_on_sqlite() {
        let s = Store::open(&db_path("audit")).await.unwrap();
        checks::audit_trail_filters_and_scopes(&s).await;
    }

    #[test]
    fn audit_times_sort_as_text() {
        let t = time::OffsetDateTime::from_unix_timestamp(1_709_287_200).unwrap()
            + time::Duration::milliseconds(500);
        assert_eq!(audit_time(t), "2024-03-01T10:00:00.500Z");
        assert!(audit_time(t) < audit_time(t + time::Duration::milliseconds(1)));
    }
}
