//! Deorbit's decision, without I/O: what to delete next of a terminating kluster, and which
//! events say so. Nodes go first, with the load balancers and routes; volumes follow once
//! the nodes are gone (Cinder refuses to delete a volume still attached to a server, and
//! Nova detaches it when the server goes). Kubernikus deletes volumes first because it
//! deletes them through the kluster's Kubernetes API, whose drivers need the nodes; this
//! controller deletes them in the cloud directly. A route is the kluster's by its pod range
//! on its router, which outlives the nodes (`cloud::PodRange`; klusters with a router and
//! a pod range, which every kluster with nodes has), or via a node of it still listed.

use std::collections::BTreeSet;

use kluster::EventReason;

use crate::cloud::{Resource, ResourceKind, Server, ServerStatus};

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
        ResourceKind::FloatingIp => EventReason::WaitingForDeorbitFloatingIPs,
        ResourceKind::SecurityGroup => EventReason::WaitingForDeorbitSecurityGroups,
    }
}

/// The reason once a kind is gone.
pub fn finished(kind: ResourceKind) -> EventReason {
    match kind {
        ResourceKind::Volume => EventReason::SuccessfulDeorbitVolumes,
        ResourceKind::LoadBalancer => EventReason::SuccessfulDeorbitLoadBalancers,
        ResourceKind::Route => EventReason::SuccessfulDeorbitRoutes,
        ResourceKind::FloatingIp => EventReason::SuccessfulDeorbitFloatingIPs,
        ResourceKind::SecurityGroup => EventReason::SuccessfulDeorbitSecurityGroups,
    }
}

/// The plan for kluster `name`, given its resources and servers, the kinds it has been
/// seen waiting for without a success yet (read back from its events), and the servers
/// whose delete this pass already sent (`sent`: not sent again).
pub fn plan(
    name: &str,
    resources: &[&Resource],
    servers: &[&Server],
    waited: &BTreeSet<ResourceKind>,
    sent: &BTreeSet<&str>,
) -> Vec<Step> {
    let mut steps = Vec::new();
    let present: BTreeSet<ResourceKind> = resources.iter().map(|r| r.kind).collect();
    for kind in waited.difference(&present) {
        steps.push(Step::Event {
            reason: finished(*kind),
            message: format!("All {} of kluster {name} are deleted", noun(*kind)),
        });
    }
    if servers.is_empty() && present.is_empty() {
        steps.push(Step::Event {
            reason: EventReason::SuccessfulDeorbit,
            message: format!("Kluster {name} left nothing behind in the cloud"),
        });
        steps.push(Step::Remove);
        return steps;
    }
    // Volumes and the services' security groups wait while nodes are left: they may be
    // attached to them (Neutron refuses to delete a group a port still uses).
    let held = |kind: ResourceKind| {
        matches!(kind, ResourceKind::Volume | ResourceKind::SecurityGroup) && !servers.is_empty()
    };
    for s in servers {
        if s.status != ServerStatus::Deleting && !sent.contains(s.id.as_str()) {
            steps.push(Step::DeleteServer {
                id: s.id.clone(),
                name: s.name.clone(),
            });
        }
    }
    for r in resources.iter().filter(|r| !r.deleting && !held(r.kind)) {
        steps.push(Step::DeleteResource {
            id: r.id.clone(),
            name: r.name.clone(),
        });
    }
    if !servers.is_empty() {
        steps.push(Step::Event {
            reason: EventReason::WaitingForDeorbitNodes,
            message: nodes_waiting(name, servers.len()),
        });
    }
    for kind in present.iter().filter(|k| !held(**k)) {
        let n = resources.iter().filter(|r| r.kind == *kind).count();
        steps.push(Step::Event {
            reason: waiting(*kind),
            message: format!(
                "Waiting for {n} {} of kluster {name} to be deleted",
                noun(*kind)
            ),
        });
    }
    steps
}

/// The `WaitingForDeorbitNodes` message: kluster `name` waits for `n` nodes to go.
pub fn nodes_waiting(name: &str, n: usize) -> String {
    format!("Waiting for {n} nodes of kluster {name} to be deleted")
}

const KINDS: [ResourceKind; 5] = [
    ResourceKind::Volume,
    ResourceKind::LoadBalancer,
    ResourceKind::Route,
    ResourceKind::FloatingIp,
    ResourceKind::SecurityGroup,
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
        ResourceKind::FloatingIp => "floating IPs",
        ResourceKind::SecurityGroup => "security groups",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn res(id: &str, kind: ResourceKind, deleting: bool) -> Resource {
        Resource {
            id: id.into(),
            kluster: "k".into(),
            uid: None,
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
            uid: None,
            status,
            node: None,
            age: Duration::ZERO,
            fault: None,
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
    fn the_services_security_groups_wait_for_the_nodes_like_volumes() {
        let sg = res("sg", ResourceKind::SecurityGroup, false);
        let node = server("n", ServerStatus::Active);
        let (none, sent) = (BTreeSet::new(), BTreeSet::new());
        let with_node = reasons(&plan("k", &[&sg], &[&node], &none, &sent));
        assert!(
            !with_node.contains(&"delete sg".to_string()),
            "{with_node:?}"
        );
        let alone = reasons(&plan("k", &[&sg], &[], &none, &sent));
        assert!(alone.contains(&"delete sg".to_string()), "{alone:?}");
    }

    #[test]
    fn nodes_load_balancers_and_routes_first_then_volumes_then_the_kluster() {
        use ResourceKind::*;
        let vol = res("v", Volume, false);
        let lb = res("lb", LoadBalancer, true);
        let route = res("rt", Route, false);
        let node = server("n", ServerStatus::Active);
        let sent = server("s", ServerStatus::Active);
        let gone_node = server("g", ServerStatus::Deleting);
        let none = BTreeSet::new();
        assert_eq!(
            reasons(&plan(
                "k",
                &[&vol, &lb, &route],
                &[&node, &sent, &gone_node],
                &none,
                &BTreeSet::from(["s"])
            )),
            [
                "delete server n",
                "delete rt",
                "WaitingForDeorbitNodes",
                "WaitingForDeorbitLoadBalancers",
                "WaitingForDeorbitRoutes"
            ],
            "nodes (not the one already sent or going), routes and load balancers (this one \
             already going) together; the volume waits for the nodes"
        );
        let waited = BTreeSet::from([LoadBalancer, Route]);
        assert_eq!(
            reasons(&plan("k", &[&vol], &[], &waited, &BTreeSet::new())),
            [
                "SuccessfulDeorbitLoadBalancers",
                "SuccessfulDeorbitRoutes",
                "delete v",
                "WaitingForDeorbitVolumes"
            ],
            "the nodes are gone: the volume goes"
        );
        assert_eq!(
            reasons(&plan(
                "k",
                &[],
                &[],
                &BTreeSet::from([Volume]),
                &none_sent()
            )),
            ["SuccessfulDeorbitVolumes", "SuccessfulDeorbit", "remove"]
        );
        assert_eq!(
            reasons(&plan("k", &[], &[], &none, &none_sent())),
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

    fn none_sent() -> BTreeSet<&'static str> {
        BTreeSet::new()
    }
}
