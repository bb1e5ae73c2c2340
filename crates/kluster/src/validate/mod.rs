//! Schema rules of the swagger (patterns, lengths, ranges) with messages a person reads.
//! The same functions run in the controller's API and in the browser's form.
//!
//! - [`fields`]: single fields (names, sizes, CIDRs, labels, taints).
//! - [`version`]: semantic versions.
//! - here: the error types and the checks of a whole node pool and kluster.

use crate::model::{Kluster, NodePool};
use crate::net::parse_ipv4;

pub mod fields;
pub mod version;

pub use fields::{
    cidr, kluster_name, label, lines, pool_name, pool_size, taint, unlines, MAX_NAME_LEN,
    MAX_SSH_KEY_LEN,
};
pub use version::{semver, Semver};

/// One problem with one field; `field` is a JSON path such as `spec.nodePools[0].size`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldError {
    /// JSON path of the field.
    pub field: String,
    /// What is wrong, in words.
    pub message: String,
}

/// All problems found in a request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValidationErrors(pub Vec<FieldError>);

impl ValidationErrors {
    fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError {
            field: field.into(),
            message: message.into(),
        });
    }

    /// `Ok` when empty.
    pub fn into_result(self) -> Result<(), ValidationErrors> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self)
        }
    }

    /// The first message for `field`, for showing next to an input.
    pub fn for_field(&self, field: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|e| e.field == field)
            .map(|e| e.message.as_str())
    }
}

impl std::fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect();
        f.write_str(&parts.join("; "))
    }
}

/// Checks one node pool; `at` is its JSON path, e.g. `spec.nodePools[0]`.
pub fn node_pool(p: &NodePool, at: &str, errs: &mut ValidationErrors) {
    if let Err(m) = pool_name(&p.name) {
        errs.push(format!("{at}.name"), m);
    }
    if let Err(m) = pool_size(p.size) {
        errs.push(format!("{at}.size"), m);
    }
    if p.flavor.trim().is_empty() {
        errs.push(format!("{at}.flavor"), "Choose a flavor.");
    }
    if p.availability_zone.trim().is_empty() {
        errs.push(
            format!("{at}.availabilityZone"),
            "Choose an availability zone.",
        );
    }
    if let Some(d) = p.custom_root_disk_size {
        if !(64..=1024).contains(&d) {
            errs.push(
                format!("{at}.customRootDiskSize"),
                "A custom root disk has 64 to 1024 GB.",
            );
        }
    }
    labels_and_taints(&p.labels, &p.taints, at, errs);
}

/// Checks a pool's labels and taints (`at` is the pool's JSON path): each by its pattern,
/// no label key twice, no taint key twice with the same effect (as Kubernetes refuses).
pub fn labels_and_taints(
    labels: &[String],
    taints: &[String],
    at: &str,
    errs: &mut ValidationErrors,
) {
    for (i, l) in labels.iter().enumerate() {
        let key = fields::key_of(l);
        if let Err(m) = label(l) {
            errs.push(format!("{at}.labels[{i}]"), m);
        } else if labels[..i].iter().any(|o| fields::key_of(o) == key) {
            errs.push(
                format!("{at}.labels[{i}]"),
                // Not format!'s {:?}: it grew the browser's first module by 19 KB gzip.
                ["Label \"", key, "\" is set twice; keep one."].concat(),
            );
        }
    }
    for (i, t) in taints.iter().enumerate() {
        let (key, effect) = (fields::key_of(t), fields::effect_of(t));
        if let Err(m) = taint(t) {
            errs.push(format!("{at}.taints[{i}]"), m);
        } else if taints[..i]
            .iter()
            .any(|o| fields::key_of(o) == key && fields::effect_of(o) == effect)
        {
            errs.push(
                format!("{at}.taints[{i}]"),
                [
                    "Taint \"",
                    key,
                    "\" with effect ",
                    effect,
                    " is set twice; keep one.",
                ]
                .concat(),
            );
        }
    }
}

