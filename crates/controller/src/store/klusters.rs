//! Klusters: list, read, update, change in a transaction (the resource version grows with
//! every change of the spec), remove. Adding them: [`super::create`].

use kluster::Kluster;
use sqlx::any::AnyRow;
use sqlx::Row;

use super::{now_text, Observed, ServerMark, Store, StoreError, StoredKluster};

pub(super) const COLUMNS: &str =
    "body, creator, termination_protected, uid, created_at, resource_version";

impl Store {
    /// The project's klusters, by name.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "list"))]
    pub async fn list(&self, project: &str) -> Result<Vec<StoredKluster>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM klusters WHERE project_id = $1 ORDER BY name"
        ))
        .bind(project)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(decode).collect()
    }

    /// One kluster of the project.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "get"))]
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

    /// Replaces a kluster's body (spec and status; its resource version grows); false when
    /// it does not exist.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "update"))]
    pub async fn update(&self, project: &str, k: &Kluster) -> Result<bool, StoreError> {
        self.check_ready()?;
        let body = body_of(k)?;
        let res = sqlx::query(UPDATE_BODY)
            .bind(body)
            .bind(k.status.phase.as_str())
            .bind(now_text(true))
            .bind(project)
            .bind(&k.name)
            .bind(1i64)
            .bind(kluster::listing::nodes(k))
            .execute(&self.pool)
            .await?;
        self.kluster_changed(project, &k.name).await;
        Ok(res.rows_affected() == 1)
    }

    /// Changes a stored kluster with `change` inside one write transaction, so that
    /// concurrent writers (API and reconcilers) never overwrite each other's fields. `None`
    /// when the kluster does not exist; `Some(Err)` when `change` refused (nothing written).
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "modify"))]
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
        let before = k.spec.clone();
        if let Err(e) = change(&mut k) {
            return Ok(Some(Err(e)));
        }
        let bump = i64::from(kluster::diff::changes_intent(&before, &k.spec));
        let body = body_of(&k)?;
        sqlx::query(UPDATE_BODY)
            .bind(body)
            .bind(k.status.phase.as_str())
            .bind(now_text(true))
            .bind(project)
            .bind(name)
            .bind(bump)
            .bind(kluster::listing::nodes(&k))
            .execute(&mut *tx)
            .await?;
        if let Some(m) = k.metadata.as_mut() {
            let version = m.resource_version.parse::<i64>().unwrap_or(0) + bump;
            m.resource_version = version.to_string();
        }
        tx.commit().await?;
        self.kluster_changed(project, name).await;
        Ok(Some(Ok(k)))
    }

    /// Every kluster of every project, by project, with the time it has spent in its phase
    /// and its age, for the reconcilers.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "list_all"))]
    pub async fn list_all(&self) -> Result<Vec<Observed>, StoreError> {
        self.observed(None, None).await
    }

    /// The projects that have klusters.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "kluster_projects"))]
    pub async fn kluster_projects(&self) -> Result<Vec<String>, StoreError> {
        self.check_ready()?;
        let rows = sqlx::query("SELECT DISTINCT project_id FROM klusters")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| r.try_get::<String, _>(0).map_err(StoreError::from))
            .collect()
    }

    /// [`Store::list_all`] of one project: what a change in it wakes the reconcilers for.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "list_observed"))]
    pub async fn list_observed(&self, project: &str) -> Result<Vec<Observed>, StoreError> {
        self.observed(Some(project), None).await
    }

    /// Kluster `name` of `project` as [`Store::list_observed`] shows it, if it exists.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "get_observed"))]
    pub async fn get_observed(
        &self,
        project: &str,
        name: &str,
    ) -> Result<Option<Observed>, StoreError> {
        Ok(self.observed(Some(project), Some(name)).await?.pop())
    }

    async fn observed(
        &self,
        project: Option<&str>,
        name: Option<&str>,
    ) -> Result<Vec<Observed>, StoreError> {
        self.check_ready()?;
        let select = format!("SELECT {COLUMNS}, project_id, phase_since, server_ids FROM klusters");
        let rows = match (project, name) {
            (Some(p), Some(n)) => {
                sqlx::query(&format!("{select} WHERE project_id = $1 AND name = $2"))
                    .bind(p)
                    .bind(n)
                    .fetch_all(&self.pool)
                    .await?
            }
            (Some(p), None) => {
                sqlx::query(&format!("{select} WHERE project_id = $1 ORDER BY name"))
                    .bind(p)
                    .fetch_all(&self.pool)
                    .await?
            }
            _ => {
                sqlx::query(&format!("{select} ORDER BY project_id, name"))
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        let now = time::OffsetDateTime::now_utc();
        let since = |text: &str| {
            time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
                .map(|t| std::time::Duration::try_from(now - t).unwrap_or_default())
                .map_err(|e| StoreError::Corrupt(format!("a stored time {text:?}: {e}")))
        };
        rows.iter()
            .map(|r| {
                let created: String = r.try_get(4)?;
                let phase_since: String = r.try_get(7)?;
                let servers: String = r.try_get(8)?;
                let entries: Vec<(&str, Option<ServerMark>)> = servers
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(ServerMark::split)
                    .collect();
                let age = since(&created)?;
                Ok(Observed {
                    project: r.try_get(6)?,
                    stored: decode(r)?,
                    in_phase: if phase_since.is_empty() {
                        age
                    } else {
                        since(&phase_since)?
                    },
                    age,
                    servers: entries.iter().map(|(id, _)| id.to_string()).collect(),
                    marks: entries
                        .iter()
                        .filter_map(|(id, m)| Some((id.to_string(), (*m)?)))
                        .collect(),
                })
            })
            .collect()
    }

    /// Records the ids of kluster `name`'s servers with their `marks` (the reconciler's
    /// memory of what exists; not a change of the kluster: nobody is notified).
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "record_servers"))]
    pub async fn record_servers(
        &self,
        project: &str,
        name: &str,
        ids: &[String],
        marks: &std::collections::BTreeMap<String, ServerMark>,
    ) -> Result<(), StoreError> {
        self.check_ready()?;
        let entries: Vec<String> = ids
            .iter()
            .map(|id| match marks.get(id) {
                Some(m) => format!("{id}:{}", m.as_str()),
                None => id.clone(),
            })
            .collect();
        sqlx::query("UPDATE klusters SET server_ids = $1 WHERE project_id = $2 AND name = $3")
            .bind(entries.join(","))
            .bind(project)
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Removes a kluster and its CA; its events stay.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "delete"))]
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

    /// Sets or clears termination protection (a change grows the resource version and is
    /// announced like any change); false when the kluster does not exist.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "set_termination_protection"))]
    pub async fn set_termination_protection(
        &self,
        project: &str,
        name: &str,
        on: bool,
    ) -> Result<bool, StoreError> {
        self.check_ready()?;
        let res = sqlx::query(
            "UPDATE klusters SET resource_version = resource_version
                 + CASE WHEN termination_protected = $1 THEN 0 ELSE 1 END,
                 termination_protected = $1
             WHERE project_id = $2 AND name = $3",
        )
        .bind(i64::from(on))
        .bind(project)
        .bind(name)
        .execute(&self.pool)
        .await?;
        self.kluster_changed(project, name).await;
        Ok(res.rows_affected() == 1)
    }
}

