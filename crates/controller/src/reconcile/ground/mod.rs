//! The ground reconciler's decision: a pure function of (kluster, what the cloud shows,
//! how long the kluster has been in its phase) to a plan. Kubernikus's groundctl moves a
//! kluster Pending → Creating → Running and Running → Upgrading → Running on a version
//! change; each phase change is a Normal event named after the phase. A kluster that does not
//! reach Running within the creation timeout gets a Warning and an error message in its
//! status. Terminating klusters belong to [`super::deorbit`]. [`reconcile`] applies the plan.

use std::time::Duration;

use kluster::{EventDetail, EventReason, Kluster, KlusterPhase, Router};

pub use super::ctx::{human, Timing};
use super::ctx::{Ctx, Observed, Outcome};
use crate::store::StoreError;

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Record the OpenStack ids discovered for the kluster.
    SetOpenstack {
        /// Router id.
        router_id: String,
        /// Network id.
        network_id: String,
        /// Load-balancer subnet id.
        lb_subnet_id: String,
    },
    /// Move to a phase (the executor records a Normal event named after it).
    SetPhase(KlusterPhase),
    /// The control plane now runs this version.
    SetVersion(String),
    /// A Warning event, the kluster staying where it is.
    Warn {
        /// Stable reason, e.g. `ConfigurationError`.
        reason: EventReason,
        /// Typed detail for advice, e.g. `SeveralRouters`.
        detail: Option<EventDetail>,
        /// What the user should know.
        message: String,
    },
    /// Set (or, with an empty string, clear) the status message.
    SetMessage(String),
}

/// What to do with `k`, created `age` ago and in its phase for `in_phase`; `routers` are
/// the routers the kluster's project sees (`None`: the cloud did not say). An empty plan
/// means: nothing to do now.
pub fn plan(
    k: &Kluster,
    routers: Option<&[Router]>,
    in_phase: Duration,
    age: Duration,
    t: Timing,
) -> Vec<Step> {
    let creating = matches!(
        k.status.phase,
        KlusterPhase::Pending | KlusterPhase::Creating
    );
    if creating && age >= t.creation_timeout && k.status.message.is_empty() {
        let message = format!(
            "Kluster {} is not running after {} (still {}): see the warnings before this one",
            k.name,
            human(t.creation_timeout),
            k.status.phase.as_str()
        );
        return vec![
            Step::Warn {
                reason: EventReason::FailedCreate,
                detail: None,
                message: message.clone(),
            },
            Step::SetMessage(message),
        ];
    }
    match k.status.phase {
        KlusterPhase::Pending => routers.map(|r| pending(k, r)).unwrap_or_default(),
        KlusterPhase::Creating if in_phase >= t.create => {
            vec![
                Step::SetVersion(k.spec.version.clone()),
                Step::SetMessage(String::new()),
                Step::SetPhase(KlusterPhase::Running),
            ]
        }
        KlusterPhase::Running
            if !k.spec.version.is_empty() && k.spec.version != k.status.version =>
        {
            vec![Step::SetPhase(KlusterPhase::Upgrading)]
        }
        KlusterPhase::Upgrading if in_phase >= t.upgrade => {
            vec![
                Step::SetVersion(k.spec.version.clone()),
                Step::SetPhase(KlusterPhase::Running),
            ]
        }
        _ => Vec::new(),
    }
}

