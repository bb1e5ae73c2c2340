//! Klusters: list, read, insert (with their CA), update, change in a transaction, remove.

use kluster::Kluster;
use sqlx::any::AnyRow;
use sqlx::Row;

use super::{now_text, CaRecord, Observed, Store, StoreError, StoredKluster};

pub(super) const COLUMNS: &str = "body, creator, termination_protected";

impl Store {
    /// The project's klusters, by name, each with its creation time in `status.createdAt`
    /// (an extension).
    pub async fn list(&self, project: &str) -> Result<Vec<StoredKluster>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS}, created_at FROM klusters WHERE project_id = $1 ORDER BY name"
        ))
        .bind(project)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(decode_listed).collect()
    }

    /// One kluster of the project.
    pub async fn get(
        &self,
        project: &str,
        name: &str,
    ) -> Result<Option<StoredKluster>, StoreError> {
        self.check_ready()?;
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM klusters WHERE project_id = $1 AND name = $2"
        ))
        .bind(project)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(decode).transpose()
    }

    /// Adds a kluster and its CA in one transaction; [`StoreError::Conflict`] when the name
    /// is taken in the project.
    pub async fn insert(
        &self,
        project: &str,
        k: &StoredKluster,
        ca: &CaRecord,
    ) -> Result<(), StoreError> {
        self.check_ready()?;
        let body =
            serde_json::to_string(&k.kluster).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        let res = sqlx::query(
            "INSERT INTO klusters (project_id, name, body, phase, creator, termination_protected, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(project)
        .bind(&k.kluster.name)
        .bind(body)
        .bind(k.kluster.status.phase.as_str())
        .bind(&k.creator)
        .bind(i64::from(k.termination_protected))
        .bind(now_text(false))
        .execute(&mut *tx)
        .await;
        match res {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                return Err(StoreError::Conflict)
            }
            Err(e) => return Err(e.into()),
            Ok(_) => {}
        }
        sqlx::query(
            "INSERT INTO kluster_cas (project_id, name, cert_pem, key_sealed) VALUES ($1, $2, $3, $4)
             ON CONFLICT (project_id, name) DO UPDATE SET cert_pem = excluded.cert_pem, key_sealed = excluded.key_sealed",
        )
        .bind(project)
        .bind(&k.kluster.name)
        .bind(&ca.cert_pem)
        .bind(&ca.key_sealed)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.kluster_changed(project, &k.kluster.name).await;
        Ok(())
    }

    /// Replaces a kluster's body (spec and status); false when it does not exist.
    pub async fn update(&self, project: &str, k: &Kluster) -> Result<bool, StoreError> {
        self.check_ready()?;
        let body = serde_json::to_string(k).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let res = sqlx::query(UPDATE_BODY)
            .bind(body)
            .bind(k.status.phase.as_str())
            .bind(now_text(true))
            .bind(project)
            .bind(&k.name)
            .execute(&self.pool)
            .await?;
        self.kluster_changed(project, &k.name).await;
        Ok(res.rows_affected() == 1)
    }

    /// Changes a stored kluster with `change` inside one write transaction, so that
    /// concurrent writers (API and reconcilers) never overwrite each other's fields. `None`
    /// when the kluster does not exist; `Some(Err)` when `change` refused (nothing written).
    pub async fn modify<E>(
        &self,
        project: &str,
        name: &str,
        change: impl FnOnce(&mut Kluster) -> Result<(), E>,
    ) -> Result<Option<Result<Kluster, E>>, StoreError> {
        self.check_ready()?;
        let mut tx = self.pool.begin().await?;
        // Take the write lock first (a no-op write: SQLite's database lock, PostgreSQL's
        // row lock), so the read below cannot go stale.
        let touched =
            sqlx::query("UPDATE klusters SET name = name WHERE project_id = $1 AND name = $2")
                .bind(project)
                .bind(name)
                .execute(&mut *tx)
                .await?;
        if touched.rows_affected() == 0 {
            return Ok(None);
        }
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM klusters WHERE project_id = $1 AND name = $2"
        ))
        .bind(project)
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
        let mut k = decode(&row)?.kluster;
        if let Err(e) = change(&mut k) {
            return Ok(Some(Err(e)));
        }
        let body = serde_json::to_string(&k).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        sqlx::query(UPDATE_BODY)
            .bind(body)
            .bind(k.status.phase.as_str())
            .bind(now_text(true))
            .bind(project)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.kluster_changed(project, name).await;
        Ok(Some(Ok(k)))
    }

    /// Every kluster of every project, by project, with the time it has spent in its phase
    /// and its age, for the reconcilers.
    pub async fn list_all(&self) -> Result<Vec<Observed>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS}, project_id, created_at, phase_since FROM klusters ORDER BY project_id, name"
        ))
        .fetch_all(&self.pool)
        .await?;
        let now = time::OffsetDateTime::now_utc();
        let since = |text: &str| {
            time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
                .map(|t| std::time::Duration::try_from(now - t).unwrap_or_default())
                .map_err(|e| StoreError::Corrupt(format!("a stored time {text:?}: {e}")))
        };
        rows.iter()
            .map(|r| {
                let created: String = r.try_get(4)?;
                let phase_since: String = r.try_get(5)?;
                let age = since(&created)?;
                Ok(Observed {
                    project: r.try_get(3)?,
                    stored: decode(r)?,
                    in_phase: if phase_since.is_empty() {
                        age
                    } else {
                        since(&phase_since)?
                    },
                    age,
                })
            })
            .collect()
    }

    /// Removes a kluster and its CA; its events stay.
    pub async fn delete(&self, project: &str, name: &str) -> Result<bool, StoreError> {
        self.check_ready()?;
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM kluster_cas WHERE project_id = $1 AND name = $2")
            .bind(project)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let res = sqlx::query("DELETE FROM klusters WHERE project_id = $1 AND name = $2")
            .bind(project)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.kluster_changed(project, name).await;
        Ok(res.rows_affected() == 1)
    }

    /// Sets or clears termination protection; false when the kluster does not exist.
    pub async fn set_termination_protection(
        &self,
        project: &str,
        name: &str,
        on: bool,
    ) -> Result<bool, StoreError> {
        self.check_ready()?;
        let res = sqlx::query(
            "UPDATE klusters SET termination_protected = $1 WHERE project_id = $2 AND name = $3",
        )
        .bind(i64::from(on))
        .bind(project)
        .bind(name)
        .execute(&self.pool)
        .await?;
        Ok(res.rows_affected() == 1)
    }
}

