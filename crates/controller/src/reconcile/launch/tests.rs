//! Launch's plan against hand-made server listings.

use std::time::Duration;

use kluster::{Kluster, NodePool, NodePoolInfo};

use super::*;
use crate::cloud::{NodeState, Server, ServerStatus};

fn server(name: &str, status: ServerStatus, node: Option<(bool, bool)>, age: u64) -> Server {
    let kluster = name.split('-').nth(1).unwrap_or_default();
    Server {
        id: format!("id-{name}"),
        name: name.into(),
        kluster: kluster.into(),
        uid: None,
        status,
        node: node.map(|(ready, cordoned)| NodeState { ready, cordoned }),
        age: Duration::from_secs(age),
        fault: None,
    }
}

fn kluster(pools: &[(&str, i64)]) -> Kluster {
    let mut k = Kluster {
        name: "k".into(),
        ..Default::default()
    };
    k.spec.node_pools = pools
        .iter()
        .map(|(name, size)| NodePool {
            name: (*name).into(),
            size: *size,
            flavor: "m1.small".into(),
            ..Default::default()
        })
        .collect();
    k
}

use ServerStatus::*;

#[test]
fn needed_is_size_minus_running_minus_starting() {
    // (pool size, servers, servers to create, (running, healthy, schedulable))
    type Case = (i64, Vec<Server>, i64, (i64, i64, i64));
    let cases: Vec<Case> = vec![
        (3, vec![], 3, (0, 0, 0)),
        // A booting server is no running node yet, but none is created in its place.
        (
            3,
            vec![server("kks-k-a-aaaaa", Build, None, 1)],
            2,
            (0, 0, 0),
        ),
        // Nor is a stopped one (flight starts it).
        (
            2,
            vec![
                server("kks-k-a-aaaaa", Stopped, None, 9),
                server("kks-k-a-bbbbb", Active, Some((true, false)), 9),
            ],
            0,
            (1, 1, 1),
        ),
        (
            2,
            vec![
                server("kks-k-a-aaaaa", Active, Some((true, false)), 9),
                server("kks-k-a-bbbbb", Active, Some((true, true)), 9),
            ],
            0,
            (2, 2, 1),
        ),
        // An ERROR server counts for nothing: flight removes it, launch replaces it.
        (
            1,
            vec![server("kks-k-a-aaaaa", Error, None, 9)],
            1,
            (0, 0, 0),
        ),
        // A server being deleted counts for nothing either.
        (
            1,
            vec![server("kks-k-a-aaaaa", Deleting, None, 9)],
            1,
            (0, 0, 0),
        ),
        // Another pool's or kluster's servers are not ours.
        (
            1,
            vec![
                server("kks-k-a-b-ccccc", Active, None, 9),
                server("kks-kk-a-ccccc", Active, None, 9),
            ],
            1,
            (0, 0, 0),
        ),
    ];
    for (i, (size, servers, create, (running, healthy, schedulable))) in
        cases.into_iter().enumerate()
    {
        let p = plan(&kluster(&[("a", size)]), &servers);
        let info = &p.pools[0];
        assert_eq!(
            (info.running, info.healthy, info.schedulable),
            (running, healthy, schedulable),
            "case {i}"
        );
        let want: Vec<(usize, i64)> = if create > 0 {
            vec![(0, create)]
        } else {
            vec![]
        };
        assert_eq!(p.create, want, "case {i}");
    }
}

#[test]
fn scale_down_takes_unregistered_then_cordoned_then_youngest() {
    let servers = vec![
        server("kks-k-a-ready", Active, Some((true, false)), 100),
        server("kks-k-a-young", Active, Some((true, false)), 10),
        server("kks-k-a-cordn", Active, Some((true, true)), 50),
        server("kks-k-a-nonod", Active, None, 60),
        server("kks-k-a-build", Build, None, 1),
    ];
    let order = |size| -> Vec<String> {
        plan(&kluster(&[("a", size)]), &servers)
            .delete
            .into_iter()
            .map(|r| r.name)
            .collect()
    };
    assert_eq!(order(4), ["kks-k-a-build"]);
    assert_eq!(
        order(2),
        ["kks-k-a-build", "kks-k-a-nonod", "kks-k-a-cordn"]
    );
    assert_eq!(
        order(0),
        [
            "kks-k-a-build",
            "kks-k-a-nonod",
            "kks-k-a-cordn",
            "kks-k-a-young",
            "kks-k-a-ready"
        ]
    );
}

