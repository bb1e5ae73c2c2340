//! What an update (`PUT /api/v1/clusters/{name}`) may change, as Kubernikus does it: only
//! audit, node pools, SSH key, security group, version, dex, dashboard, OIDC and the
//! authentication configuration are taken; pools keep name, flavor, image, root disk and
//! AZ (their
//! size, labels, taints and update policy change; a policy left open keeps the stored
//! value, and an added pool's defaults as at create); a pool is removed only at size 0; the version moves within its minor or to the next one, and
//! only while the kluster is Running.

use crate::defaults;
use crate::model::{Kluster, KlusterPhase};
use crate::validate::{self, semver, ValidationErrors};

/// The versions an update may choose, given the stored version: the same major, minor
/// equal or +1, not lower than now. Used by the edit form to offer only valid choices.
pub fn allowed_version(current: &str, wanted: &str) -> Result<(), String> {
    if current == wanted {
        return Ok(());
    }
    let (Ok(cur), Ok(new)) = (semver(current), semver(wanted)) else {
        return semver(wanted).map(drop);
    };
    if new.major != cur.major {
        return Err(format!(
            "Upgrades stay within major version {} (from {current}).",
            cur.major
        ));
    }
    if new < cur {
        return Err(format!("Downgrades are not possible (running {current})."));
    }
    if new.minor > cur.minor.saturating_add(1) {
        return Err(format!(
            "Upgrade one minor version at a time: from {current} to {}.{}.x at most.",
            cur.major,
            cur.minor.saturating_add(1)
        ));
    }
    Ok(())
}