/// Replaces body and phase; `phase_since` moves only when the phase changes (SET
/// expressions read the old row). Binds: body, phase, now, project, name.
const UPDATE_BODY: &str = "UPDATE klusters SET body = $1,
        phase_since = CASE WHEN phase <> $2 THEN $3 ELSE phase_since END,
        phase = $2
     WHERE project_id = $4 AND name = $5";

/// A kluster from the [`COLUMNS`] of a row followed by `created_at` (in `status.createdAt`).
pub(super) fn decode_listed(row: &AnyRow) -> Result<StoredKluster, StoreError> {
    let mut s = decode(row)?;
    s.kluster.status.created_at = row.try_get(3)?;
    Ok(s)
}

/// A kluster from the [`COLUMNS`] of a row.
fn decode(row: &AnyRow) -> Result<StoredKluster, StoreError> {
    let body: String = row.try_get(0)?;
    let kluster = serde_json::from_str(&body).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(StoredKluster {
        kluster,
        creator: row.try_get(1)?,
        termination_protected: row.try_get::<i64, _>(2)? != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use kluster::KlusterPhase;

    #[tokio::test]
    async fn klusters_are_per_project_unique_and_survive_reopening() {
        let path = db_path("tenancy");
        let s = Store::open(&path).await.unwrap();
        s.insert("p1", &stored("a"), &ca()).await.unwrap();
        s.insert("p2", &stored("a"), &ca()).await.unwrap();
        assert!(matches!(
            s.insert("p1", &stored("a"), &ca()).await,
            Err(StoreError::Conflict)
        ));
        assert_eq!(s.list("p1").await.unwrap().len(), 1);
        assert_eq!(s.ca("p1", "a").await.unwrap(), Some(ca()));
        assert_eq!(s.ca("p3", "a").await.unwrap(), None);
        assert!(
            s.get("p3", "a").await.unwrap().is_none(),
            "other projects see nothing"
        );
        let mut k = s.get("p1", "a").await.unwrap().unwrap().kluster;
        k.status.phase = KlusterPhase::Running;
        assert!(s.update("p1", &k).await.unwrap());
        assert!(
            !s.update("p3", &k).await.unwrap(),
            "no cross-project update"
        );
        assert!(s.set_termination_protection("p1", "a", true).await.unwrap());
        drop(s);
        let s = Store::open(&path).await.unwrap();
        let again = s.get("p1", "a").await.unwrap().unwrap();
        assert_eq!(again.kluster.status.phase, KlusterPhase::Running);
        assert!(again.termination_protected);
        assert_eq!(
            s.get("p2", "a")
                .await
                .unwrap()
                .unwrap()
                .kluster
                .status
                .phase,
            KlusterPhase::Pending
        );
    }
}
