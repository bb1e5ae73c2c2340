//! Extensions for operators (not in the Kubernikus spec): audit records
//! (`GET /api/v1/audit`) and the cloud admins' cross-project views (`/api/v1/ops/*`).

use serde::{Deserialize, Serialize};

use crate::model::{ProjectEvent, Quota};

/// One spec field a change touched: its path and its value before and after, as compact
/// JSON text (empty: absent).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecChange {
    /// Path of the field, e.g. `spec.nodePools[0].size`.
    pub field: String,
    /// The value before (JSON; empty when the field did not exist).
    #[serde(default)]
    pub before: String,
    /// The value after (JSON; empty when the field is gone).
    #[serde(default)]
    pub after: String,
}

/// Who changed what, when and from where: one audit record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    /// Grows with every record.
    pub id: i64,
    /// When (RFC 3339, UTC, milliseconds).
    pub at: String,
    /// The project's id.
    pub project_id: String,
    /// The project's name (as the caller's token named it).
    pub project_name: String,
    /// The kluster.
    pub kluster: String,
    /// `create`, `update`, `scale`, `upgrade`, `delete` or `credentials` (a kubeconfig issued).
    pub action: String,
    /// The Keystone user id.
    pub user_id: String,
    /// The user's name.
    pub user_name: String,
    /// The user's domain.
    pub user_domain: String,
    /// What changed in the spec (empty for `credentials`).
    #[serde(default)]
    pub changes: Vec<SpecChange>,
    /// The request id (`X-Request-Id`) of the change.
    pub request_id: String,
    /// The client's address (the browser's, forwarded by a trusted dashboard).
    pub client_addr: String,
}

/// An event of any project (cloud admins' timeline).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpsEvent {
    /// The project's id.
    pub project_id: String,
    /// The project's name when the controller knows it (else empty).
    #[serde(default)]
    pub project_name: String,
    /// The event.
    #[serde(flatten)]
    pub event: ProjectEvent,
}

/// A kluster that needs an operator's attention.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attention {
    /// The project's id.
    pub project_id: String,
    /// The project's name when known.
    #[serde(default)]
    pub project_name: String,
    /// The kluster.
    pub kluster: String,
    /// `stuck` (Creating/Terminating past the timeout), `pool_below_size` or
    /// `repeated_warnings`.
    pub problem: String,
    /// What exactly, in words.
    pub detail: String,
    /// The kluster's phase.
    pub phase: String,
}

/// One project's quota use (cloud admins).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectQuota {
    /// The project's id.
    pub project_id: String,
    /// The project's name when known.
    #[serde(default)]
    pub project_name: String,
    /// Its klusters.
    pub klusters: i64,
    /// Limit and use; `None` when the cloud did not answer.
    #[serde(default)]
    pub quota: Option<Quota>,
    /// Why the quota is missing (the cloud's words), else empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}
