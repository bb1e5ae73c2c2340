//! Each kluster's client CA: its certificate and its key sealed at rest.

use sqlx::Row;

use super::{Store, StoreError};

/// A kluster's CA as stored: certificate and sealed private key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaRecord {
    /// CA certificate (PEM).
    pub cert_pem: String,
    /// Private key sealed by [`crate::pki::Sealer`].
    pub key_sealed: Vec<u8>,
}

impl Store {
    /// A kluster's CA.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "ca"))]
    pub async fn ca(&self, project: &str, name: &str) -> Result<Option<CaRecord>, StoreError> {
        self.check_ready()?;
        let row = sqlx::query(
            "SELECT cert_pem, key_sealed FROM kluster_cas WHERE project_id = $1 AND name = $2",
        )
        .bind(project)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            None => Ok(None),
            Some(r) => Ok(Some(CaRecord {
                cert_pem: r.try_get(0)?,
                key_sealed: r.try_get(1)?,
            })),
        }
    }
}
