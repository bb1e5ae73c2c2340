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

#[cfg(test)]
mod tests {
    use super::*;

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