/// Pending: resolve the router, network and LB subnet when exactly one candidate exists
/// (ids given in the spec are kept), then start creating.
fn pending(k: &Kluster, routers: &[Router]) -> Vec<Step> {
    let os = &k.spec.openstack;
    if k.spec.no_cloud
        || (!os.router_id.is_empty() && !os.network_id.is_empty() && !os.lb_subnet_id.is_empty())
    {
        return vec![Step::SetPhase(KlusterPhase::Creating)];
    }
    let candidates: Vec<&Router> = routers
        .iter()
        .filter(|r| os.router_id.is_empty() || r.id == os.router_id)
        .collect();
    let warn_with = |detail: Option<EventDetail>, message: String| {
        vec![Step::Warn {
            reason: EventReason::ConfigurationError,
            detail,
            message,
        }]
    };
    let warn = |message: String| warn_with(None, message);
    let router = match candidates.as_slice() {
        [one] => *one,
        [] if !os.router_id.is_empty() => {
            return warn(format!("router {} not found", os.router_id))
        }
        [] => return warn("found no router: create one or set spec.openstack.routerID".into()),
        many => {
            return warn_with(
                Some(EventDetail::SeveralRouters),
                format!(
                    "found {} routers: choose one in spec.openstack.routerID (Advanced → Router)",
                    many.len()
                ),
            )
        }
    };
    let networks: Vec<_> = router
        .networks
        .iter()
        .filter(|n| os.network_id.is_empty() || n.id == os.network_id)
        .collect();
    let [network] = networks.as_slice() else {
        return warn(format!(
            "found {} networks on router {}: set spec.openstack.networkID",
            networks.len(),
            router.name
        ));
    };
    let subnets: Vec<_> = network
        .subnets
        .iter()
        .filter(|s| os.lb_subnet_id.is_empty() || s.id == os.lb_subnet_id)
        .collect();
    let [subnet] = subnets.as_slice() else {
        return warn(format!(
            "found {} subnets in network {}: set spec.openstack.lbSubnetID",
            subnets.len(),
            network.name
        ));
    };
    vec![
        Step::SetOpenstack {
            router_id: router.id.clone(),
            network_id: network.id.clone(),
            lb_subnet_id: subnet.id.clone(),
        },
        Step::SetPhase(KlusterPhase::Creating),
    ]
}

/// Ground's executor for one kluster: applies its plan to `k` (phases, version, message,
/// OpenStack ids) and records the phase events and warnings.
pub async fn reconcile(
    k: &mut Kluster,
    o: &Observed<'_>,
    ctx: &Ctx<'_>,
) -> Result<Outcome, StoreError> {
    let name = k.name.clone();
    let mut steps = plan(
        k,
        o.cloud.routers.as_deref(),
        o.stored.in_phase,
        o.stored.age,
        ctx.timing(),
    );
    // A kluster's own OpenStack user is made before it starts creating.
    if steps.contains(&Step::SetPhase(KlusterPhase::Creating)) && !k.spec.no_cloud {
        if let Err(e) = super::users::ensure(k, ctx).await? {
            let message = format!("Could not make the kluster's OpenStack user: {e}");
            ctx.warn(k, EventReason::ConfigurationError, &message)
                .await?;
            steps.retain(|s| *s != Step::SetPhase(KlusterPhase::Creating));
        }
    }
    for step in steps {
        match step {
            Step::SetOpenstack {
                router_id,
                network_id,
                lb_subnet_id,
            } => {
                let os = &mut k.spec.openstack;
                (os.router_id, os.network_id, os.lb_subnet_id) =
                    (router_id, network_id, lb_subnet_id);
            }
            Step::SetVersion(v) => {
                k.status.apiserver_version = v.clone();
                k.status.version = v;
            }
            Step::SetMessage(m) => k.status.message = m,
            Step::SetPhase(p) => {
                k.status.phase = p;
                let message = format!("Kluster {name} is {}", p.as_str().to_lowercase());
                ctx.normal(k, p.reason(), &message).await?;
            }
            Step::Warn {
                reason,
                detail,
                message,
            } => ctx.warn_with(k, reason, detail, &message).await?,
        }
    }
    Ok(Outcome::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kluster::{Network, Subnet};

    const T: Timing = Timing {
        create: Duration::from_secs(10),
        upgrade: Duration::from_secs(5),
        creation_timeout: Duration::from_secs(100),
        register_timeout: Duration::from_secs(100),
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
}
