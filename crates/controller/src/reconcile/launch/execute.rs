//! Launch's executor: applies the [`plan`](super::plan) to the cloud and records events.

use kluster::{EventDetail, EventReason, Kluster};

use super::plan_with;
use super::prefix;
use crate::cloud::{CloudErrorKind, ServerSpec};
use crate::reconcile::context::{Ctx, KlusterView, Outcome, CALLS_AT_ONCE};
use crate::reconcile::next::Next;
use crate::store::StoreError;

/// Launch's executor for one running kluster: deletes the servers its plan removes (not
/// those flight grounded), creates the missing ones, and writes the pools' status into `k`.
pub async fn reconcile(
    k: &mut Kluster,
    o: &KlusterView<'_>,
    ctx: &Ctx<'_>,
) -> Result<Outcome, StoreError> {
    let mut out = Outcome::default();
    let Some(servers) = o.cloud.servers.as_deref() else {
        return Ok(out);
    };
    let name = k.name.clone();
    let plan = plan_with(k, servers, ctx.cloud().node_source());
    let mut pools = plan.pools.clone();
    // Deletes go out together too; their events follow in plan order.
    let removals: Vec<_> = plan
        .delete
        .iter()
        .filter(|r| !o.grounded.contains(&r.id))
        .collect();
    let deletes = removals
        .iter()
        .map(|r| ctx.cloud().delete_server(ctx.project, &r.id))
        .collect();
    let deleted = ctx.calls(deletes).await;
    for (r, result) in removals.into_iter().zip(deleted) {
        if ctx
            .node_deleted(k, &r.id, &r.name, &result, &mut out)
            .await?
        {
            if let Some(info) = r.pool.and_then(|i| pools.get_mut(i)) {
                info.running -= 1;
            }
        }
    }
    // Servers are booted by the kluster's own user when the cloud makes one.
    let mut user = None;
    if !plan.create.is_empty() {
        match super::super::users::ensure(k, ctx).await? {
            Ok(u) => user = u,
            Err(e) => {
                out.refused += 1;
                let message = format!("Failed to create node: {e}");
                ctx.warn(k, EventReason::FailedCreateNode, &message).await?;
                k.status.node_pools = pools;
                out.next = Next::backoff();
                return Ok(out);
            }
        }
    }
    // The missing servers go out together, as a direct client would send them; results
    // are read back in order, so events keep the pools' order.
    let mut specs = Vec::new();
    for (i, count) in plan.create {
        let pool = &k.spec.node_pools[i];
        for _ in 0..count {
            specs.push((
                i,
                ServerSpec {
                    name: format!("{}{}", prefix(&name, &pool.name), suffix()),
                    kluster: name.clone(),
                    flavor: pool.flavor.clone(),
                    image: pool.image.clone(),
                    availability_zone: pool.availability_zone.clone(),
                    network_id: k.spec.openstack.network_id.clone(),
                    security_group: k.spec.openstack.security_group_name.clone(),
                    user_data: user_data(&name, &pool.name),
                    user: user.clone(),
                },
            ));
        }
    }
    // Eight at a time; a pool the cloud refused gets no more tries in this pass (past the
    // quota, the same answer would come for every one of its servers).
    let mut refused_pools = Vec::new();
    for wave in specs.chunks(CALLS_AT_ONCE) {
        let asked: Vec<_> = wave
            .iter()
            .filter(|(i, _)| !refused_pools.contains(i))
            .collect();
        let creates = asked
            .iter()
            .map(|(_, spec)| ctx.cloud().create_server(ctx.project, spec))
            .collect();
        let created = ctx.calls(creates).await;
        for (&(i, _), result) in asked.into_iter().zip(created) {
            match result {
                Ok(server) => {
                    out.created += 1;
                    out.launched.push(server.id.clone());
                    pools[i].running += 1;
                    let message = format!("Successfully created node {}", server.name);
                    ctx.normal(k, EventReason::SuccessfulCreateNode, &message)
                        .await?;
                }
                // The same error for the rest of the wave: one warning says it.
                Err(_) if refused_pools.contains(&i) => {}
                Err(e) => {
                    out.refused += 1;
                    refused_pools.push(i);
                    let message = format!("Failed to create node: {e}");
                    let detail = (e.kind == CloudErrorKind::QuotaExceeded)
                        .then_some(EventDetail::QuotaExceeded);
                    ctx.warn_with(k, EventReason::FailedCreateNode, detail, &message)
                        .await?;
                }
            }
        }
    }
    // Refused: again after a growing delay, unless something else is still on its way.
    let mine = super::of_kluster(servers, &name);
    let short = pools.iter().any(|p| p.running != p.size);
    let busy = out.created > 0 || out.deleted > 0 || super::plan::in_progress(&pools, &mine);
    out.next = match (busy, out.refused > 0, short) {
        (true, ..) | (false, false, true) => Next::soon(),
        (false, true, _) => Next::backoff(),
        (false, false, false) => Next::change(),
    };
    k.status.node_pools = pools;
    Ok(out)
}

/// The cloud-config a node boots with: it names its kluster and pool. A real join would
/// also need the kluster's API server address and a bootstrap token (kubelet's
/// `--bootstrap-kubeconfig`); no API server runs for a kluster here, so the node is only
/// labelled, and its health stays unknown (see `NodeSource`).
pub(super) fn user_data(kluster: &str, pool: &str) -> String {
    // Names are DNS labels (validated on create): plain YAML scalars.
    [
        "#cloud-config".to_string(),
        format!("# Mission Control node of kluster {kluster}, pool {pool}"),
        "write_files:".into(),
        "- path: /etc/kubernikus/node.env".into(),
        "  content: |".into(),
        format!("    KLUSTER={kluster}"),
        format!("    NODE_POOL={pool}"),
        String::new(),
    ]
    .join("\n")
}

/// Five random lowercase letters and digits (a server name's tail).
fn suffix() -> String {
    use rand_core::RngCore;
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut bytes = [0u8; 5];
    rand_core::OsRng.fill_bytes(&mut bytes);
    bytes
        .iter()
        .map(|b| CHARS[*b as usize % CHARS.len()] as char)
        .collect()
}
