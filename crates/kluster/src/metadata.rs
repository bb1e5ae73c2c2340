//! Extension (Mission Control's controller; not in the Kubernikus API): what the controller
//! keeps about a kluster beside its spec and status — its identity, when it was made and
//! the version of what clients write (optimistic concurrency).
//! A real Kubernikus sends no `metadata`; clients treat its absence as "not supported".

use serde::{Deserialize, Serialize};

/// A kluster's identity, as the controller answers it in `metadata`. Read-only: a request
/// may carry it back as it was read; create and update ignore it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KlusterMetadata {
    /// Unique id set at creation. A kluster created again under a deleted one's name has
    /// another uid, and its events are its own.
    #[serde(default)]
    pub uid: String,
    /// When the kluster was created (RFC 3339, UTC).
    #[serde(default, rename = "creationTimestamp")]
    pub creation_timestamp: String,
    /// Who created the kluster, `user@domain`.
    #[serde(
        default,
        rename = "createdBy",
        skip_serializing_if = "String::is_empty"
    )]
    pub created_by: String,
    /// Grows with every change of the spec that someone asked for (not when the controller
    /// fills in the OpenStack ids a create left empty) and of the termination protection; also
    /// the answers' `ETag` (quoted). A `PUT` with `If-Match` of an older one is refused
    /// (412) instead of overwriting what someone else changed meanwhile.
    #[serde(default, rename = "resourceVersion")]
    pub resource_version: String,
    /// Deletion is refused while set; project admins switch it with
    /// `PUT /api/v1/clusters/{name}/termination-protection`.
    #[serde(
        default,
        rename = "terminationProtection",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub termination_protection: bool,
}

#[cfg(test)]
mod tests {
    use crate::Kluster;

    #[test]
    fn metadata_is_optional_on_the_wire() {
        // A real Kubernikus sends none; ours does, and both parse.
        let plain: Kluster = serde_json::from_str(r#"{"name":"a"}"#).unwrap();
        assert_eq!(plain.metadata, None);
        assert!(!serde_json::to_string(&plain).unwrap().contains("metadata"));
        let ours: Kluster = serde_json::from_str(
            r#"{"name":"a","metadata":{"uid":"u1","creationTimestamp":"2025-01-01T00:00:00Z"}}"#,
        )
        .unwrap();
        assert_eq!(ours.metadata.unwrap().uid, "u1");
    }
}
