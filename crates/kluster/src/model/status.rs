//! What the controllers observed about a kluster: phase, status and per-pool node counts.

use serde::{Deserialize, Serialize};

use crate::event::EventReason;

/// Lifecycle phase of a kluster.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KlusterPhase {
    /// Accepted, waiting for the ground controller.
    #[default]
    Pending,
    /// Control plane coming up.
    Creating,
    /// Ready.
    Running,
    /// Moving to a new version.
    Upgrading,
    /// Being deleted.
    Terminating,
}

/// Observed state of a kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KlusterStatus {
    /// Lifecycle phase.
    #[serde(default)]
    pub phase: KlusterPhase,
    /// Whether migrations are pending.
    #[serde(default, rename = "migrationsPending")]
    pub migrations_pending: bool,
    /// Per-pool node counts.
    #[serde(default, rename = "nodePools", skip_serializing_if = "Vec::is_empty")]
    pub node_pools: Vec<NodePoolInfo>,
    /// Apiserver URL.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub apiserver: String,
    /// Dashboard URL.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dashboard: String,
    /// Version the apiserver runs.
    #[serde(
        default,
        rename = "apiserverVersion",
        skip_serializing_if = "String::is_empty"
    )]
    pub apiserver_version: String,
    /// Helm chart name.
    #[serde(
        default,
        rename = "chartName",
        skip_serializing_if = "String::is_empty"
    )]
    pub chart_name: String,
    /// Helm chart version.
    #[serde(
        default,
        rename = "chartVersion",
        skip_serializing_if = "String::is_empty"
    )]
    pub chart_version: String,
    /// Wormhole URL.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub wormhole: String,
    /// Running Kubernetes version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// Spec generation the status reflects.
    #[serde(default, rename = "specVersion")]
    pub spec_version: i64,
    /// Extension (not in the Kubernikus spec): why the kluster is stuck, e.g. creation timed
    /// out; empty while all is well.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Extension: no Kubernetes control plane runs for this kluster (Mission Control's
    /// embedded controller simulates it in every mode: the phases follow a timer and the
    /// kubeconfig's API server does not exist). Absent from a real Kubernikus.
    #[serde(
        default,
        rename = "controlPlaneSimulated",
        skip_serializing_if = "is_false"
    )]
    pub control_plane_simulated: bool,
}

/// Node counts of one pool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodePoolInfo {
    /// Pool name.
    pub name: String,
    /// Desired size.
    pub size: i64,
    /// Running (and starting) servers.
    pub running: i64,
    /// Nodes that are Ready (0 when [`health_unknown`](Self::health_unknown)).
    pub healthy: i64,
    /// Nodes that are not cordoned (0 when [`health_unknown`](Self::health_unknown)).
    pub schedulable: i64,
    /// Extension (not in the Kubernikus spec): nothing reported the nodes' health (on a
    /// real cloud it comes from the kluster's Kubernetes API, which the controller could
    /// not read), so `healthy` and `schedulable` say nothing. Absent when false.
    #[serde(default, rename = "healthUnknown", skip_serializing_if = "is_false")]
    pub health_unknown: bool,
    /// Extension: the cloud failed this pool's latest servers (e.g. Nova found no host for
    /// them), so new ones wait; absent while creates succeed.
    #[serde(
        default,
        rename = "createRetry",
        skip_serializing_if = "Option::is_none"
    )]
    pub create_retry: Option<CreateRetry>,
}

/// Extension: why a pool's servers fail and when the next one is tried. The wait grows
/// with each failure in a row, up to a cap, and ends with the first server that comes up.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateRetry {
    /// Servers that failed in a row.
    pub failures: u32,
    /// The cloud's words for the latest failure, with advice where it is known.
    pub reason: String,
    /// When the next server is asked for (RFC 3339, UTC).
    #[serde(rename = "nextTry")]
    pub next_try: String,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl KlusterPhase {
    /// The phase as Kubernikus spells it (`Pending`, `Creating`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            KlusterPhase::Pending => "Pending",
            KlusterPhase::Creating => "Creating",
            KlusterPhase::Running => "Running",
            KlusterPhase::Upgrading => "Upgrading",
            KlusterPhase::Terminating => "Terminating",
        }
    }

    /// The Normal event's reason when a kluster enters this phase (named after it).
    pub fn reason(self) -> EventReason {
        match self {
            KlusterPhase::Pending => EventReason::Pending,
            KlusterPhase::Creating => EventReason::Creating,
            KlusterPhase::Running => EventReason::Running,
            KlusterPhase::Upgrading => EventReason::Upgrading,
            KlusterPhase::Terminating => EventReason::Terminating,
        }
    }
}
