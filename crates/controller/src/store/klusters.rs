//! Klusters: list, read, insert (with their CA), update, change in a transaction, remove.

use kluster::Kluster;
use sqlx::Row;

use super::{CaRecord, Observed, Store, StoreError, StoredKluster};

impl Store {
    /// The project's klusters, by name.
    pub async fn list(&self, project: &str) -> Result<Vec<StoredKluster>, StoreError> {
        let rows = sqlx::query(
            "SELECT body, creator, termination_protected FROM klusters WHERE project_id = ? ORDER BY name",
        )
        .bind(project)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(decode).collect()
    }

    /// One kluster of the project.
    pub async fn get(
        &self,
        project: &str,
        name: &str,
    ) -> Result<Option<StoredKluster>, StoreError> {
        let row = sqlx::query(
            "SELECT body, creator, termination_protected FROM klusters WHERE project_id = ? AND name = ?",
        )
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
        let body =
            serde_json::to_string(&k.kluster).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        let res = sqlx::query(
            "INSERT INTO klusters (project_id, name, body, phase, creator, termination_protected, created_at)
             VALUES (?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
        )
        .bind(project)
        .bind(&k.kluster.name)
        .bind(body)
        .bind(k.kluster.status.phase.as_str())
        .bind(&k.creator)
        .bind(k.termination_protected)
        .execute(&mut *tx)
        .await;
        match res {
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                return Err(StoreError::Conflict)
            }
            Err(e) => return Err(e.into()),
            Ok(_) => {}
        }
        sqlx::query("INSERT OR REPLACE INTO kluster_cas (project_id, name, cert_pem, key_sealed) VALUES (?, ?, ?, ?)")
            .bind(project)
            .bind(&k.kluster.name)
            .bind(&ca.cert_pem)
            .bind(&ca.key_sealed)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.touch(project, &k.kluster.name);
        Ok(())
    }

    /// Replaces a kluster's body (spec and status); false when it does not exist.
    pub async fn update(&self, project: &str, k: &Kluster) -> Result<bool, StoreError> {
        let body = serde_json::to_string(k).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let phase = k.status.phase.as_str();
        // SET expressions read the old row: phase_since moves only when the phase changes.
        let res = sqlx::query(
            "UPDATE klusters SET body = ?,
                phase_since = CASE WHEN phase <> ? THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') ELSE phase_since END,
                phase = ?
             WHERE project_id = ? AND name = ?",
        )
        .bind(body)
        .bind(phase)
        .bind(phase)
        .bind(project)
        .bind(&k.name)
        .execute(&self.pool)
        .await?;
        self.touch(project, &k.name);
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
        let mut tx = self.pool.begin().await?;
        // Take the write lock first (a no-op write), so the read below cannot go stale.
        let touched =
            sqlx::query("UPDATE klusters SET name = name WHERE project_id = ? AND name = ?")
                .bind(project)
                .bind(name)
                .execute(&mut *tx)
                .await?;
        if touched.rows_affected() == 0 {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT body, creator, termination_protected FROM klusters WHERE project_id = ? AND name = ?",
        )
        .bind(project)
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
        let mut k = decode(&row)?.kluster;
        if let Err(e) = change(&mut k) {
            return Ok(Some(Err(e)));
        }
        let body = serde_json::to_string(&k).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let phase = k.status.phase.as_str();
        sqlx::query(
            "UPDATE klusters SET body = ?,
                phase_since = CASE WHEN phase <> ? THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') ELSE phase_since END,
                phase = ?
             WHERE project_id = ? AND name = ?",
        )
        .bind(body)
        .bind(phase)
        .bind(phase)
        .bind(project)
        .bind(name)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.touch(project, name);
        Ok(Some(Ok(k)))
    }

    /// Every kluster of every project, by project, with the time it has spent in its phase
    /// and its age, for the reconcilers.
    pub async fn list_all(&self) -> Result<Vec<Observed>, StoreError> {
        let rows = sqlx::query(
            "SELECT body, creator, termination_protected, project_id,
                CAST((julianday('now') - julianday(CASE WHEN phase_since = '' THEN created_at ELSE phase_since END))
                     * 86400000 AS INTEGER),
                CAST((julianday('now') - julianday(created_at)) * 86400000 AS INTEGER)
             FROM klusters ORDER BY project_id, name",
        )
        .fetch_all(&self.pool)
        .await?;
        let ms = |v: i64| std::time::Duration::from_millis(v.max(0) as u64);
        rows.iter()
            .map(|r| {
                Ok(Observed {
                    project: r.get(3),
                    stored: decode(r)?,
                    in_phase: ms(r.get(4)),
                    age: ms(r.get(5)),
                })
            })
            .collect()
    }

    /// Removes a kluster and its CA; its events stay.
    pub async fn delete(&self, project: &str, name: &str) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM kluster_cas WHERE project_id = ? AND name = ?")
            .bind(project)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let res = sqlx::query("DELETE FROM klusters WHERE project_id = ? AND name = ?")
            .bind(project)
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.touch(project, name);
        Ok(res.rows_affected() == 1)
    }

    /// Sets or clears termination protection; false when the kluster does not exist.
    pub async fn set_termination_protection(
        &self,
        project: &str,
        name: &str,
        on: bool,
    ) -> Result<bool, StoreError> {
        let res = sqlx::query(
            "UPDATE klusters SET termination_protected = ? WHERE project_id = ? AND name = ?",
        )
        .bind(on)
        .bind(project)
        .bind(name)
        .execute(&self.pool)
        .await?;
        Ok(res.rows_affected() == 1)
    }
}

fn decode(row: &sqlx::sqlite::SqliteRow) -> Result<StoredKluster, StoreError> {
    let body: String = row.get(0);
    let kluster = serde_json::from_str(&body).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    Ok(StoredKluster {
        kluster,
        creator: row.get(1),
        termination_protected: row.get(2),
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
