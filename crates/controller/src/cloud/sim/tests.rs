//! The simulated cloud's own behaviour: boot, registration, resources, quotas, faults.

use super::*;
use crate::cloud::{NodeState, ResourceKind, ServerStatus};

fn spec(name: &str, flavor: &str) -> ServerSpec {
    ServerSpec {
        name: name.into(),
        kluster: "k".into(),
        flavor: flavor.into(),
        image: IMAGES[0].into(),
        availability_zone: "az-a".into(),
        ..Default::default()
    }
}

fn sim() -> SimCloud {
    SimCloud::new(
        SimConfig {
            boot: Duration::from_secs(10),
            register: Duration::from_secs(5),
            teardown: Duration::from_secs(2),
            limits: Limits {
                instances: 3,
                cores: 10,
                ram: 100_000,
            },
        },
        Clock::manual(),
    )
}

#[tokio::test]
async fn servers_boot_register_and_bring_their_klusters_resources() {
    let c = sim();
    let s = c
        .create_server("p", &spec("kks-k-a-00001", "m1.small"))
        .await
        .unwrap();
    assert_eq!((s.status, s.node), (ServerStatus::Build, None));
    c.clock().advance(Duration::from_secs(10));
    let l = c.servers("p").await.unwrap();
    assert_eq!((l[0].status, l[0].node), (ServerStatus::Active, None));
    assert!(c.resources("p", &[]).await.unwrap().is_empty());
    c.clock().advance(Duration::from_secs(5));
    let l = c.servers("p").await.unwrap();
    assert_eq!(
        l[0].node,
        Some(NodeState {
            ready: true,
            cordoned: false
        })
    );
    let mut kinds: Vec<_> = c
        .resources("p", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.kind)
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ResourceKind::Volume,
            ResourceKind::LoadBalancer,
            ResourceKind::Route
        ]
    );
    assert!(
        c.servers("other").await.unwrap().is_empty(),
        "projects are apart"
    );
    // Deleting: Deleting until the teardown time passes, then gone with its route.
    c.delete_server("p", &s.id).await.unwrap();
    assert_eq!(
        c.servers("p").await.unwrap()[0].status,
        ServerStatus::Deleting
    );
    c.clock().advance(Duration::from_secs(2));
    assert!(c.servers("p").await.unwrap().is_empty());
    let left: Vec<_> = c
        .resources("p", &[])
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.kind)
        .collect();
    assert!(!left.contains(&ResourceKind::Route), "{left:?}");
}

#[tokio::test]
async fn quotas_bite_with_novas_words() {
    let c = sim();
    c.create_server("p", &spec("a", "m1.large")).await.unwrap();
    let e = c
        .create_server("p", &spec("b", "m1.medium"))
        .await
        .unwrap_err();
    assert_eq!(
        e.message,
        "Quota exceeded for cores: Requested 4, but already used 8 of 10 cores. (HTTP 403)"
    );
    assert_eq!(e.kind, crate::cloud::CloudErrorKind::QuotaExceeded);
    c.create_server("p", &spec("b", "m1.small")).await.unwrap();
    let q = c.quota("p").await.unwrap();
    assert_eq!(
        (q.instances.used, q.cores.used, q.cores.remaining()),
        (2, 10, 0)
    );
    let e = c
        .create_server("p", &spec("c", "m9.huge"))
        .await
        .unwrap_err();
    assert!(
        e.message.contains("Flavor m9.huge could not be found"),
        "{e}"
    );
    assert_eq!(e.kind, crate::cloud::CloudErrorKind::Other);
}

#[tokio::test]
async fn faults_switch_per_project() {
    let c = sim();
    let mut p = c.project("p").await.unwrap();
    p.faults.server_error = true;
    p.faults.empty_listings = 1;
    c.set_project("p", p).await.unwrap();
    c.create_server("p", &spec("a", "m1.small")).await.unwrap();
    c.create_server("q", &spec("a", "m1.small")).await.unwrap();
    c.clock().advance(Duration::from_secs(10));
    assert!(
        c.servers("p").await.unwrap().is_empty(),
        "one empty listing"
    );
    assert_eq!(c.servers("p").await.unwrap()[0].status, ServerStatus::Error);
    assert_eq!(
        c.servers("q").await.unwrap()[0].status,
        ServerStatus::Active
    );
    let mut p = c.project("p").await.unwrap();
    p.faults = Faults {
        quota_exhausted: true,
        ..Faults::default()
    };
    c.set_project("p", p).await.unwrap();
    let e = c
        .create_server("p", &spec("b", "m1.small"))
        .await
        .unwrap_err();
    assert!(e.message.starts_with("Quota exceeded for instances"), "{e}");
    assert_eq!(e.kind, crate::cloud::CloudErrorKind::QuotaExceeded);
    let mut p = c.project("p").await.unwrap();
    p.faults = Faults {
        api_timeout: true,
        ..Faults::default()
    };
    c.set_project("p", p).await.unwrap();
    let hung = tokio::time::timeout(Duration::from_millis(50), c.servers("p")).await;
    assert!(hung.is_err(), "the call hangs");
}
