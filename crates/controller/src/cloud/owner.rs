//! Whose a cloud resource is. Everything a kluster makes carries its uid as well as its
//! name: its servers the `kluster_uid` metadata and tag, and what its cloud controller
//! manager and CSI driver make the cluster name they are handed, `<name>-<uid>` (in load
//! balancer names and descriptions, floating IPs' and security groups' descriptions,
//! volumes' `cinder.csi.openstack.org/cluster`). A bare name is no proof: a tenant can tag
//! a server `kluster=prod`, a cloud controller manager left at its default cluster name
//! makes `kube_service_kubernetes_…`, and an earlier kluster of the same name leaves its
//! own marks. Providers report both marks ([`Mark`]); the reconciler decides.

/// Server metadata key and tag prefix (`kluster_uid=<uid>`) carrying the kluster's uid.
pub const UID_KEY: &str = "kluster_uid";

/// A kluster as the marks on its cloud resources name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner<'a> {
    /// The kluster's name.
    pub name: &'a str,
    /// Its uid (empty only for klusters made outside the store, in unit tests).
    pub uid: &'a str,
}

impl Owner<'_> {
    /// The cluster name handed to the cloud controller manager and CSI driver:
    /// `<name>-<uid>` (kluster names are DNS labels: no `_`, no spaces).
    pub fn cluster_name(&self) -> String {
        match self.uid.is_empty() {
            true => self.name.to_string(),
            false => format!("{}-{}", self.name, self.uid),
        }
    }
}

/// The marks a resource carries: the kluster name and, when present, the uid.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    /// The kluster's name.
    pub name: String,
    /// The kluster's uid; `None` when only the bare name is there.
    pub uid: Option<String>,
}

/// Whether `s` has a uid's shape: a UUID (`8-4-4-4-12` lowercase hex), or 32 hex digits
/// (the uids migration 6 gave klusters made before uids existed).
pub fn is_uid(s: &str) -> bool {
    let hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
    match s.len() {
        32 => s.bytes().all(hex),
        36 => s.bytes().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => hex(c),
        }),
        _ => false,
    }
}

/// The marks in a cluster name: `<name>-<uid>` gives both; anything else is a bare name.
pub fn split_cluster_name(cluster: &str) -> Mark {
    for len in [36, 32] {
        let Some(at) = cluster.len().checked_sub(len + 1) else {
            continue;
        };
        let (name, tail) = (cluster.get(..at), cluster.get(at..));
        if let (Some(name), Some(tail)) = (name, tail) {
            if let Some(uid) = tail.strip_prefix('-').filter(|u| is_uid(u)) {
                if !name.is_empty() {
                    return Mark {
                        name: name.to_string(),
                        uid: Some(uid.to_string()),
                    };
                }
            }
        }
    }
    Mark {
        name: cluster.to_string(),
        uid: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UUID: &str = "0b6f6a52-1c3e-4d6a-9f00-1234567890ab";

    #[test]
    fn a_cluster_name_splits_into_its_marks() {
        let owner = Owner {
            name: "prod",
            uid: UUID,
        };
        let mark = split_cluster_name(&owner.cluster_name());
        assert_eq!(mark.name, "prod");
        assert_eq!(mark.uid.as_deref(), Some(UUID));
        let old = split_cluster_name("a-b-0123456789abcdef0123456789abcdef");
        assert_eq!(old.name, "a-b");
        assert_eq!(old.uid.as_deref(), Some("0123456789abcdef0123456789abcdef"));
    }

    #[test]
    fn bare_and_odd_names_carry_no_uid() {
        for bare in [
            "kubernetes",
            "prod-1",
            "",
            "-",
            UUID,
            "x-0B6F6A52-1C3E-4D6A-9F00-1234567890AB",
        ] {
            let mark = split_cluster_name(bare);
            assert_eq!(mark.uid, None, "{bare}");
            assert_eq!(mark.name, bare);
        }
        assert_eq!(Owner { name: "k", uid: "" }.cluster_name(), "k");
    }
}
