//! "Create a kluster like this one": the create form (`/klusters/new?from=<name>`) filled
//! from an existing kluster. Its pools (name, size, flavor, zone, image, root disk, labels,
//! taints, update policy), version, SSH key, network and security group are copied; the
//! name is chosen afresh and the pod range (`clusterCIDR`) is left to the controller, which
//! picks a free one. Pure: the create form's server function reads the source and calls
//! [`form_from`].

use crate::form_model::{Copied, KlusterForm, PoolForm};

/// The name offered for a copy of `source`: `<source>-copy`, the source's name shortened
/// to fit the name's length (the caller checks that it is free); none when that is no
/// valid kluster name.
pub fn copy_name(source: &str) -> Option<String> {
    const SUFFIX: &str = "-copy";
    let room = kluster::validate::MAX_NAME_LEN - SUFFIX.len();
    let stem = source.get(..room.min(source.len())).unwrap_or(source);
    let name = format!("{}{SUFFIX}", stem.trim_end_matches(['-', '.']));
    kluster::validate::kluster_name(&name).ok().map(|_| name)
}

/// The create form filled from `k`, named `name` (empty: the user chooses), with the
/// version kept when new klusters may still use it (`versions`, the default first), and
/// the sentence that says what was copied and what was not.
pub fn form_from(k: &kluster::Kluster, name: String, versions: &[String]) -> Copied {
    let s = &k.spec;
    let mut notice = format!(
        "Copied from kluster {}: its node pools, version, SSH key, network and security group. \
         The pod range is not copied: the controller picks a free one.",
        k.name
    );
    let version = if versions.contains(&s.version) {
        s.version.clone()
    } else {
        let default = versions.first().cloned().unwrap_or_default();
        if !s.version.is_empty() {
            notice.push_str(&format!(
                " Version {} is not offered for new klusters; {default} is chosen.",
                s.version
            ));
        }
        default
    };
    if name.is_empty() {
        notice.push_str(" Choose a name for the new kluster.");
    }
    // The service range may be the same in every kluster: kept unless it is the default.
    let service_cidr = match s.service_cidr.as_str() {
        kluster::defaults::SERVICE_CIDR => String::new(),
        c => c.to_string(),
    };
    let form = KlusterForm {
        name,
        version,
        service_cidr,
        cluster_cidr: String::new(),
        ..exact_form(k)
    };
    Copied {
        form: Some(form),
        notice,
    }
}

/// The create form holding `k` as it is (name, version and ranges included): what the
/// YAML at create turns back into when the user returns to the form.
pub fn exact_form(k: &kluster::Kluster) -> KlusterForm {
    let s = &k.spec;
    let os = &s.openstack;
    KlusterForm {
        name: k.name.clone(),
        version: s.version.clone(),
        pools: s.node_pools.iter().map(pool_form).collect(),
        ssh_public_key: s.ssh_public_key.clone(),
        key_pair: String::new(),
        router_id: os.router_id.clone(),
        network_id: os.network_id.clone(),
        lb_subnet_id: os.lb_subnet_id.clone(),
        // The form's "default" security group is the empty choice.
        security_group_name: crate::form_model::group_choice(&os.security_group_name).to_string(),
        lb_floating_network_id: os.lb_floating_network_id.clone(),
        audit: s.audit.clone().unwrap_or_default(),
        service_cidr: s.service_cidr.clone(),
        cluster_cidr: s.cluster_cidr.clone().unwrap_or_default(),
    }
}