/// Validates `req` as an update of `stored` (in `phase`) and returns the kluster to store.
pub fn apply(
    stored: &Kluster,
    req: &Kluster,
    phase: KlusterPhase,
) -> Result<Kluster, ValidationErrors> {
    let mut errs = match validate::kluster(req) {
        Ok(()) => ValidationErrors::default(),
        Err(e) => e,
    };
    let push = |errs: &mut ValidationErrors, f: &str, m: String| {
        errs.0.push(validate::FieldError {
            field: f.into(),
            message: m,
        })
    };
    if req.name != stored.name {
        push(
            &mut errs,
            "name",
            format!(
                "The name cannot change (this kluster is {:?}).",
                stored.name
            ),
        );
    }
    let (s, r) = (&stored.spec, &req.spec);
    if !r.service_cidr.is_empty() && r.service_cidr != s.service_cidr {
        push(
            &mut errs,
            "spec.serviceCIDR",
            format!("The service CIDR cannot change (it is {}).", s.service_cidr),
        );
    }
    if let Some(c) = r.cluster_cidr.as_deref().filter(|c| !c.is_empty()) {
        if Some(c) != s.cluster_cidr.as_deref() {
            push(
                &mut errs,
                "spec.clusterCIDR",
                "The cluster CIDR cannot change.".into(),
            );
        }
    }
    let mut out = stored.clone();
    let o = &mut out.spec;
    o.audit = r.audit.clone();
    o.ssh_public_key = r.ssh_public_key.clone();
    o.openstack.security_group_name = r.openstack.security_group_name.clone();
    o.dex = r.dex.or(s.dex);
    o.dashboard = r.dashboard.or(s.dashboard);
    o.oidc = r.oidc.clone();
    o.authentication_configuration = r.authentication_configuration.clone();

    if !r.version.is_empty() && r.version != s.version {
        if phase != KlusterPhase::Running {
            push(
                &mut errs,
                "spec.version",
                format!(
                    "The version can change only while the kluster is Running (it is {phase:?})."
                ),
            );
        } else if let Err(m) = allowed_version(&s.version, &r.version) {
            push(&mut errs, "spec.version", m);
        } else {
            o.version = r.version.clone();
        }
    }

    let mut pools = Vec::with_capacity(r.node_pools.len());
    for (i, p) in r.node_pools.iter().enumerate() {
        let at = format!("spec.nodePools[{i}]");
        let mut p = p.clone();
        if let Some(old) = s.node_pools.iter().find(|o| o.name == p.name) {
            if p.flavor != old.flavor {
                push(
                    &mut errs,
                    &format!("{at}.flavor"),
                    format!(
                        "The flavor of an existing pool cannot change (it is {}).",
                        old.flavor
                    ),
                );
            }
            if !p.image.is_empty() && p.image != old.image {
                push(
                    &mut errs,
                    &format!("{at}.image"),
                    format!(
                        "The image of an existing pool cannot change (it is {}).",
                        old.image
                    ),
                );
            }
            p.image = old.image.clone();
            if p.custom_root_disk_size.is_some()
                && p.custom_root_disk_size != old.custom_root_disk_size
            {
                let was = old
                    .custom_root_disk_size
                    .map_or("the flavor's disk".to_string(), |d| format!("{d} GB"));
                push(
                    &mut errs,
                    &format!("{at}.customRootDiskSize"),
                    format!("The root disk of an existing pool cannot change (it is {was})."),
                );
            }
            p.custom_root_disk_size = old.custom_root_disk_size;
            p.availability_zone = old.availability_zone.clone();
            if p.config.is_some() || old.config.is_some() {
                p.config = Some(defaults::pool_config(
                    p.config.as_ref(),
                    old.config.as_ref(),
                ));
            }
        } else {
            p.config = Some(defaults::pool_config(p.config.as_ref(), None));
        }
        pools.push(p);
    }
    for old in &s.node_pools {
        if old.size > 0 && !r.node_pools.iter().any(|p| p.name == old.name) {
            push(
                &mut errs,
                "spec.nodePools",
                format!(
                    "Pool {:?} still has {} nodes: scale it to 0 first, then remove it.",
                    old.name, old.size
                ),
            );
        }
    }
    o.node_pools = pools;
    errs.into_result().map(|()| out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodePool;

    fn stored() -> Kluster {
        serde_json::from_str(
            r#"{"name":"demo","spec":{"serviceCIDR":"198.18.128.0/17","clusterCIDR":"100.100.0.0/16",
            "version":"1.31.2","nodePools":[
              {"name":"a","size":2,"flavor":"m1.small","image":"flatcar","availabilityZone":"az-a"},
              {"name":"b","size":0,"flavor":"m1.small","image":"flatcar","availabilityZone":"az-b"}]}}"#,
        )
        .unwrap()
    }

    fn pool(name: &str, size: i64, flavor: &str, az: &str) -> NodePool {
        NodePool {
            name: name.into(),
            size,
            flavor: flavor.into(),
            availability_zone: az.into(),
            ..Default::default()
        }
    }

    #[test]
    fn scaling_and_adding_pools_keeps_az_and_image() {
        let mut req = stored();
        req.spec.node_pools = vec![
            pool("a", 5, "m1.small", "az-other"),
            pool("b", 0, "m1.small", "az-b"),
            pool("c", 1, "m1.large", "az-a"),
        ];
        let out = apply(&stored(), &req, KlusterPhase::Running).unwrap();
        assert_eq!(out.spec.node_pools[0].size, 5);
        assert_eq!(
            out.spec.node_pools[0].availability_zone, "az-a",
            "AZ is kept"
        );
        assert_eq!(out.spec.node_pools[0].image, "flatcar");
        assert_eq!(out.spec.node_pools[2].name, "c");
    }

    #[test]
    fn the_root_disk_of_an_existing_pool_is_kept_and_a_change_refused() {
        let mut before = stored();
        before.spec.node_pools[0].custom_root_disk_size = Some(100);
        let mut req = before.clone();
        req.spec.node_pools[0].custom_root_disk_size = None;
        req.spec.node_pools[0].size = 3;
        let out = apply(&before, &req, KlusterPhase::Running).unwrap();
        assert_eq!(out.spec.node_pools[0].custom_root_disk_size, Some(100));
        req.spec.node_pools[0].custom_root_disk_size = Some(200);
        let errs = apply(&before, &req, KlusterPhase::Running).unwrap_err();
        assert_eq!(
            errs.for_field("spec.nodePools[0].customRootDiskSize"),
            Some("The root disk of an existing pool cannot change (it is 100 GB).")
        );
        req.spec.node_pools[1].custom_root_disk_size = Some(64);
        let errs = apply(&before, &req, KlusterPhase::Running).unwrap_err();
        assert!(errs
            .for_field("spec.nodePools[1].customRootDiskSize")
            .is_some_and(|m| m.contains("the flavor's disk")));
    }

    #[test]
    fn labels_taints_and_policy_of_an_existing_pool_change_and_an_added_pool_gets_defaults() {
        use crate::model::NodePoolConfig;
        let mut before = stored();
        before.spec.node_pools[0].config = Some(NodePoolConfig {
            allow_reboot: Some(true),
            allow_replace: Some(true),
        });
        let mut req = before.clone();
        let a = &mut req.spec.node_pools[0];
        a.labels = vec!["team=payments".into()];
        a.taints = vec!["dedicated=gpu:NoSchedule".into()];
        a.config = Some(NodePoolConfig {
            allow_reboot: None,
            allow_replace: Some(false),
        });
        let mut added = pool("c", 1, "m1.small", "az-a");
        added.config = Some(NodePoolConfig {
            allow_reboot: Some(false),
            allow_replace: None,
        });
        req.spec.node_pools.push(added);
        req.spec.node_pools.push(pool("d", 1, "m1.small", "az-a"));
        let out = apply(&before, &req, KlusterPhase::Running).unwrap();
        let p = &out.spec.node_pools;
        assert_eq!(p[0].labels, ["team=payments"]);
        assert_eq!(p[0].taints, ["dedicated=gpu:NoSchedule"]);
        let policy = |i: usize| {
            let c = p[i].config.clone().unwrap_or_default();
            (c.allow_reboot, c.allow_replace)
        };
        assert_eq!(
            policy(0),
            (Some(true), Some(false)),
            "open: the stored value"
        );
        assert_eq!(policy(2), (Some(false), Some(true)), "open: the default");
        assert_eq!(policy(3), (Some(true), Some(true)));
        // A bad taint or a label set twice is refused, naming the item.
        let mut req = before.clone();
        req.spec.node_pools[0].taints = vec!["dedicated=gpu:Sometimes".into()];
        req.spec.node_pools[0].labels = vec!["a=b".into(), "a=c".into()];
        let e = apply(&before, &req, KlusterPhase::Running).unwrap_err();
        assert!(e.for_field("spec.nodePools[0].taints[0]").is_some(), "{e}");
        assert!(e.for_field("spec.nodePools[0].labels[1]").is_some(), "{e}");
    }

    #[test]
    fn flavor_change_and_removing_a_non_empty_pool_are_refused() {
        let mut req = stored();
        req.spec.node_pools = vec![pool("b", 0, "m1.large", "az-b")];
        let e = apply(&stored(), &req, KlusterPhase::Running).unwrap_err();
        assert!(e.for_field("spec.nodePools[0].flavor").is_some(), "{e}");
        assert!(
            e.for_field("spec.nodePools")
                .unwrap()
                .contains("scale it to 0 first"),
            "{e}"
        );
        // Removing the empty pool is fine.
        let mut req = stored();
        req.spec.node_pools.truncate(1);
        assert_eq!(
            apply(&stored(), &req, KlusterPhase::Running)
                .unwrap()
                .spec
                .node_pools
                .len(),
            1
        );
    }

    #[test]
    fn versions_move_one_minor_at_a_time_and_only_while_running() {
        assert!(allowed_version("1.31.2", "1.31.5").is_ok());
        assert!(allowed_version("1.31.2", "1.32.0").is_ok());
        assert!(allowed_version("1.31.2", "1.33.0")
            .unwrap_err()
            .contains("one minor version at a time"));
        assert!(allowed_version("1.31.2", "2.0.0").is_err());
        assert!(allowed_version("1.31.2", "1.30.9")
            .unwrap_err()
            .contains("Downgrades"));
        let mut req = stored();
        req.spec.version = "1.32.1".into();
        assert_eq!(
            apply(&stored(), &req, KlusterPhase::Running)
                .unwrap()
                .spec
                .version,
            "1.32.1"
        );
        let e = apply(&stored(), &req, KlusterPhase::Creating).unwrap_err();
        assert!(e
            .for_field("spec.version")
            .unwrap()
            .contains("only while the kluster is Running"));
    }

    #[test]
    fn immutable_fields_are_refused_and_others_ignored() {
        let mut req = stored();
        req.spec.service_cidr = "10.0.0.0/16".into();
        req.spec.cluster_cidr = Some("10.1.0.0/16".into());
        assert!(
            apply(&stored(), &req, KlusterPhase::Running)
                .unwrap_err()
                .0
                .len()
                == 2
        );
        let mut req = stored();
        req.spec.advertise_address = "9.9.9.9".into();
        req.spec.ssh_public_key = "ssh-ed25519 AAAA".into();
        let out = apply(&stored(), &req, KlusterPhase::Running).unwrap();
        assert_eq!(
            out.spec.advertise_address, "",
            "silently ignored as Kubernikus does"
        );
        assert_eq!(out.spec.ssh_public_key, "ssh-ed25519 AAAA");
        let mut req = stored();
        req.name = "other".into();
        assert!(apply(&stored(), &req, KlusterPhase::Running)
            .unwrap_err()
            .for_field("name")
            .is_some());
    }
}
