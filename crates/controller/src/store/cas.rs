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
    pub async fn ca(&self, project: &str, name: &str) -> Result<Option<CaRecord>, StoreError> {
        let row = sqlx::query(
            "SELECT cert_pem, key_sealed FROM kluster_cas WHERE project_id = ? AND name = ?",
        )
        .bind(project)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| CaRecord {
            cert_pem: r.get(0),
            key_sealed: r.get(1),
        }))
    }
}
