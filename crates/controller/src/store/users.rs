//! Each kluster's own OpenStack user, when the cloud makes them: name, domain, the id
//! Keystone gave it ('' until it confirmed the user) and the password sealed at rest.

use sqlx::Row;

use super::{Store, StoreError};

/// A kluster user as stored.
#[derive(Clone, PartialEq, Eq)]
pub struct UserRecord {
    /// User name in Keystone.
    pub user_name: String,
    /// Name of its domain.
    pub domain: String,
    /// Keystone's id; empty until the user was made (or repaired) there.
    pub user_id: String,
    /// Password sealed by [`crate::pki::Sealer`].
    pub password_sealed: Vec<u8>,
}

impl std::fmt::Debug for UserRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UserRecord")
            .field("user_name", &self.user_name)
            .field("domain", &self.domain)
            .field("user_id", &self.user_id)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Kluster `name`'s user, if one was recorded.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "kluster_user"))]
    pub async fn kluster_user(
        &self,
        project: &str,
        name: &str,
    ) -> Result<Option<UserRecord>, StoreError> {
        self.check_ready()?;
        let row = sqlx::query(
            "SELECT user_name, domain, user_id, password_sealed FROM kluster_users
             WHERE project_id = $1 AND name = $2",
        )
        .bind(project)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            None => Ok(None),
            Some(r) => Ok(Some(UserRecord {
                user_name: r.try_get(0)?,
                domain: r.try_get(1)?,
                user_id: r.try_get(2)?,
                password_sealed: r.try_get(3)?,
            })),
        }
    }

    /// Records `rec` for kluster `name` unless one is recorded already (two replicas never
    /// give one kluster two passwords), and answers the record that stands.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "add_kluster_user"))]
    pub async fn add_kluster_user(
        &self,
        project: &str,
        name: &str,
        rec: &UserRecord,
    ) -> Result<UserRecord, StoreError> {
        self.check_ready()?;
        sqlx::query(
            "INSERT INTO kluster_users (project_id, name, user_name, domain, user_id, password_sealed)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (project_id, name) DO NOTHING",
        )
        .bind(project)
        .bind(name)
        .bind(&rec.user_name)
        .bind(&rec.domain)
        .bind(&rec.user_id)
        .bind(&rec.password_sealed)
        .execute(&self.pool)
        .await?;
        self.kluster_user(project, name)
            .await?
            .ok_or_else(|| StoreError::Corrupt("a kluster user vanished after its insert".into()))
    }

    /// Notes Keystone's id of kluster `name`'s user (it exists there now).
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "kluster_user_made"))]
    pub async fn kluster_user_made(
        &self,
        project: &str,
        name: &str,
        user_id: &str,
    ) -> Result<(), StoreError> {
        self.check_ready()?;
        sqlx::query("UPDATE kluster_users SET user_id = $1 WHERE project_id = $2 AND name = $3")
            .bind(user_id)
            .bind(project)
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Gives kluster `name`'s user a new (sealed) password and marks it as still to be
    /// made in Keystone: the next [`ensure`](crate::reconcile::users::ensure) sets it there,
    /// enables the user and grants its roles again.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "renew_kluster_user"))]
    pub async fn renew_kluster_user(
        &self,
        project: &str,
        name: &str,
        password_sealed: &[u8],
    ) -> Result<(), StoreError> {
        self.check_ready()?;
        sqlx::query(
            "UPDATE kluster_users SET password_sealed = $1, user_id = '' WHERE project_id = $2 AND name = $3",
        )
        .bind(password_sealed)
        .bind(project)
        .bind(name)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Forgets kluster `name`'s user (after it was deleted in Keystone).
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "forget_kluster_user"))]
    pub async fn forget_kluster_user(&self, project: &str, name: &str) -> Result<(), StoreError> {
        self.check_ready()?;
        sqlx::query("DELETE FROM kluster_users WHERE project_id = $1 AND name = $2")
            .bind(project)
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
