//! The deorbit reconciler's decision (Kubernikus's deorbiter): a Terminating kluster first
//! has what its workloads created in the cloud demolished (volumes, load balancers,
//! routes), then its nodes, and only then is it removed. Waiting is reported with
//! `WaitingForDeorbit<Kind>` events and completion with `SuccessfulDeorbit<Kind>`.

use std::collections::{BTreeSet, HashMap};

use kluster::{EventReason, Kluster};

use super::context::{Ctx, KlusterView, Outcome};
use super::next::Next;
use crate::cloud::{CloudError, Resource, ResourceKind, Server, ServerStatus};
use crate::store::StoreError;

/// One step of tearing a kluster down.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Ask the cloud to delete a resource.
    DeleteResource {
        /// Resource id.
        id: String,
        /// Its name, for the log.
        name: String,
    },
    /// Ask the cloud to delete a server.
    DeleteServer {
        /// Server id.
        id: String,
        /// Its name, for the event.
        name: String,
    },
    /// A Normal event.
    Event {
        /// e.g. `WaitingForDeorbitVolumes`.
        reason: EventReason,
        /// What is happening.
        message: String,
    },
    /// Nothing is left: remove the kluster.
    Remove,
}

/// The reason while waiting for a kind to go.
pub fn waiting(kind: ResourceKind) -> EventReason {
    match kind {
        ResourceKind::Volume => EventReason::WaitingForDeorbitVolumes,
        ResourceKind::LoadBalancer => EventReason::WaitingForDeorbitLoadBalancers,
        ResourceKind::Route => EventReason::WaitingForDeorbitRoutes,
    }
}

/// The reason once a kind is gone.
pub fn finished(kind: ResourceKind) -> EventReason {
    match kind {
        ResourceKind::Volume => EventReason::SuccessfulDeorbitVolumes,
        ResourceKind::LoadBalancer => EventReason::SuccessfulDeorbitLoadBalancers,
        ResourceKind::Route => EventReason::SuccessfulDeorbitRoutes,
    }
}

/// The plan for kluster `name`, given its resources and servers and the kinds it has been
/// seen waiting for without a success yet (read back from its events).
pub fn plan(
    name: &str,
    resources: &[&Resource],
    servers: &[&Server],
    waited: &BTreeSet<ResourceKind>,
) -> Vec<Step> {
    let mut steps = Vec::new();
    let present: BTreeSet<ResourceKind> = resources.iter().map(|r| r.kind).collect();
    for kind in waited.difference(&present) {
        steps.push(Step::Event {
            reason: finished(*kind),
            message: format!("All {} of kluster {name} are deleted", noun(*kind)),
        });
    }
    if !present.is_empty() {
        for r in resources.iter().filter(|r| !r.deleting) {
            steps.push(Step::DeleteResource {
                id: r.id.clone(),
                name: r.name.clone(),
            });
        }
        for kind in &present {
            let n = resources.iter().filter(|r| r.kind == *kind).count();
            steps.push(Step::Event {
                reason: waiting(*kind),
                message: format!(
                    "Waiting for {n} {} of kluster {name} to be deleted",
                    noun(*kind)
                ),
            });
        }
        return steps;
    }
    if !servers.is_empty() {
        for s in servers
            .iter()
            .filter(|s| s.status != ServerStatus::Deleting)
        {
            steps.push(Step::DeleteServer {
                id: s.id.clone(),
                name: s.name.clone(),
            });
        }
        steps.push(Step::Event {
            reason: EventReason::WaitingForDeorbitNodes,
            message: format!(
                "Waiting for {} nodes of kluster {name} to be deleted",
                servers.len()
            ),
        });
        return steps;
    }
    steps.push(Step::Event {
        reason: EventReason::SuccessfulDeorbit,
        message: format!("Kluster {name} left nothing behind in the cloud"),
    });
    steps.push(Step::Remove);
    steps
}

const KINDS: [ResourceKind; 3] = [
    ResourceKind::Volume,
    ResourceKind::LoadBalancer,
    ResourceKind::Route,
];

/// The kind an event reason says deorbit waited for.
pub fn waited_kind(reason: &EventReason) -> Option<ResourceKind> {
    KINDS.into_iter().find(|k| waiting(*k) == *reason)
}

/// The kind a success reason says is gone.
pub fn finished_kind(reason: &EventReason) -> Option<ResourceKind> {
    KINDS.into_iter().find(|k| finished(*k) == *reason)
}

fn noun(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Volume => "volumes",
        ResourceKind::LoadBalancer => "load balancers",
        ResourceKind::Route => "routes",
    }
}

