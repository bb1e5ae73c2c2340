//! Extension (not in the Kubernikus spec): a kluster as a list row needs it — its name, the
//! wanted and running version, each pool's name and size, the pools' node counts, and when
//! and by whom it was made — under the same JSON names as the whole [`Kluster`]. Our
//! controller answers the list in this form for `?fields=summary` (a page of 50 is about a
//! third of the bytes, and encodes and decodes that much faster); a reader of this type
//! also reads whole klusters, skipping what it does not name, so one decoder serves a real
//! Kubernikus (which ignores the parameter) and our controller alike.

use serde::{Deserialize, Serialize};

use crate::{Kluster, KlusterPhase, NodePoolInfo};

/// A kluster's list fields, named as in [`Kluster`] (`name`, `spec.version`,
/// `spec.nodePools[].name|size`, `status.phase|version|nodePools`,
/// `metadata.creationTimestamp|createdBy`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct KlusterSummary {
    /// The kluster's name.
    pub name: String,
    /// What is wanted.
    pub spec: SummarySpec,
    /// What is.
    pub status: SummaryStatus,
    /// When and by whom it was created.
    pub metadata: SummaryMetadata,
}

/// The wanted version and pools of a [`KlusterSummary`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SummarySpec {
    /// Wanted Kubernetes version.
    pub version: String,
    /// Each pool's name and wanted size.
    #[serde(rename = "nodePools")]
    pub node_pools: Vec<SummaryPool>,
}

/// One pool of a [`SummarySpec`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SummaryPool {
    /// Pool name.
    pub name: String,
    /// Wanted size.
    pub size: i64,
}

/// The phase, running version and node counts of a [`KlusterSummary`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SummaryStatus {
    /// Lifecycle phase.
    pub phase: KlusterPhase,
    /// Running Kubernetes version (empty before the first is running).
    pub version: String,
    /// Node counts per pool, as the controller reports them.
    #[serde(rename = "nodePools")]
    pub node_pools: Vec<NodePoolInfo>,
}

/// Creation time and creator of a [`KlusterSummary`] (empty from a controller that does
/// not say).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SummaryMetadata {
    /// When it was created (RFC 3339, UTC).
    #[serde(rename = "creationTimestamp")]
    pub creation_timestamp: String,
    /// Who created it, `user@domain`.
    #[serde(rename = "createdBy", skip_serializing_if = "String::is_empty")]
    pub created_by: String,
}

impl From<Kluster> for KlusterSummary {
    fn from(k: Kluster) -> Self {
        let meta = k.metadata.unwrap_or_default();
        KlusterSummary {
            name: k.name,
            spec: SummarySpec {
                version: k.spec.version,
                node_pools: k
                    .spec
                    .node_pools
                    .into_iter()
                    .map(|p| SummaryPool {
                        name: p.name,
                        size: p.size,
                    })
                    .collect(),
            },
            status: SummaryStatus {
                phase: k.status.phase,
                version: k.status.version,
                node_pools: k.status.node_pools,
            },
            metadata: SummaryMetadata {
                creation_timestamp: meta.creation_timestamp,
                created_by: meta.created_by,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole() -> Kluster {
        serde_json::from_value(serde_json::json!({
            "name": "k1",
            "metadata": {"uid": "u", "creationTimestamp": "2026-12-01T10:20:30Z",
                         "createdBy": "alice@demo", "resourceVersion": "3"},
            "spec": {"version": "1.32.4", "nodePools": [
                {"name": "a", "size": 3, "flavor": "m1.small", "availabilityZone": "az-a"},
                {"name": "b", "size": 1, "flavor": "m1.large", "availabilityZone": "az-b"}
            ]},
            "status": {"phase": "Running", "version": "1.31.9", "nodePools": [
                {"name": "a", "size": 3, "running": 2, "healthy": 1, "schedulable": 1}
            ]}
        }))
        .expect("a kluster")
    }

    #[test]
    fn a_summary_reads_alike_from_a_whole_kluster_and_from_its_summary() {
        let k = whole();
        let made = KlusterSummary::from(k.clone());
        assert_eq!(
            made.spec.node_pools[1],
            SummaryPool {
                name: "b".into(),
                size: 1
            }
        );
        assert_eq!(made.status.node_pools[0].running, 2);
        assert_eq!(made.metadata.created_by, "alice@demo");
        // Read from the whole kluster's JSON, skipping what it does not name (even fields
        // the model does not know) …
        let mut v = serde_json::to_value(&k).expect("json");
        v["spec"]["newField"] = serde_json::json!({"x": [1, 2]});
        let read: KlusterSummary = serde_json::from_value(v).expect("summary");
        assert_eq!(read, made);
        // … and from the summary's own, which is a subset of it and much shorter.
        let wire = serde_json::to_string(&made).expect("json");
        let back: KlusterSummary = serde_json::from_str(&wire).expect("summary");
        assert_eq!(back, made);
        let full = serde_json::to_string(&k).expect("json");
        assert!(
            wire.len() * 2 < full.len(),
            "{} vs {}",
            wire.len(),
            full.len()
        );
        assert!(!wire.contains("flavor") && !wire.contains("uid"), "{wire}");
    }
}
