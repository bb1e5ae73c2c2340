//! Schema rules of the swagger (patterns, lengths, ranges) with messages a person reads.
//! The same functions run in the controller's API and in the browser's form.

use crate::model::{Kluster, NodePool};
use crate::net::{parse_ipv4, Cidr};

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

/// Maximum length of kluster and pool names.
pub const MAX_NAME_LEN: usize = 20;
/// Maximum length of `sshPublicKey`.
pub const MAX_SSH_KEY_LEN: usize = 10_000;

/// Checks a kluster name: `^[a-z]([-a-z0-9]*[a-z0-9])?$`, at most 20 characters.
pub fn kluster_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Enter a name.".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "Use at most {MAX_NAME_LEN} characters (this has {}).",
            name.len()
        ));
    }
    let b = name.as_bytes();
    let ok_inner = b
        .iter()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-');
    if !ok_inner || !b[0].is_ascii_lowercase() || b[b.len() - 1] == b'-' {
        return Err("Use lower-case letters, digits and dashes; start with a letter and end with a letter or digit.".into());
    }
    Ok(())
}

/// Checks a pool name: `^[a-z0-9]([-\.a-z0-9]*)?$`, at most 20 characters.
pub fn pool_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Enter a pool name.".into());
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "Use at most {MAX_NAME_LEN} characters (this has {}).",
            name.len()
        ));
    }
    let b = name.as_bytes();
    let ok = b
        .iter()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-' || *c == b'.');
    if !ok || !(b[0].is_ascii_lowercase() || b[0].is_ascii_digit()) {
        return Err(
            "Use lower-case letters, digits, dashes and dots; start with a letter or digit.".into(),
        );
    }
    Ok(())
}

/// Checks a pool size: 0–127.
pub fn pool_size(size: i64) -> Result<(), String> {
    if (0..=127).contains(&size) {
        Ok(())
    } else {
        Err("A pool has between 0 and 127 nodes.".into())
    }
}

/// Checks a CIDR range `a.b.c.d/n`.
pub fn cidr(value: &str) -> Result<Cidr, String> {
    Cidr::parse(value).ok_or_else(|| format!("{value:?} is not an IPv4 range like 10.180.0.0/16."))
}

/// `[prefix/]name` of a label or taint key, Kubernetes style.
fn label_key(key: &str) -> bool {
    let (prefix, name) = match key.rsplit_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        // DNS subdomain: dot-separated labels of [a-z0-9]([-a-z0-9]*[a-z0-9]).
        // The swagger's pattern requires at least two characters per label.
        let ok = p.split('.').all(|l| {
            let b = l.as_bytes();
            b.len() >= 2
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        });
        if !ok {
            return false;
        }
    }
    label_value(name)
}

/// `[A-Za-z0-9][-A-Za-z0-9_.]{0,62}`.
fn label_value(v: &str) -> bool {
    let b = v.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// Checks a label `key=value`.
pub fn label(l: &str) -> Result<(), String> {
    match l.split_once('=') {
        Some((k, v)) if label_key(k) && label_value(v) => Ok(()),
        _ => Err(format!("{l:?} is not a label like team=payments.")),
    }
}

/// Checks a taint `key=value:NoSchedule|NoExecute|PreferNoSchedule`.
pub fn taint(t: &str) -> Result<(), String> {
    let ok = t.rsplit_once(':').is_some_and(|(kv, effect)| {
        matches!(effect, "NoSchedule" | "NoExecute" | "PreferNoSchedule")
            && kv
                .split_once('=')
                .is_some_and(|(k, v)| label_key(k) && label_value(v))
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{t:?} is not a taint like dedicated=gpu:NoSchedule."
        ))
    }
}

/// A parsed semantic version (major, minor, patch; pre-release and build ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Semver {
    /// Major version.
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// Patch version.
    pub patch: u64,
}

fn numeric(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    s.parse().ok()
}

fn ident_ok(s: &str, numeric_no_leading_zero: bool) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && (!numeric_no_leading_zero
            || !s.bytes().all(|b| b.is_ascii_digit())
            || numeric(s).is_some())
}

/// Parses a version as the swagger's semver pattern does.
pub fn semver(v: &str) -> Result<Semver, String> {
    let bad = || format!("{v:?} is not a version like 1.32.4.");
    let (rest, build) = match v.split_once('+') {
        Some((r, b)) => (r, Some(b)),
        None => (v, None),
    };
    if let Some(b) = build {
        if !b.split('.').all(|i| ident_ok(i, false)) {
            return Err(bad());
        }
    }
    let (core, pre) = match rest.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (rest, None),
    };
    if let Some(p) = pre {
        if !p.split('.').all(|i| ident_ok(i, true)) {
            return Err(bad());
        }
    }
    let mut it = core.split('.');
    let (Some(a), Some(b), Some(c), None) = (it.next(), it.next(), it.next(), it.next()) else {
        return Err(bad());
    };
    match (numeric(a), numeric(b), numeric(c)) {
        (Some(major), Some(minor), Some(patch)) => Ok(Semver {
            major,
            minor,
            patch,
        }),
        _ => Err(bad()),
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
    for (i, t) in p.taints.iter().enumerate() {
        if let Err(m) = taint(t) {
            errs.push(format!("{at}.taints[{i}]"), m);
        }
    }
    for (i, l) in p.labels.iter().enumerate() {
        if let Err(m) = label(l) {
            errs.push(format!("{at}.labels[{i}]"), m);
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
    fn kluster_names_follow_the_pattern_and_length() {
        for ok in ["a", "demo", "my-cluster-1", "abcdefghijklmnopqrst"] {
            assert_eq!(kluster_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "1abc",
            "Demo",
            "demo-",
            "de_mo",
            "abcdefghijklmnopqrstu",
            "dé",
        ] {
            assert!(kluster_name(bad).is_err(), "{bad}");
        }
    }

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
    fn labels_and_taints() {
        assert!(label("team=payments").is_ok());
        assert!(label("example.com/team=a_b.c").is_ok());
        assert!(label("team").is_err());
        assert!(
            label("a.b/x=y").is_err(),
            "prefix labels need two characters"
        );
        assert!(label("-x=y").is_err());
        assert!(taint("dedicated=gpu:NoSchedule").is_ok());
        assert!(taint("dedicated=gpu:Sometimes").is_err());
        assert!(taint("dedicated:NoSchedule").is_err());
    }

    #[test]
    fn versions_follow_semver() {
        assert_eq!(
            semver("1.32.4"),
            Ok(Semver {
                major: 1,
                minor: 32,
                patch: 4
            })
        );
        assert!(semver("1.32.4-rc.1+build.5").is_ok());
        for bad in ["1.32", "v1.32.4", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3.4"] {
            assert!(semver(bad).is_err(), "{bad}");
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
    fn unknown_fields_are_rejected_by_the_model() {
        let r = serde_json::from_str::<Kluster>(r#"{"name":"a","spec":{"colour":"red"}}"#);
        assert!(r
            .unwrap_err()
            .to_string()
            .contains("unknown field `colour`"));
    }
}