/// Deorbit's executor for one terminating kluster: the next tear-down steps, with the kinds
/// it waited for read back from its events; the outcome says `removed` once nothing is left
/// (the caller then removes the kluster).
pub async fn reconcile(
    k: &mut Kluster,
    o: &KlusterView<'_>,
    ctx: &Ctx<'_>,
) -> Result<Outcome, StoreError> {
    let mut out = Outcome::default();
    let (Some(servers), Some(resources)) =
        (o.cloud.servers.as_deref(), o.cloud.resources.as_deref())
    else {
        return Ok(out);
    };
    let (project, name) = (ctx.project, k.name.as_str());
    let mine: Vec<&Resource> = resources.iter().filter(|r| r.kluster == name).collect();
    let nodes = super::launch::of_kluster(servers, name);
    let mut waited = BTreeSet::new();
    let uid = k.metadata.as_ref().map(|m| m.uid.as_str());
    for e in ctx.store().events(project, name, uid).await? {
        let reason = e.event_reason();
        if let Some(kind) = waited_kind(&reason) {
            waited.insert(kind);
        }
        if let Some(kind) = finished_kind(&reason) {
            waited.remove(&kind);
        }
    }
    let steps = plan(name, &mine, &nodes, &waited);
    // Until it is removed, what it waits for is looked at again soon.
    out.next = Next::soon();
    // Nothing else is left: the kluster's own user goes last (its servers needed it).
    if steps.contains(&Step::Remove) {
        if let Err(e) = super::users::remove(k, ctx).await? {
            let message = format!("Failed to delete the kluster's OpenStack user: {e}");
            ctx.warn(k, EventReason::FailedDeorbit, &message).await?;
            out.next = Next::backoff();
            return Ok(out);
        }
    }
    // The plan's deletes go out together; events follow in plan order.
    let mut at = Vec::new();
    let mut deletes = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        deletes.push(match step {
            Step::DeleteResource { id, .. } => ctx.cloud().delete_resource(project, id),
            Step::DeleteServer { id, .. } => ctx.cloud().delete_server(project, id),
            _ => continue,
        });
        at.push(i);
    }
    let attempted = deletes.len();
    let mut done: HashMap<usize, Result<(), CloudError>> =
        at.into_iter().zip(ctx.calls(deletes).await).collect();
    let failed = done.values().filter(|r| r.is_err()).count();
    // Every delete refused and nothing on its way out: the cloud is not working on it, so
    // the next look backs off instead of retrying (and warning) every few seconds.
    let in_flight =
        mine.iter().any(|r| r.deleting) || nodes.iter().any(|s| s.status == ServerStatus::Deleting);
    if attempted > 0 && failed == attempted && !in_flight {
        out.next = Next::backoff();
    }
    for (i, step) in steps.into_iter().enumerate() {
        let result = done.remove(&i).unwrap_or(Ok(()));
        match step {
            Step::DeleteResource { name: what, .. } => match result {
                Ok(()) => {
                    out.deleted += 1;
                    tracing::info!(
                        controller = "deorbit",
                        kluster = name,
                        project,
                        resource = what,
                        "deleting"
                    );
                }
                Err(e) => {
                    let message = format!("Failed to delete {what}: {e}");
                    ctx.warn(k, EventReason::FailedDeorbit, &message).await?;
                }
            },
            Step::DeleteServer { id, name: node } => match result {
                Ok(()) => {
                    out.deleted += 1;
                    // Forgotten now, so later passes do not look it up by id.
                    out.dropped.insert(id);
                    let message = format!("Successfully deleted node {node}");
                    ctx.normal(k, EventReason::SuccessfulDeleteNode, &message)
                        .await?;
                }
                Err(e) => {
                    let message = format!("Failed to delete node {node}: {e}");
                    ctx.warn(k, EventReason::FailedDeleteNode, &message).await?;
                }
            },
            Step::Event { reason, message } => ctx.normal(k, reason, &message).await?,
            Step::Remove => {
                out.removed = true;
                out.next = Next::change();
                break;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn res(id: &str, kind: ResourceKind, deleting: bool) -> Resource {
        Resource {
            id: id.into(),
            kluster: "k".into(),
            kind,
            name: id.into(),
            deleting,
        }
    }

    fn server(id: &str, status: ServerStatus) -> Server {
        Server {
            id: id.into(),
            name: id.into(),
            kluster: "k".into(),
            status,
            node: None,
            age: Duration::ZERO,
        }
    }

    fn reasons(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .map(|s| match s {
                Step::DeleteResource { id, .. } => format!("delete {id}"),
                Step::DeleteServer { id, .. } => format!("delete server {id}"),
                Step::Event { reason, .. } => reason.to_string(),
                Step::Remove => "remove".into(),
            })
            .collect()
    }

    #[test]
    fn resources_first_then_nodes_then_the_kluster() {
        use ResourceKind::*;
        let vol = res("v", Volume, false);
        let lb = res("lb", LoadBalancer, true);
        let node = server("n", ServerStatus::Active);
        let gone_node = server("g", ServerStatus::Deleting);
        let none = BTreeSet::new();
        assert_eq!(
            reasons(&plan("k", &[&vol, &lb], &[&node], &none)),
            [
                "delete v",
                "WaitingForDeorbitVolumes",
                "WaitingForDeorbitLoadBalancers"
            ],
            "resources first; the load balancer is already being deleted; nodes wait"
        );
        let waited = BTreeSet::from([Volume, LoadBalancer]);
        assert_eq!(
            reasons(&plan("k", &[&lb], &[&node], &waited)),
            ["SuccessfulDeorbitVolumes", "WaitingForDeorbitLoadBalancers"]
        );
        assert_eq!(
            reasons(&plan(
                "k",
                &[],
                &[&node, &gone_node],
                &BTreeSet::from([LoadBalancer])
            )),
            [
                "SuccessfulDeorbitLoadBalancers",
                "delete server n",
                "WaitingForDeorbitNodes"
            ]
        );
        assert_eq!(
            reasons(&plan("k", &[], &[], &none)),
            ["SuccessfulDeorbit", "remove"]
        );
        let reason = EventReason::parse;
        assert_eq!(waited_kind(&reason("WaitingForDeorbitRoutes")), Some(Route));
        assert_eq!(
            finished_kind(&reason("SuccessfulDeorbitVolumes")),
            Some(Volume)
        );
        assert_eq!(waited_kind(&reason("WaitingForDeorbitNodes")), None);
    }
}
