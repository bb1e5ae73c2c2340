//! Property tests of the parsers a stranger's request reaches first: whatever JSON or
//! strings arrive, validation, defaults and the update rules answer with errors, never a
//! panic.

use kluster::{defaults, update, validate, Kluster, KlusterPhase};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Strings that look like names, versions, CIDRs and addresses, and some that do not.
fn text() -> impl Strategy<Value = String> {
    let near = prop::collection::vec(
        prop::sample::select(vec![
            '0', '1', '2', '9', '.', '/', '-', '+', ':', '=', 'a', 'k', 'z', 'A', ' ', 'é', '\u{0}',
        ]),
        0..24,
    )
    .prop_map(String::from_iter);
    let numbers = (any::<u64>(), any::<u64>(), any::<u64>())
        .prop_map(|(a, b, c)| format!("{}.{b}.{c}", a % 3));
    prop_oneof![
        4 => near,
        2 => any::<String>(),
        1 => numbers,
        1 => Just("1.32.4".to_string()),
        1 => Just("10.180.0.0/16".to_string()),
    ]
}

fn pool() -> impl Strategy<Value = Value> {
    (
        text(),
        any::<i64>(),
        text(),
        prop::collection::vec(text(), 0..3),
        prop::collection::vec(text(), 0..3),
    )
        .prop_map(|(name, size, flavor, taints, labels)| {
            json!({"name": name, "size": size % 200, "flavor": flavor, "image": "",
                   "availabilityZone": "az-a", "taints": taints, "labels": labels})
        })
}

/// A kluster-shaped request with arbitrary values in the fields the rules look at.
fn kluster_json() -> impl Strategy<Value = Value> {
    (
        text(),
        prop::collection::vec(text(), 6),
        prop::option::of(text()),
        prop::collection::vec(pool(), 0..3),
        any::<bool>(),
    )
        .prop_map(|(name, f, audit, pools, no_cloud)| {
            json!({"name": name, "spec": {
                "serviceCIDR": f[0], "clusterCIDR": f[1], "version": f[2],
                "dnsAddress": f[3], "backup": f[4], "sshPublicKey": f[5],
                "audit": audit, "nodePools": pools, "noCloud": no_cloud,
            }})
        })
}

/// Arbitrary JSON, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        let keys = prop::sample::select(vec![
            "name",
            "spec",
            "status",
            "nodePools",
            "size",
            "version",
            "clusterCIDR",
            "x",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec((keys, inner), 0..5).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// Validation, then (if valid) defaults and validation again: never a panic, and a valid
/// request stays valid with its defaults filled in.
fn check(mut k: Kluster) -> Result<(), TestCaseError> {
    let messages = match validate::kluster(&k) {
        Ok(()) => Vec::new(),
        Err(e) => e.0,
    };
    prop_assert!(messages.iter().all(|e| !e.message.is_empty()));
    if messages.is_empty() {
        defaults::fill(&mut k, "1.32.4");
        prop_assert_eq!(validate::kluster(&k), Ok(()), "defaults keep it valid");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_json_is_a_kluster_or_an_error(v in any_json()) {
        if let Ok(k) = serde_json::from_value::<Kluster>(v) {
            check(k)?;
        }
    }

    #[test]
    fn kluster_shaped_requests_validate_without_panicking(v in kluster_json()) {
        if let Ok(k) = serde_json::from_value::<Kluster>(v) {
            check(k)?;
        }
    }

    #[test]
    fn updates_and_version_rules_answer_in_words(
        stored in kluster_json(),
        req in kluster_json(),
        current in text(),
        wanted in text(),
    ) {
        let _ = update::allowed_version(&current, &wanted);
        let (Ok(stored), Ok(req)) = (
            serde_json::from_value::<Kluster>(stored),
            serde_json::from_value::<Kluster>(req),
        ) else {
            return Ok(());
        };
        for phase in [KlusterPhase::Running, KlusterPhase::Pending] {
            if let Err(e) = update::apply(&stored, &req, phase) {
                prop_assert!(!e.0.is_empty());
            }
        }
    }

    #[test]
    fn field_checks_take_any_string(s in text()) {
        let _ = validate::cidr(&s);
        let _ = validate::semver(&s);
        let _ = validate::label(&s);
        let _ = validate::taint(&s);
        let _ = validate::kluster_name(&s);
        let _ = validate::pool_name(&s);
    }
}

#[test]
fn the_largest_versions_do_not_overflow() {
    let max = u64::MAX;
    assert!(update::allowed_version(&format!("1.{max}.0"), &format!("1.{max}.1")).is_ok());
    assert!(update::allowed_version(&format!("{max}.{max}.0"), &format!("{max}.{max}.9")).is_ok());
    assert!(update::allowed_version("1.0.0", &format!("1.{max}.0")).is_err());
}
