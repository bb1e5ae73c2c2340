use std::time::Duration;

use kluster::{Kluster, KlusterMetadata};

use super::{message, resources, servers};
use crate::cloud::{Resource, ResourceKind, Server, ServerStatus};
use crate::store::{Observed, StoredKluster};

const PROD: &str = "0b6f6a52-1c3e-4d6a-9f00-1234567890ab";
const EARLIER: &str = "7d1e2f30-4a5b-4c6d-8e7f-0a1b2c3d4e5f";

fn observed(name: &str, uid: &str, recorded: &[&str]) -> Observed {
    Observed {
        project: "p".into(),
        stored: StoredKluster {
            kluster: Kluster {
                name: name.into(),
                metadata: Some(KlusterMetadata {
                    uid: uid.into(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            creator: String::new(),
            termination_protected: false,
        },
        in_phase: Duration::ZERO,
        age: Duration::ZERO,
        servers: recorded.iter().map(|s| s.to_string()).collect(),
        marks: Default::default(),
    }
}

fn server(id: &str, kluster: &str, uid: Option<&str>) -> Server {
    Server {
        id: id.into(),
        name: format!("vm-{id}"),
        kluster: kluster.into(),
        uid: uid.map(str::to_string),
        status: ServerStatus::Active,
        node: None,
        age: Duration::ZERO,
        fault: None,
    }
}

#[test]
fn servers_are_the_klusters_by_uid_or_by_a_recorded_id_only() {
    let group = [observed("prod", PROD, &["old"]), observed("dev", "", &[])];
    let mut list = vec![
        server("new", "prod", Some(PROD)),
        server("old", "prod", None),
        server("tenants", "prod", None),
        server("leftover", "prod", Some(EARLIER)),
        server("elsewhere", "gone", None),
        server("untagged-kluster", "dev", None),
        Server {
            status: ServerStatus::Deleting,
            ..server("old-going", "prod", None)
        },
    ];
    let strangers = servers(&group, &mut list);
    let owners: Vec<(&str, &str)> = list
        .iter()
        .map(|s| (s.id.as_str(), s.kluster.as_str()))
        .collect();
    assert_eq!(
        owners,
        [
            ("new", "prod"),
            ("old", "prod"),
            ("tenants", ""),
            ("leftover", ""),
            ("elsewhere", ""),
            // A kluster without a uid (only outside the store) goes by its name.
            ("untagged-kluster", "dev"),
            // A node made before uids, off the record once its delete was sent: still
            // the kluster's while it goes.
            ("old-going", "prod"),
        ]
    );
    let told: Vec<(&str, &str, bool)> = strangers
        .iter()
        .map(|s| (s.kluster.as_str(), s.id.as_str(), s.earlier))
        .collect();
    assert_eq!(
        told,
        [("prod", "tenants", false), ("prod", "leftover", true)]
    );
    assert!(message(&strangers[0]).contains("Server vm-tenants carries the name prod but not"));
    assert!(message(&strangers[1]).contains("earlier kluster named prod"));
}

#[test]
fn resources_need_the_uid_and_a_bare_name_claims_nothing() {
    let group = [observed("kubernetes", PROD, &["lb-bare"])];
    let resource = |id: &str, uid: Option<&str>| Resource {
        id: id.into(),
        kluster: "kubernetes".into(),
        uid: uid.map(str::to_string),
        kind: ResourceKind::LoadBalancer,
        name: format!("kube_service_{id}"),
        deleting: false,
    };
    // The store records no resource by id: a recorded-looking id does not help.
    let mut list = vec![
        resource("lb-mine", Some(PROD)),
        resource("lb-bare", None),
        resource("lb-earlier", Some(EARLIER)),
    ];
    let strangers = resources(&group, &mut list);
    let owners: Vec<&str> = list.iter().map(|r| r.kluster.as_str()).collect();
    assert_eq!(owners, ["kubernetes", "", ""]);
    assert_eq!(strangers.len(), 2);
    assert!(message(&strangers[0]).starts_with("Load balancer kube_service_lb-bare carries"));
}