#[test]
fn servers_of_removed_pools_go() {
    let servers = vec![
        server("kks-k-a-aaaaa", Active, None, 1),
        server("kks-k-gone-bbbbb", Active, None, 1),
        server("kks-k-gone-ccccc", Deleting, None, 1),
    ];
    let p = plan(&kluster(&[("a", 1)]), &servers);
    assert_eq!(
        p.delete,
        vec![Removal {
            id: "id-kks-k-gone-bbbbb".into(),
            name: "kks-k-gone-bbbbb".into(),
            pool: None,
            active: true,
        }]
    );
}

#[test]
fn an_empty_listing_for_pools_that_had_servers_is_confirmed_first() {
    let mut k = kluster(&[("a", 2)]);
    k.status.phase = kluster::KlusterPhase::Running;
    assert!(!needs_confirmation(&[&k], &[]), "nothing recorded yet");
    k.status.node_pools = vec![NodePoolInfo {
        name: "a".into(),
        size: 2,
        running: 2,
        ..Default::default()
    }];
    assert!(needs_confirmation(&[&k], &[]));
    let deleting = [server("kks-k-a-aaaaa", Deleting, None, 1)];
    assert!(needs_confirmation(&[&k], &deleting));
    let one = [server("kks-k-a-aaaaa", Active, None, 1)];
    assert!(!needs_confirmation(&[&k], &one));
    k.status.phase = kluster::KlusterPhase::Terminating;
    assert!(
        !needs_confirmation(&[&k], &[]),
        "deorbit removes the servers of terminating klusters on purpose"
    );
}

#[test]
fn unknown_nodes_are_never_counted_healthy_and_booting_then_youngest_go_first() {
    use crate::cloud::NodeSource;
    let servers = vec![
        server("kks-k-a-aaaaa", Active, None, 30),
        server("kks-k-a-bbbbb", Active, None, 10),
        server("kks-k-a-ccccc", Build, None, 20),
    ];
    let p = plan_with(&kluster(&[("a", 2)]), &servers, NodeSource::Unknown);
    let info = &p.pools[0];
    assert_eq!((info.running, info.healthy, info.schedulable), (2, 0, 0));
    assert!(info.health_unknown);
    let gone: Vec<&str> = p.delete.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        gone,
        ["kks-k-a-ccccc"],
        "a booting server goes before any node"
    );
    let up: Vec<Server> = servers
        .iter()
        .filter(|s| s.status == Active)
        .cloned()
        .collect();
    let p = plan_with(&kluster(&[("a", 1)]), &up, NodeSource::Unknown);
    let gone: Vec<&str> = p.delete.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(gone, ["kks-k-a-bbbbb"], "then the youngest");
    let known = plan(&kluster(&[("a", 2)]), &servers);
    assert!(!known.pools[0].health_unknown);
}

#[test]
fn user_data_is_cloud_config_naming_the_kluster_and_pool() {
    let owner = crate::cloud::Owner {
        name: "k1",
        uid: "0b6f6a52-1c3e-4d6a-9f00-1234567890ab",
    };
    let data = super::execute::user_data(&owner, "small");
    assert!(data.starts_with("#cloud-config\n"));
    assert!(data.contains("    KLUSTER=k1\n") && data.contains("    NODE_POOL=small\n"));
    let cluster = "    CLUSTER_NAME=k1-0b6f6a52-1c3e-4d6a-9f00-1234567890ab\n";
    assert!(data.contains(cluster), "{data}");
}
