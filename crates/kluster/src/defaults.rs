//! The defaults Kubernikus fills in when a kluster is created.

use crate::model::{Kluster, NodePoolConfig};
use crate::net::{format_ipv4, Cidr};

/// Default service range.
pub const SERVICE_CIDR: &str = "198.18.128.0/17";
/// Default pod range (not set for `noCloud` klusters).
pub const CLUSTER_CIDR: &str = "100.100.0.0/16";
/// Default advertised apiserver address.
pub const ADVERTISE_ADDRESS: &str = "1.1.1.1";
/// Default advertised apiserver port.
pub const ADVERTISE_PORT: i64 = 6443;
/// Default cluster DNS domain.
pub const DNS_DOMAIN: &str = "cluster.local";
/// Default node image.
pub const IMAGE: &str = "flatcar-stable-amd64";

/// Whether a pool's nodes may be drained and rebooted, when the request does not say.
pub const ALLOW_REBOOT: bool = true;
/// Whether a pool's nodes may be drained and replaced, when the request does not say.
pub const ALLOW_REPLACE: bool = true;

/// A pool's update policy with each setting `c` leaves open taken from `old` (the stored
/// pool's), else the default.
pub fn pool_config(c: Option<&NodePoolConfig>, old: Option<&NodePoolConfig>) -> NodePoolConfig {
    let pick = |f: fn(&NodePoolConfig) -> Option<bool>, d: bool| {
        c.and_then(f).or_else(|| old.and_then(f)).or(Some(d))
    };
    NodePoolConfig {
        allow_reboot: pick(|c| c.allow_reboot, ALLOW_REBOOT),
        allow_replace: pick(|c| c.allow_replace, ALLOW_REPLACE),
    }
}

/// Fills every empty field of a create request with Kubernikus's default;
/// `default_version` comes from `/info`. Call after validation (CIDRs parse).
pub fn fill(k: &mut Kluster, default_version: &str) {
    let s = &mut k.spec;
    if s.service_cidr.is_empty() {
        s.service_cidr = SERVICE_CIDR.into();
    }
    if s.cluster_cidr.as_deref().unwrap_or("").is_empty() && !s.no_cloud {
        s.cluster_cidr = Some(CLUSTER_CIDR.into());
    }
    if s.advertise_address.is_empty() {
        s.advertise_address = ADVERTISE_ADDRESS.into();
    }
    if s.advertise_port == 0 {
        s.advertise_port = ADVERTISE_PORT;
    }
    if s.dns_address.is_empty() {
        if let Some(ip) = Cidr::parse(&s.service_cidr).and_then(|c| c.nth(2)) {
            s.dns_address = format_ipv4(ip);
        }
    }
    if s.dns_domain.is_empty() {
        s.dns_domain = DNS_DOMAIN.into();
    }
    if s.version.is_empty() {
        s.version = default_version.into();
    }
    if s.backup.is_empty() {
        s.backup = "on".into();
    }
    s.dex = s.dex.or(Some(true));
    s.dashboard = s.dashboard.or(Some(true));
    s.name = k.name.clone();
    for p in &mut s.node_pools {
        if p.image.is_empty() {
            p.image = IMAGE.into();
        }
        p.config = Some(pool_config(p.config.as_ref(), None));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_cidrs_dns_version_and_pool_config() {
        let mut k: Kluster = serde_json::from_str(
            r#"{"name":"demo","spec":{"nodePools":[{"name":"a","flavor":"m1","availabilityZone":"az","config":{"allowReboot":false}}]}}"#,
        )
        .unwrap();
        fill(&mut k, "1.32.4");
        let s = &k.spec;
        assert_eq!(s.service_cidr, "198.18.128.0/17");
        assert_eq!(s.cluster_cidr.as_deref(), Some("100.100.0.0/16"));
        assert_eq!(s.dns_address, "198.18.128.2");
        assert_eq!(
            (s.dns_domain.as_str(), s.version.as_str(), s.name.as_str()),
            ("cluster.local", "1.32.4", "demo")
        );
        assert_eq!(
            (s.advertise_address.as_str(), s.advertise_port),
            ("1.1.1.1", 6443)
        );
        let p = &s.node_pools[0];
        assert_eq!(p.image, "flatcar-stable-amd64");
        assert_eq!(
            p.config,
            Some(NodePoolConfig {
                allow_reboot: Some(false),
                allow_replace: Some(true)
            })
        );
    }

    #[test]
    fn no_cloud_keeps_cluster_cidr_empty_and_dns_follows_the_service_cidr() {
        let mut k: Kluster = serde_json::from_str(
            r#"{"name":"x","spec":{"noCloud":true,"serviceCIDR":"10.0.0.0/24"}}"#,
        )
        .unwrap();
        fill(&mut k, "1.32.4");
        assert_eq!(k.spec.cluster_cidr, None);
        assert_eq!(k.spec.dns_address, "10.0.0.2");
    }
}