/// A pool as the create form's row shows it; its update policy as the API defaults it.
fn pool_form(p: &kluster::NodePool) -> PoolForm {
    let c = kluster::defaults::pool_config(p.config.as_ref(), None);
    let on = |b: Option<bool>| b.unwrap_or(true).then(|| "on".to_string());
    PoolForm {
        name: p.name.clone(),
        flavor: p.flavor.clone(),
        availability_zone: p.availability_zone.clone(),
        size: p.size.to_string(),
        allow_reboot: on(c.allow_reboot),
        allow_replace: on(c.allow_replace),
        labels: kluster::validate::unlines(&p.labels),
        taints: kluster::validate::unlines(&p.taints),
        image: p.image.clone(),
        root_disk: p
            .custom_root_disk_size
            .map(|d| d.to_string())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> kluster::Kluster {
        serde_json::from_str(
            r#"{"name":"web","spec":{"version":"1.30.2","sshPublicKey":"ssh-ed25519 AAAA x@y",
               "clusterCIDR":"100.101.0.0/16","serviceCIDR":"198.18.128.0/17",
               "openstack":{"routerID":"r1","networkID":"n1","lbSubnetID":"s1","securityGroupName":"default",
                 "lbFloatingNetworkID":"ext-1"},"audit":"swift",
               "nodePools":[
                 {"name":"a","size":3,"flavor":"m1.small","availabilityZone":"az-a",
                  "image":"ubuntu-24.04-amd64","customRootDiskSize":128,
                  "labels":["team=x","tier=web"],"taints":["gpu=yes:NoSchedule"],
                  "config":{"allowReboot":false,"allowReplace":true}},
                 {"name":"b","size":0,"flavor":"m1.large","availabilityZone":"az-b"}]}}"#,
        )
        .unwrap()
    }

    #[test]
    fn pools_version_key_and_network_are_copied_the_pod_range_is_not() {
        let versions = vec!["1.31.0".to_string(), "1.30.2".to_string()];
        let c = form_from(&source(), "web-copy".into(), &versions);
        let f = c.form.unwrap();
        assert_eq!(
            (f.name.as_str(), f.version.as_str()),
            ("web-copy", "1.30.2")
        );
        assert_eq!(f.cluster_cidr, "");
        assert_eq!(
            f.service_cidr, "",
            "the default service range stays the default"
        );
        assert_eq!((f.router_id.as_str(), f.network_id.as_str()), ("r1", "n1"));
        assert_eq!(f.security_group_name, "");
        assert_eq!(
            (f.lb_floating_network_id.as_str(), f.audit.as_str()),
            ("ext-1", "swift")
        );
        assert_eq!(f.ssh_public_key, "ssh-ed25519 AAAA x@y");
        let a = &f.pools[0];
        assert_eq!((a.name.as_str(), a.size.as_str()), ("a", "3"));
        assert_eq!(a.labels, "team=x\ntier=web");
        assert_eq!(a.taints, "gpu=yes:NoSchedule");
        assert_eq!(
            (a.image.as_str(), a.root_disk.as_str()),
            ("ubuntu-24.04-amd64", "128")
        );
        assert_eq!(f.pools[1].root_disk, "", "no custom disk");
        assert_eq!(
            (a.allow_reboot.clone(), a.allow_replace.clone()),
            (None, Some("on".into()))
        );
        let b = &f.pools[1];
        assert_eq!(
            (b.flavor.as_str(), b.availability_zone.as_str()),
            ("m1.large", "az-b")
        );
        assert_eq!(
            b.allow_reboot.as_deref(),
            Some("on"),
            "defaulted as the API does"
        );
        assert!(c.notice.contains("pod range is not copied"), "{}", c.notice);
        // The copy is a valid create request by the API's rules.
        assert!(f.to_kluster().is_ok());
    }

    #[test]
    fn a_version_no_longer_offered_and_a_missing_name_are_said() {
        let c = form_from(&source(), String::new(), &["1.32.0".to_string()]);
        let f = c.form.unwrap();
        assert_eq!(f.version, "1.32.0");
        assert!(
            c.notice.contains("Version 1.30.2 is not offered"),
            "{}",
            c.notice
        );
        assert!(c.notice.contains("Choose a name"), "{}", c.notice);
        assert_eq!(copy_name("web").as_deref(), Some("web-copy"));
        assert_eq!(
            copy_name("a-very-long-kluster-1").as_deref(),
            Some("a-very-long-klu-copy")
        );
        assert_eq!(
            copy_name("abcdefghijklmn-opq").as_deref(),
            Some("abcdefghijklmn-copy")
        );
        assert_eq!(copy_name("Bad_Name"), None);
    }
}