/// Replaces body and phase; `phase_since` moves only when the phase changes (SET
/// expressions read the old row); the resource version grows by the bump (1 when the spec
/// changed beyond ids the reconcilers filled in: [`kluster::diff::changes_intent`], else 0); `nodes` is the body's node count. Binds: body, phase, now, project,
/// name, bump, nodes.
const UPDATE_BODY: &str = "UPDATE klusters SET body = $1,
        phase_since = CASE WHEN phase <> $2 THEN $3 ELSE phase_since END,
        phase = $2,
        resource_version = resource_version + $6,
        nodes = $7
     WHERE project_id = $4 AND name = $5";

/// A kluster's stored body: spec and status (its metadata lives in columns).
pub(super) fn body_of(k: &Kluster) -> Result<String, StoreError> {
    let mut bare = k.clone();
    bare.metadata = None;
    serde_json::to_string(&bare).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// A new kluster uid: a random (version 4) UUID.
pub fn new_uid() -> String {
    use rand_core::RngCore;
    let mut b = [0u8; 16];
    rand_core::OsRng.fill_bytes(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// `user@domain` from the stored creator (`user/domain`; the domain has no `/`).
pub(super) fn created_by(creator: &str) -> String {
    match creator.rsplit_once('/') {
        Some((user, domain)) => format!("{user}@{domain}"),
        None => creator.to_string(),
    }
}

/// A kluster from the [`COLUMNS`] of a row, its metadata from the columns.
pub(super) fn decode(row: &AnyRow) -> Result<StoredKluster, StoreError> {
    let body: String = row.try_get(0)?;
    let mut kluster: Kluster =
        serde_json::from_str(&body).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let termination_protected = row.try_get::<i64, _>(2)? != 0;
    let creator: String = row.try_get(1)?;
    kluster.metadata = Some(kluster::KlusterMetadata {
        uid: row.try_get(3)?,
        creation_timestamp: row.try_get(4)?,
        resource_version: row.try_get::<i64, _>(5)?.to_string(),
        created_by: created_by(&creator),
        termination_protection: termination_protected,
    });
    // This controller runs no control plane for any kluster: it says so on each.
    kluster.status.control_plane_simulated = true;
    Ok(StoredKluster {
        kluster,
        creator,
        termination_protected,
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
