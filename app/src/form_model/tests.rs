//! The create form model's tests: the API's rules and messages on what a form posts.

use super::*;

fn form() -> KlusterForm {
    KlusterForm {
        name: "demo".into(),
        pools: vec![PoolForm {
            name: "small".into(),
            flavor: "m1.small".into(),
            availability_zone: "az-a".into(),
            size: "2".into(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn the_form_is_checked_with_the_apis_rules_and_messages() {
    let k = form().to_kluster().unwrap();
    assert_eq!(k.spec.node_pools[0].size, 2);
    let mut bad = form();
    bad.name = "Bad_Name".into();
    bad.pools[0].size = "two".into();
    let errs = bad.to_kluster().unwrap_err();
    let api = kluster::validate::kluster_name("Bad_Name").unwrap_err();
    assert_eq!(errs.for_field("name"), Some(api.as_str()));
    assert!(errs.for_field("spec.nodePools[0].size").is_some());
    let mut none = form();
    none.pools.clear();
    assert!(none
        .to_kluster()
        .unwrap_err()
        .for_field("spec.nodePools")
        .is_some());
}

#[test]
fn audit_and_floating_network_reach_the_spec_empty_is_none() {
    let k = form().to_kluster().unwrap();
    assert_eq!(k.spec.audit, None);
    assert_eq!(k.spec.openstack.lb_floating_network_id, "");
    let mut f = form();
    f.audit = "swift".into();
    f.lb_floating_network_id = " ext-1 ".into();
    let k = f.to_kluster().unwrap();
    assert_eq!(k.spec.audit.as_deref(), Some("swift"));
    assert_eq!(k.spec.openstack.lb_floating_network_id, "ext-1");
    f.audit = "syslog".into();
    assert!(f
        .to_kluster()
        .unwrap_err()
        .for_field("spec.audit")
        .is_some());
    for (value, _) in AUDIT_CHOICES {
        let k = kluster::Kluster {
            name: "a".into(),
            spec: kluster::KlusterSpec {
                audit: audit(value),
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(
            kluster::validate::kluster(&k)
                .err()
                .and_then(|e| e.for_field("spec.audit").map(str::to_string))
                .is_none(),
            "{value}"
        );
    }
}

#[test]
fn labels_and_taints_are_read_one_a_line_and_checked_by_the_apis_rules() {
    let mut f = form();
    f.pools[0].labels = "team=payments\r\n\n tier=web \n".into();
    f.pools[0].taints = "dedicated=gpu:NoSchedule".into();
    f.pools[0].allow_reboot = Some("on".into());
    let k = f.to_kluster().unwrap();
    let p = &k.spec.node_pools[0];
    assert_eq!(p.labels, ["team=payments", "tier=web"]);
    assert_eq!(p.taints, ["dedicated=gpu:NoSchedule"]);
    let c = p.config.clone().unwrap_or_default();
    assert_eq!((c.allow_reboot, c.allow_replace), (Some(true), Some(false)));
    f.pools[0].taints = "ok=yes:NoExecute\ndedicated=gpu:Sometimes".into();
    let errs = f.to_kluster().unwrap_err();
    assert!(errs
        .for_field("spec.nodePools[0].taints[1]")
        .is_some_and(|m| m.contains("Sometimes")));
}

#[test]
fn image_and_root_disk_are_taken_and_the_disk_checked_by_the_apis_bounds() {
    let mut f = form();
    f.pools[0].image = "ubuntu-24.04-amd64".into();
    f.pools[0].root_disk = " 100 ".into();
    let p = f.to_kluster().unwrap().spec.node_pools.remove(0);
    assert_eq!(
        (p.image.as_str(), p.custom_root_disk_size),
        ("ubuntu-24.04-amd64", Some(100))
    );
    f.pools[0].root_disk = "".into();
    assert_eq!(
        f.to_kluster().unwrap().spec.node_pools[0].custom_root_disk_size,
        None
    );
    for bad in ["2000", "63", "lots"] {
        f.pools[0].root_disk = bad.into();
        let errs = f.to_kluster().unwrap_err();
        assert!(
            errs.for_field("spec.nodePools[0].customRootDiskSize")
                .is_some(),
            "{bad}"
        );
    }
}

#[test]
fn needs_are_compared_with_what_is_left() {
    let flavors = vec![kluster::Flavor {
        name: "m1.small".into(),
        id: "1".into(),
        ram: 4096,
        vcpus: 2,
    }];
    let n = Needs::of(&form().pools, &flavors);
    assert_eq!(
        n,
        Needs {
            instances: 2,
            cores: 4,
            ram: 8192
        }
    );
    let q = kluster::Quota {
        instances: kluster::Usage { limit: 10, used: 9 },
        cores: kluster::Usage { limit: 20, used: 0 },
        ram: kluster::Usage {
            limit: 51200,
            used: 0,
        },
    };
    assert_eq!(n.shortfalls(&q), ["Instances: needs 2, 1 of 10 left"]);
}
