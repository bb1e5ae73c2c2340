//! Ground's plan and its wish for the next pass.

use super::*;
use kluster::{Network, Subnet};

const T: Timing = Timing {
    create: Duration::from_secs(10),
    upgrade: Duration::from_secs(5),
    creation_timeout: Duration::from_secs(100),
    register_timeout: Duration::from_secs(100),
    create_retry: Duration::from_secs(1),
    create_retry_cap: Duration::from_secs(4),
};

fn router(id: &str, subnets: &[&str]) -> Router {
    Router {
        name: id.into(),
        id: id.into(),
        external_network_id: "ext".into(),
        networks: vec![Network {
            name: "n".into(),
            id: format!("net-{id}"),
            subnets: subnets
                .iter()
                .map(|s| Subnet {
                    name: (*s).into(),
                    id: (*s).into(),
                    cidr: "10.0.0.0/24".into(),
                })
                .collect(),
        }],
    }
}

fn kluster(phase: KlusterPhase, spec_version: &str, running: &str) -> Kluster {
    let mut k = Kluster {
        name: "k".into(),
        ..Default::default()
    };
    k.status.phase = phase;
    k.spec.version = spec_version.into();
    k.status.version = running.into();
    k
}

#[test]
fn plans_follow_the_phase_table() {
    use KlusterPhase::*;
    let one = [router("r1", &["s1"])];
    let s = |secs| Duration::from_secs(secs);
    let cases: Vec<(Kluster, &[Router], Duration, Vec<Step>)> = vec![
        (
            kluster(Pending, "1.32.4", ""),
            &one,
            s(0),
            vec![
                Step::SetOpenstack {
                    router_id: "r1".into(),
                    network_id: "net-r1".into(),
                    lb_subnet_id: "s1".into(),
                },
                Step::SetPhase(Creating),
            ],
        ),
        (kluster(Creating, "1.32.4", ""), &one, s(9), vec![]),
        (
            kluster(Creating, "1.32.4", ""),
            &one,
            s(10),
            vec![
                Step::SetVersion("1.32.4".into()),
                Step::SetMessage(String::new()),
                Step::SetPhase(Running),
            ],
        ),
        (kluster(Running, "1.32.4", "1.32.4"), &one, s(999), vec![]),
        (
            kluster(Running, "1.33.0", "1.32.4"),
            &one,
            s(0),
            vec![Step::SetPhase(Upgrading)],
        ),
        (kluster(Upgrading, "1.33.0", "1.32.4"), &one, s(4), vec![]),
        (
            kluster(Upgrading, "1.33.0", "1.32.4"),
            &one,
            s(5),
            vec![Step::SetVersion("1.33.0".into()), Step::SetPhase(Running)],
        ),
        (
            kluster(Terminating, "1.32.4", "1.32.4"),
            &one,
            s(999),
            vec![],
        ),
    ];
    for (i, (k, routers, in_phase, want)) in cases.into_iter().enumerate() {
        assert_eq!(
            plan(&k, Some(routers), in_phase, in_phase, T),
            want,
            "case {i}"
        );
    }
}

#[test]
fn creation_that_takes_too_long_warns_once_with_a_message() {
    let mut k = kluster(KlusterPhase::Pending, "1.32.4", "");
    let p = plan(&k, Some(&[]), Duration::ZERO, Duration::from_secs(100), T);
    assert!(
        matches!(&p[..], [Step::Warn { reason: EventReason::FailedCreate, .. }, Step::SetMessage(m)] if m.contains("not running after 100 seconds (still Pending)")),
        "{p:?}"
    );
    k.status.message = "already said".into();
    let p = plan(&k, Some(&[]), Duration::ZERO, Duration::from_secs(100), T);
    assert!(
        matches!(
            &p[..],
            [Step::Warn {
                reason: EventReason::ConfigurationError,
                ..
            }]
        ),
        "once said, the timeout is not repeated: {p:?}"
    );
    let running = kluster(KlusterPhase::Running, "1.32.4", "1.32.4");
    assert!(plan(
        &running,
        Some(&[]),
        Duration::ZERO,
        Duration::from_secs(999),
        T
    )
    .is_empty());
}

#[test]
fn ambiguous_or_missing_routers_are_configuration_errors_and_stay_pending() {
    let k = kluster(KlusterPhase::Pending, "1.32.4", "");
    let two = [router("r1", &["s1"]), router("r2", &["s2"])];
    let p = plan(&k, Some(&two), Duration::ZERO, Duration::ZERO, T);
    assert!(
        matches!(&p[..], [Step::Warn { reason: EventReason::ConfigurationError, detail: Some(EventDetail::SeveralRouters), message }] if message.starts_with("found 2 routers")),
        "{p:?}"
    );
    assert!(matches!(
        &plan(&k, Some(&[]), Duration::ZERO, Duration::ZERO, T)[..],
        [Step::Warn { detail: None, .. }]
    ));
    // Naming the router resolves the ambiguity.
    let mut chosen = k.clone();
    chosen.spec.openstack.router_id = "r2".into();
    assert_eq!(
        plan(&chosen, Some(&two), Duration::ZERO, Duration::ZERO, T)[0],
        Step::SetOpenstack {
            router_id: "r2".into(),
            network_id: "net-r2".into(),
            lb_subnet_id: "s2".into()
        }
    );
    let two_subnets = [router("r1", &["s1", "s2"])];
    assert!(
        matches!(&plan(&k, Some(&two_subnets), Duration::ZERO, Duration::ZERO, T)[..], [Step::Warn { message, .. }] if message.contains("2 subnets"))
    );
}

#[test]
fn ground_asks_again_at_the_end_of_its_phase_and_at_the_creation_timeout() {
    let now = Instant::now();
    let s = Duration::from_secs;
    let at = |k: &Kluster, in_phase: u64, age: u64| next(k, s(in_phase), s(age), T, now);
    let creating = kluster(KlusterPhase::Creating, "1.32.4", "");
    assert_eq!(
        at(&creating, 3, 3),
        Next::at(now + s(7)),
        "create takes 10 s"
    );
    // Past the creation timeout (100 s) it is not asked for again once it warned.
    assert_eq!(at(&creating, 0, 95), Next::at(now + s(5)));
    let mut warned = creating.clone();
    warned.status.message = "not running after 100 seconds".into();
    assert_eq!(at(&warned, 0, 95), Next::at(now + s(10)));
    let upgrading = kluster(KlusterPhase::Upgrading, "1.33.1", "1.32.4");
    assert_eq!(at(&upgrading, 1, 500), Next::at(now + s(4)));
    let running = kluster(KlusterPhase::Running, "1.32.4", "1.32.4");
    assert_eq!(at(&running, 1, 500), Next::change());
    let pending = kluster(KlusterPhase::Pending, "1.32.4", "");
    assert!(
        at(&pending, 1, 1).backoff,
        "waiting for the cloud or the user"
    );
}
