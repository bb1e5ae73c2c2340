//! Launch's executor: applies the [`plan`](super::plan) to the cloud and records events.

use kluster::{EventDetail, EventReason, Kluster};

use super::{plan_with, prefix, retry};
use crate::cloud::{CloudErrorKind, Owner, ServerSpec, ServerStatus};
use crate::reconcile::context::{Ctx, KlusterView, Outcome, CALLS_AT_ONCE};
use crate::reconcile::next::Next;
use crate::store::ServerMark;
use crate::store::StoreError;

/// Launch's executor for one running kluster: announces servers that came up, deletes the
/// servers its plan removes (not those flight grounded), creates the missing ones (unless
/// the pool waits after failures: [`super::retry`]), and writes the pools' status into `k`.
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
    retry::carry(&k.status.node_pools, &mut pools);
    // Servers launch made that are up now: announced once, and their pool's wait ends.
    let mine = super::of_kluster(servers, &name);
    for s in &mine {
        let booting = o.stored.marks.get(&s.id) == Some(&ServerMark::Booting);
        if !booting || s.status != ServerStatus::Active {
            continue;
        }
        if let Some(info) = super::pool_of(k, s).and_then(|i| pools.get_mut(i)) {
            info.create_retry = None;
        }
        let message = format!("Successfully created node {}", s.name);
        ctx.normal(k, EventReason::SuccessfulCreateNode, &message)
            .await?;
    }
    // A pool with all its nodes running waits for nothing (one still booting keeps the
    // wait: it may fail too).
    for info in pools.iter_mut() {
        if info.running >= info.size {
            info.create_retry = None;
        }
    }
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
            && r.active
        {
            if let Some(info) = r.pool.and_then(|i| pools.get_mut(i)) {
                info.running -= 1;
            }
        }
    }
    // Pools waiting after failures ask for nothing until their time, then for one server.
    let now = time::OffsetDateTime::now_utc();
    let mut wait: Option<std::time::Duration> = None;
    let mut creates = Vec::new();
    for (i, count) in plan.create {
        let retry = pools[i].create_retry.as_ref();
        match retry::remaining(retry, now) {
            Some(left) => wait = Some(wait.map_or(left, |w| w.min(left))),
            None if retry.is_some() => creates.push((i, 1)),
            None => creates.push((i, count)),
        }
    }
    // Servers are booted by the kluster's own user when the cloud makes one.
    let mut user = None;
    if !creates.is_empty() {
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
    let owner = crate::reconcile::claim::owner_of(k);
    for (i, count) in creates {
        let pool = &k.spec.node_pools[i];
        for _ in 0..count {
            specs.push((
                i,
                ServerSpec {
                    name: format!("{}{}", prefix(&name, &pool.name), suffix()),
                    kluster: name.clone(),
                    uid: owner.uid.to_string(),
                    flavor: pool.flavor.clone(),
                    image: pool.image.clone(),
                    availability_zone: pool.availability_zone.clone(),
                    network_id: k.spec.openstack.network_id.clone(),
                    security_group: k.spec.openstack.security_group_name.clone(),
                    user_data: user_data(&owner, &pool.name),
                    user: user.clone(),
                },
            ));
        }
    }
    // Eight at a time; a pool the cloud refused gets no more tries in this pass (past the
    // quota, the same answer would come for every one of its servers).
    let mut refused_pools = Vec::new();
    let mut repaired = false;
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
                // Asked for; announced when it is up.
                Ok(server) => {
                    out.created += 1;
                    out.launched.push(server.id.clone());
                    let message = format!("Creating node {}", server.name);
                    ctx.normal(k, EventReason::CreatingNode, &message).await?;
                }
                // The same error for the rest of the wave: one warning says it.
                Err(_) if refused_pools.contains(&i) => {}
                // The kluster's own user was refused: repaired, and tried again soon.
                Err(e) if e.kind == CloudErrorKind::UserRefused => {
                    out.refused += 1;
                    refused_pools.push(i);
                    if !repaired {
                        repaired = true;
                        let _ = super::super::users::repair(k, ctx, &e).await?;
                    }
                }
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
    // Refused: again after a growing delay, unless something else is still on its way;
    // a pool waiting after failures: again at its time.
    let busy = out.created > 0 || out.deleted > 0 || super::plan::in_progress(&pools, &mine);
    // Only booting (nothing going, nothing deleted now): one interval apart.
    let going = out.deleted > 0 || mine.iter().any(|s| s.status == ServerStatus::Deleting);
    out.next = match (busy || repaired, out.refused > 0) {
        (true, _) if !going && !repaired => Next::booting(),
        (true, _) => Next::soon(),
        (false, true) => Next::backoff(),
        (false, false) => Next::change(),
    };
    if let Some(w) = wait {
        out.next = out.next.and(Next::after(w));
    }
    k.status.node_pools = pools;
    Ok(out)
}

/// The cloud-config a node boots with: it names its kluster, its uid, the cluster name its
/// cloud controller manager and CSI driver are to use (`cloud::owner`), and its pool. A real join would
/// also need the kluster's API server address and a bootstrap token (kubelet's
/// `--bootstrap-kubeconfig`); no API server runs for a kluster here, so the node is only
/// labelled, and its health stays unknown (see `NodeSource`).
pub(super) fn user_data(owner: &Owner, pool: &str) -> String {
    // Names are DNS labels (validated on create), uids hex: plain YAML scalars.
    let kluster = owner.name;
    [
        "#cloud-config".to_string(),
        format!("# Mission Control node of kluster {kluster}, pool {pool}"),
        "write_files:".into(),
        "- path: /etc/kubernikus/node.env".into(),
        "  content: |".into(),
        format!("    KLUSTER={kluster}"),
        format!("    KLUSTER_UID={}", owner.uid),
        format!("    CLUSTER_NAME={}", owner.cluster_name()),
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
