//! The deorbit reconciler (Kubernikus's deorbiter): a Terminating kluster has its nodes,
//! load balancers and routes deleted, then its volumes ([`plan`] says why in that order),
//! and only then is it removed. Waiting is reported with `WaitingForDeorbit<Kind>` events
//! and completion with `SuccessfulDeorbit<Kind>`. The nodes the store knows are deleted as
//! the pass begins ([`send_first`]), without waiting for the cloud's listings (when the
//! project has only deleted klusters, before its servers are listed: `super::delete_first`).

mod early;
mod plan;

use std::collections::{BTreeSet, HashMap};

use kluster::{EventReason, Kluster, KlusterPhase};

use super::context::{Ctx, KlusterView, Outcome};
pub use super::early_deletes::{EarlyDeletes, Sent};
use super::next::Next;
use crate::cloud::{CloudError, Resource, Server, ServerStatus};
use crate::store::{self, StoreError};
pub use plan::{finished, finished_kind, plan, waited_kind, waiting, Step};

/// Sends the deletes of the servers the store knows of the project's Terminating klusters,
/// with the pass's listings (or before the servers' listing: `super::delete_first`) rather than
/// after them: nodes go first ([`plan`]) and the store's ids need no listing. A deleted
/// server leaves the store's record in the same pass, so it is sent once (again only when
/// that pass stopped before the kluster: a lease lost, the budget spent; deleting a server
/// that is going is harmless). Deletes already sent aside ([`EarlyDeletes`]) are not sent again:
/// their answers are taken. None is sent once the reconcile lease is not held.
pub async fn send_first(group: &[store::Observed], ctx: &Ctx<'_>) -> Sent {
    let terminating: Vec<&store::Observed> = group
        .iter()
        .filter(|o| o.stored.kluster.status.phase == KlusterPhase::Terminating)
        .collect();
    let names = terminating.iter().map(|o| o.stored.kluster.name.as_str());
    let mut aside = ctx.early_deletes.take(ctx.project, names);
    let mut sent = Sent::new();
    let mut targets = Vec::new();
    for o in terminating {
        let name = o.stored.kluster.name.as_str();
        // An answer taken from aside counts only for a server the store still knows.
        let mut answered = aside.remove(name).unwrap_or_default();
        answered.retain(|(id, _)| o.servers.contains(id));
        for id in &o.servers {
            if !answered.iter().any(|(sent_id, _)| sent_id == id) {
                targets.push((name, id.as_str()));
            }
        }
        if !answered.is_empty() {
            sent.insert(name.to_string(), answered);
        }
    }
    for (kluster, answer) in send(&targets, ctx).await {
        sent.entry(kluster).or_default().push(answer);
    }
    sent
}

/// Sends the deletes of `targets` (kluster, server id) together; each with the cloud's
/// answer. None is sent once the reconcile lease is not held.
async fn send(
    targets: &[(&str, &str)],
    ctx: &Ctx<'_>,
) -> Vec<(String, (String, Result<(), CloudError>))> {
    let lost = || ctx.lease.is_some_and(|l| !l.valid());
    if targets.is_empty() || lost() {
        return Vec::new();
    }
    let calls = targets
        .iter()
        .map(|(_, id)| async move {
            if lost() {
                return Err(CloudError::new("the reconcile lease is not held any more"));
            }
            ctx.cloud().delete_server(ctx.project, id).await
        })
        .collect();
    let answers = ctx.calls(calls).await;
    targets
        .iter()
        .zip(answers)
        .map(|((kluster, id), r)| (kluster.to_string(), (id.to_string(), r)))
        .collect()
}

/// Kluster `k` only waits for its nodes to go (`Seen::waiting_for_nodes`): says so, and
/// looks again soon ([`Next::going`]).
pub async fn wait_for_nodes(
    k: &Kluster,
    servers: &[Server],
    ctx: &Ctx<'_>,
) -> Result<Outcome, StoreError> {
    let n = super::launch::of_kluster(servers, &k.name).len();
    let message = plan::nodes_waiting(&k.name, n);
    ctx.normal(k, EventReason::WaitingForDeorbitNodes, &message)
        .await?;
    Ok(Outcome {
        next: Next::going(),
        ..Outcome::default()
    })
}

/// Records what the deletes [`send_first`] sent for kluster `k` came to: an event each, and
/// the deleted ids in `out.dropped` (named from `nodes` where listed). How many failed.
pub async fn report_sent(
    k: &Kluster,
    o: &KlusterView<'_>,
    nodes: &[&Server],
    ctx: &Ctx<'_>,
    out: &mut Outcome,
) -> Result<usize, StoreError> {
    let mut failed = 0;
    for (id, result) in o.sent {
        let node = nodes
            .iter()
            .find(|s| &s.id == id)
            .map_or(id.as_str(), |s| s.name.as_str());
        if !ctx.node_deleted(k, id, node, result, out).await? {
            failed += 1;
        }
    }
    Ok(failed)
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
    let sent_failed = report_sent(k, o, &nodes, ctx, &mut out).await?;
    let sent: BTreeSet<&str> = o.sent.iter().map(|(id, _)| id.as_str()).collect();
    let steps = plan(name, &mine, &nodes, &waited, &sent);
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
    let attempted = deletes.len() + o.sent.len();
    let mut done: HashMap<usize, Result<(), CloudError>> =
        at.into_iter().zip(ctx.calls(deletes).await).collect();
    let failed = done.values().filter(|r| r.is_err()).count() + sent_failed;
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
            Step::DeleteServer { id, name: node } => {
                ctx.node_deleted(k, &id, &node, &result, &mut out).await?;
            }
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
