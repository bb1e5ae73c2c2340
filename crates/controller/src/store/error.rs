//! [`StoreError`]: what can go wrong with the database, and which failures no retry mends.

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A kluster of that name already exists in the project.
    #[error("a kluster with this name already exists")]
    Conflict,
    /// The database cannot be reached (or is not migrated yet); retrying later may work.
    #[error("the database cannot be reached: {0}")]
    Unavailable(String),
    /// The database failed.
    #[error("database error: {0}")]
    Db(sqlx::Error),
    /// A stored row does not decode.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The database was migrated by a newer controller.
    #[error("{0}")]
    TooNew(String),
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        match e {
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::WorkerCrashed => StoreError::Unavailable(e.to_string()),
            // admin_shutdown, crash_shutdown, cannot_connect_now (a restarting server)
            sqlx::Error::Database(ref d)
                if matches!(d.code().as_deref(), Some("57P01" | "57P02" | "57P03")) =>
            {
                StoreError::Unavailable(e.to_string())
            }
            e => StoreError::Db(e),
        }
    }
}

impl StoreError {
    /// Its kind, as a metric label: `conflict`, `store_unavailable`, `database`, `corrupt`
    /// or `too_new`.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::Conflict => "conflict",
            StoreError::Unavailable(_) => "store_unavailable",
            StoreError::Db(_) => "database",
            StoreError::Corrupt(_) => "corrupt",
            StoreError::TooNew(_) => "too_new",
        }
    }

    /// Whether no retry will mend it (wrong credentials, missing database, a newer schema).
    pub fn is_fatal(&self) -> bool {
        match self {
            StoreError::TooNew(_) => true,
            StoreError::Db(sqlx::Error::Configuration(_) | sqlx::Error::Tls(_)) => true,
            StoreError::Db(sqlx::Error::Database(d)) => {
                matches!(d.code().as_deref(), Some("28P01" | "28000" | "3D000"))
            }
            _ => false,
        }
    }
}
