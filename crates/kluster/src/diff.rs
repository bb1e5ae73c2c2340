//! What an update changes, field by field, as JSON paths and values: the audit trail and
//! the YAML editor's preview show the same list.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::{KlusterSpec, SpecChange};

/// Leaves of a JSON value by path (`spec.nodePools[0].size`); arrays by index.
fn flatten(prefix: &str, v: &Value, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                flatten(&format!("{prefix}.{k}"), v, out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, v) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), v, out);
            }
        }
        Value::Null => {}
        leaf => {
            out.insert(prefix.to_string(), leaf.to_string());
        }
    }
}

/// The spec fields that differ between `before` and `after` (absent: empty text), by path
/// (`spec.nodePools[0].size`), values as JSON.
pub fn spec_changes(before: Option<&KlusterSpec>, after: Option<&KlusterSpec>) -> Vec<SpecChange> {
    let leaves = |s: Option<&KlusterSpec>| {
        let mut out = BTreeMap::new();
        if let Some(v) = s.and_then(|s| serde_json::to_value(s).ok()) {
            flatten("spec", &v, &mut out);
        }
        out
    };
    let (b, a) = (leaves(before), leaves(after));
    let fields: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    fields
        .into_iter()
        .filter(|f| b.get(*f) != a.get(*f))
        .map(|f| SpecChange {
            field: f.clone(),
            before: b.get(f).cloned().unwrap_or_default(),
            after: a.get(f).cloned().unwrap_or_default(),
        })
        .collect()
}

/// Whether `after` changes what someone asked for in `before`: any change but the
/// reconcilers' filling in of OpenStack ids (router, network, subnets, group) that `before`
/// left empty. Only such a change grows the resource version, so a page shown before the
/// controller found the kluster's network is not told that someone else changed it.
pub fn changes_intent(before: &KlusterSpec, after: &KlusterSpec) -> bool {
    let mut asked = after.clone();
    let (b, a) = (&before.openstack, &mut asked.openstack);
    for (was, now) in [
        (&b.router_id, &mut a.router_id),
        (&b.network_id, &mut a.network_id),
        (&b.lb_subnet_id, &mut a.lb_subnet_id),
        (&b.lb_floating_network_id, &mut a.lb_floating_network_id),
        (&b.security_group_name, &mut a.security_group_name),
    ] {
        if was.is_empty() {
            now.clear();
        }
    }
    asked != *before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filling_in_empty_openstack_ids_is_no_change_of_intent() {
        let asked = KlusterSpec::default();
        let mut found = asked.clone();
        found.openstack.router_id = "r-1".into();
        found.openstack.network_id = "n-1".into();
        assert!(!changes_intent(&asked, &found));
        let mut moved = found.clone();
        moved.openstack.router_id = "r-2".into();
        assert!(changes_intent(&found, &moved));
        let mut upgraded = found.clone();
        upgraded.version = "1.32.4".into();
        assert!(changes_intent(&found, &upgraded));
        assert!(changes_intent(&found, &asked));
    }

    #[test]
    fn changes_name_the_field_and_both_values() {
        let a = KlusterSpec {
            version: "1.31.8".into(),
            ..Default::default()
        };
        let mut b = a.clone();
        b.version = "1.32.4".into();
        let d = spec_changes(Some(&a), Some(&b));
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            (
                d[0].field.as_str(),
                d[0].before.as_str(),
                d[0].after.as_str()
            ),
            ("spec.version", "\"1.31.8\"", "\"1.32.4\"")
        );
        assert!(spec_changes(Some(&a), Some(&a)).is_empty());
    }
}
