//! Data the server functions hand to the UI. Nothing here ever holds a token.

use serde::{Deserialize, Serialize};

/// Who is signed in and where: what the header shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// Keystone user name.
    pub user_name: String,
    /// Name of the user's domain.
    pub user_domain: String,
    /// Id of the project the session is scoped to (Kubernikus's account).
    pub project_id: String,
    /// Name of that project.
    pub project_name: String,
    /// Keystone roles on the project.
    pub roles: Vec<String>,
    /// When the session ends at the latest (RFC 3339, UTC).
    pub expires_at: String,
}

/// A project the user can switch to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectChoice {
    /// Keystone project id.
    pub id: String,
    /// Project name.
    pub name: String,
}
