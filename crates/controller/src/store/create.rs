//! Adding klusters, one create per project at a time: the transaction first takes the
//! project's row in `kluster_creates` (SQLite: the database's write lock; PostgreSQL: that
//! row's lock), then reads the project's klusters, so what admission decides from them
//! (the name, the next free default pod range, CIDR clashes) cannot be raced by another
//! create, in this process or in another replica.

use std::convert::Infallible;

use kluster::Kluster;

use super::klusters::{body_of, decode, new_uid, COLUMNS};
use super::{now_text, CaRecord, Store, StoreError, StoredKluster};

impl Store {
    /// Adds kluster `k` and its CA as they are (no admission); [`StoreError::Conflict`]
    /// when the name is taken in the project.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "insert"))]
    pub async fn insert(
        &self,
        project: &str,
        k: &StoredKluster,
        ca: &CaRecord,
    ) -> Result<(), StoreError> {
        match self
            .create(project, ca, |_| Ok::<_, Infallible>(k.clone()))
            .await?
        {
            Ok(_) => Ok(()),
            Err(never) => match never {},
        }
    }

    /// Adds the kluster `place` makes of the project's klusters, with its CA, in one
    /// transaction that holds the project's create lock from before the klusters are read
    /// until the new one is committed. Returns it as stored (uid, creation time and resource
    /// version in its metadata); `Ok(Err)` when `place` refused (nothing is written);
    /// [`StoreError::Conflict`] when the name is taken.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "create"))]
    pub async fn create<E>(
        &self,
        project: &str,
        ca: &CaRecord,
        place: impl FnOnce(&[Kluster]) -> Result<StoredKluster, E>,
    ) -> Result<Result<StoredKluster, E>, StoreError> {
        self.check_ready()?;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO kluster_creates (project_id, creates) VALUES ($1, 1)
             ON CONFLICT (project_id) DO UPDATE SET creates = kluster_creates.creates + 1",
        )
        .bind(project)
        .execute(&mut *tx)
        .await?;
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM klusters WHERE project_id = $1 ORDER BY name"
        ))
        .bind(project)
        .fetch_all(&mut *tx)
        .await?;
        let others = rows
            .iter()
            .map(|r| decode(r).map(|s| s.kluster))
            .collect::<Result<Vec<_>, _>>()?;
        let mut k = match place(&others) {
            Ok(k) => k,
            Err(e) => return Ok(Err(e)),
        };
        let meta = k.kluster.metadata.get_or_insert_with(Default::default);
        if meta.uid.is_empty() {
            meta.uid = new_uid();
        }
        if meta.creation_timestamp.is_empty() {
            meta.creation_timestamp = now_text(false);
        }
        meta.resource_version = "1".into();
        meta.created_by = super::klusters::created_by(&k.creator);
        let (uid, created) = (meta.uid.clone(), meta.creation_timestamp.clone());
        let res = sqlx::query(
            "INSERT INTO klusters (project_id, name, body, phase, creator, termination_protected, created_at, uid, resource_version, nodes)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9)",
        )
        .bind(project)
        .bind(&k.kluster.name)
        .bind(body_of(&k.kluster)?)
        .bind(k.kluster.status.phase.as_str())
        .bind(&k.creator)
        .bind(i64::from(k.termination_protected))
        .bind(created)
        .bind(uid)
        .bind(kluster::listing::nodes(&k.kluster))
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
        Ok(Ok(k))
    }
}
