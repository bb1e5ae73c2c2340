//! Data the server functions hand to the UI. Nothing here ever holds a token.

use kubernikus_policy::Permission;
use serde::{Deserialize, Serialize};

pub use crate::form_model::*;
pub use crate::list_model::*;

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
    /// What the controller's policy grants the session in its project
    /// (`GET /api/v1/access`): the UI offers exactly these.
    pub granted: Vec<Permission>,
    /// When the session ends at the latest (RFC 3339, UTC).
    pub expires_at: String,
    /// The region the session works in, with regions from the catalog.
    #[serde(default)]
    pub region: Option<String>,
    /// The regions with a Kubernikus API in the session's catalog (empty without them).
    #[serde(default)]
    pub regions: Vec<String>,
}

impl SessionInfo {
    /// Whether the controller's policy grants the session `permission`.
    pub fn may(&self, permission: Permission) -> bool {
        self.granted.contains(&permission)
    }
}

/// A project the user can switch to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectChoice {
    /// Keystone project id.
    pub id: String,
    /// Project name.
    pub name: String,
}

/// A kluster with what its page shows beside it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KlusterDetail {
    /// The kluster.
    pub kluster: kluster::Kluster,
    /// Its recent events, newest first.
    pub events: Vec<kluster::Event>,
    /// The `kubernikusctl auth init` command (empty when unavailable).
    pub setup_command: String,
    /// Where to download kubernikusctl (http(s) links only; empty when not offered).
    pub binaries: Vec<kluster::Binaries>,
    /// `SHA256:…` fingerprint of the SSH public key (empty without one).
    pub ssh_fingerprint: String,
    /// Whether the user may change and delete it.
    pub may_update: bool,
    /// Versions it may be upgraded to (the update rules applied to what is supported).
    pub upgrades: Vec<String>,
    /// Flavors and zones for a new pool.
    pub flavors: Vec<kluster::Flavor>,
    /// Availability zones for a new pool.
    pub zones: Vec<String>,
    /// Images for a new pool (admins).
    pub images: Vec<String>,
    /// The project's security groups (admins: the access form's choices).
    pub security_groups: Vec<String>,
    /// What a rejected plain post of a pool's settings left: what was typed and why.
    pub edit_flash: Option<crate::kluster_edit::PoolFlash>,
}

/// The YAML editor at create (`/klusters/new?yaml=1`): the text, and why it was refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CreateYaml {
    /// The kluster's name and spec as YAML, as last typed.
    pub text: String,
    /// Why the last post of it was refused, if it was.
    pub error: Option<crate::error::AppError>,
}

/// The kluster as YAML, for `/klusters/:name/yaml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KlusterYaml {
    /// The whole kluster (metadata, spec, status), read-only.
    pub whole: String,
    /// What the editor holds: the name and spec as they are, or as last typed.
    pub editable: String,
    /// The resource version the edit is against (the one the typed text was read at).
    pub version: String,
    /// Whether the user may change it.
    pub may_edit: bool,
    /// What the last preview found: the changes, or why the text was refused.
    pub preview: Option<YamlPreview>,
}

/// What a preview of typed YAML found, kept in the session until the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct YamlPreview {
    /// The text as typed.
    pub text: String,
    /// The version it was read against.
    pub version: String,
    /// Field by field what applying it would change (empty: nothing).
    pub changes: Vec<kluster::SpecChange>,
    /// Why it was refused (then `changes` is empty).
    pub error: Option<crate::error::AppError>,
}
