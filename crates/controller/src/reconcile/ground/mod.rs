//! The ground reconciler's decision: a pure function of (kluster, what the cloud shows,
//! how long the kluster has been in its phase) to a plan. Kubernikus's groundctl moves a
//! kluster Pending → Creating → Running and Running → Upgrading → Running on a version
//! change; each phase change is a Normal event named after the phase. A kluster that does not
//! reach Running within the creation timeout gets a Warning and an error message in its
//! status. Terminating klusters belong to [`super::deorbit`]. [`reconcile`] applies the plan.

use std::time::Duration;

use kluster::{EventDetail, EventReason, Kluster, KlusterPhase, Router};

pub use super::context::{human, Timing};
use super::context::{Ctx, KlusterView, Outcome};
use super::next::Next;
use crate::store::StoreError;
use tokio::time::Instant;

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
    o: &KlusterView<'_>,
    ctx: &Ctx<'_>,
) -> Result<Outcome, StoreError> {
    let name = k.name.clone();
    let started = k.status.phase;
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
    let in_phase = (k.status.phase == started).then_some(o.stored.in_phase);
    let now = tokio::time::Instant::now();
    Ok(Outcome {
        next: next(
            k,
            in_phase.unwrap_or_default(),
            o.stored.age,
            ctx.timing(),
            now,
        ),
        ..Outcome::default()
    })
}

/// When ground wants `k` again, `in_phase` long in its phase and `age` old at `now`: at
/// the end of Creating or Upgrading and at the creation timeout; Pending (waiting for the
/// cloud's routers or for the user to fix the spec) after a growing delay.
pub fn next(k: &Kluster, in_phase: Duration, age: Duration, t: Timing, now: Instant) -> Next {
    let left = |d: Duration| Next::at(now + d.saturating_sub(in_phase));
    let wish = match k.status.phase {
        KlusterPhase::Pending => Next::backoff(),
        KlusterPhase::Creating => left(t.create),
        KlusterPhase::Upgrading => left(t.upgrade),
        _ => Next::change(),
    };
    let creating = matches!(
        k.status.phase,
        KlusterPhase::Pending | KlusterPhase::Creating
    );
    match creating && k.status.message.is_empty() {
        true => wish.and(Next::at(now + t.creation_timeout.saturating_sub(age))),
        false => wish,
    }
}

#[cfg(test)]
mod tests;