/// Checks a whole kluster against the schema. Empty optional fields are fine (defaults
/// are filled in later); what is given must be valid.
pub fn kluster(k: &Kluster) -> Result<(), ValidationErrors> {
    let mut errs = ValidationErrors::default();
    if let Err(m) = kluster_name(&k.name) {
        errs.push("name", m);
    }
    let s = &k.spec;
    if !s.name.is_empty() && s.name != k.name {
        errs.push(
            "spec.name",
            "Leave spec.name empty or equal to the kluster's name.",
        );
    }
    if !s.service_cidr.is_empty() {
        if let Err(m) = cidr(&s.service_cidr) {
            errs.push("spec.serviceCIDR", m);
        }
    }
    if let Some(c) = s.cluster_cidr.as_deref().filter(|c| !c.is_empty()) {
        if let Err(m) = cidr(c) {
            errs.push("spec.clusterCIDR", m);
        }
    }
    if !s.dns_address.is_empty() && parse_ipv4(&s.dns_address).is_none() {
        errs.push(
            "spec.dnsAddress",
            format!("{:?} is not an IPv4 address.", s.dns_address),
        );
    }
    if s.ssh_public_key.len() > MAX_SSH_KEY_LEN {
        errs.push(
            "spec.sshPublicKey",
            format!("An SSH public key has at most {MAX_SSH_KEY_LEN} characters."),
        );
    }
    if !s.version.is_empty() {
        if let Err(m) = semver(&s.version) {
            errs.push("spec.version", m);
        }
    }
    if let Some(a) = &s.audit {
        if !matches!(a.as_str(), "elasticsearch" | "swift" | "http" | "stdout") {
            errs.push(
                "spec.audit",
                "Audit is one of elasticsearch, swift, http, stdout, or null.",
            );
        }
    }
    if !s.backup.is_empty() && !matches!(s.backup.as_str(), "on" | "off" | "externalAWS") {
        errs.push("spec.backup", "Backup is one of on, off, externalAWS.");
    }
    for (i, p) in s.node_pools.iter().enumerate() {
        node_pool(p, &format!("spec.nodePools[{i}]"), &mut errs);
        if s.node_pools[..i].iter().any(|q| q.name == p.name) {
            errs.push(
                format!("spec.nodePools[{i}].name"),
                format!("Another pool is already named {:?}.", p.name),
            );
        }
    }
    errs.into_result()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_names_sizes_and_disks() {
        for ok in ["a", "0", "pool.1", "gpu-a.b"] {
            assert_eq!(pool_name(ok), Ok(()), "{ok}");
        }
        for bad in ["", "-a", ".a", "Pool", "p_1", "abcdefghijklmnopqrstu"] {
            assert!(pool_name(bad).is_err(), "{bad}");
        }
        assert!(pool_size(0).is_ok() && pool_size(127).is_ok());
        assert!(pool_size(-1).is_err() && pool_size(128).is_err());
        let mut p = NodePool {
            name: "p".into(),
            flavor: "m1".into(),
            availability_zone: "az-a".into(),
            ..Default::default()
        };
        for (disk, ok) in [(63, false), (64, true), (1024, true), (1025, false)] {
            p.custom_root_disk_size = Some(disk);
            let mut e = ValidationErrors::default();
            node_pool(&p, "p", &mut e);
            assert_eq!(e.0.is_empty(), ok, "{disk}");
        }
    }

    #[test]
    fn kluster_reports_every_field_with_its_path() {
        let k: Kluster = serde_json::from_str(
            r#"{"name":"Bad_Name","spec":{"serviceCIDR":"10.0.0.0/40","sshPublicKey":"","version":"1.2",
            "nodePools":[{"name":"a","size":200,"flavor":"m1","availabilityZone":"az"},
                         {"name":"a","size":1,"flavor":"","availabilityZone":"az","labels":["x"]}]}}"#,
        )
        .unwrap();
        let e = kluster(&k).unwrap_err();
        for f in [
            "name",
            "spec.serviceCIDR",
            "spec.version",
            "spec.nodePools[0].size",
            "spec.nodePools[1].name",
            "spec.nodePools[1].flavor",
            "spec.nodePools[1].labels[0]",
        ] {
            assert!(e.for_field(f).is_some(), "no error for {f}: {e}");
        }
        assert_eq!(
            e.for_field("spec.nodePools[1].name"),
            Some("Another pool is already named \"a\".")
        );
    }

    #[test]
    fn labels_and_taints_are_checked_one_by_one_and_not_twice() {
        let strings = |t: &str| lines(t);
        let mut e = ValidationErrors::default();
        labels_and_taints(
            &strings("team=a\nzone=b\nteam=c\nbad"),
            &strings("gpu=yes:NoSchedule\ngpu=no:NoExecute\ngpu=no:NoSchedule\nx=y:Sometimes"),
            "spec.nodePools[1]",
            &mut e,
        );
        let fields: Vec<&str> = e.0.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.nodePools[1].labels[2]",
                "spec.nodePools[1].labels[3]",
                "spec.nodePools[1].taints[2]",
                "spec.nodePools[1].taints[3]",
            ]
        );
        assert_eq!(
            e.for_field("spec.nodePools[1].labels[2]"),
            Some("Label \"team\" is set twice; keep one.")
        );
        assert!(e
            .for_field("spec.nodePools[1].taints[3]")
            .is_some_and(|m| m.contains("not a taint")));
        let mut ok = ValidationErrors::default();
        labels_and_taints(
            &strings("a=b\nc=d"),
            &strings("a=b:NoSchedule\na=b:NoExecute"),
            "p",
            &mut ok,
        );
        assert!(ok.0.is_empty(), "{ok}");
    }

    #[test]
    fn unknown_fields_are_rejected_by_the_model() {
        let r = serde_json::from_str::<Kluster>(r#"{"name":"a","spec":{"colour":"red"}}"#);
        assert!(r
            .unwrap_err()
            .to_string()
            .contains("unknown field `colour`"));
    }
}
