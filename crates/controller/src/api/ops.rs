//! Extensions for cloud admins (the policy's `kubernetes_cloud_admin` rule) across every
//! project: `GET /api/v1/ops/events` (the all-projects timeline), `GET /api/v1/ops/attention`
//! (klusters stuck past their timeout, pools below size, repeated warnings) and
//! `GET /api/v1/ops/quotas` (each project's quota use). Anyone else gets 403 in words and
//! nothing of any project.

use std::collections::HashMap;
use std::time::Duration;

use axum::{
    extract::{Query, State},
    Json,
};
use kluster::{Attention, KlusterPhase, OpsEvent, ProjectQuota};
use serde::Deserialize;

use super::error::bad_query;
use super::{ApiError, ApiState, Caller};
use crate::auth::{Permission, Principal};

/// The caller, if a cloud admin; else 403 saying who may.
pub fn require_cloud_admin(st: &ApiState, caller: Caller) -> Result<Principal, ApiError> {
    caller.allow_to(st, Permission::CloudAdmin, "This operator view")
}

/// Which events of `GET /api/v1/ops/events`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpsEventQuery {
    /// Only this project, by id or name (default: all).
    project: Option<String>,
    /// Only changes after this sequence number.
    after: Option<i64>,
    /// The newest this many (1–500) instead of those after `after`.
    last: Option<i64>,
    /// At most this many (1–500, default 500).
    limit: Option<i64>,
}

/// Fills in project names the controller knows (from the audit trail).
async fn named(st: &ApiState) -> HashMap<String, String> {
    st.store.project_names().await.unwrap_or_default()
}

/// The project a cloud admin's `?project=` means: an id as given, or the name of a project
/// the controller knows (from the audit trail; any case) when exactly one project has it.
/// Anything else stays as given and so matches nothing.
pub(crate) async fn project_filter(st: &ApiState, given: String) -> String {
    if given.is_empty() {
        return given;
    }
    project_named(&named(st).await, given)
}

/// [`project_filter`] with the project names already at hand (id → name).
fn project_named(names: &HashMap<String, String>, given: String) -> String {
    if given.is_empty() || names.contains_key(&given) {
        return given;
    }
    let mut ids = names
        .iter()
        .filter(|(_, name)| name.eq_ignore_ascii_case(&given))
        .map(|(id, _)| id);
    match (ids.next(), ids.next()) {
        (Some(id), None) => id.clone(),
        _ => given,
    }
}

/// `GET /api/v1/ops/events`: every project's events (or one project's), oldest change
/// first, each with its project.
pub async fn events(
    State(st): State<ApiState>,
    caller: Caller,
    query: Result<Query<OpsEventQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<OpsEvent>>, ApiError> {
    require_cloud_admin(&st, caller)?;
    let Query(q) = query.map_err(bad_query)?;
    let names = named(&st).await;
    let project = project_named(&names, q.project.unwrap_or_default());
    let mut events = match q.last {
        Some(n) => {
            st.store
                .ops_events_latest(&project, n.clamp(1, 500))
                .await?
        }
        None => {
            let limit = q.limit.unwrap_or(500).clamp(1, 500);
            st.store
                .ops_events_since(&project, q.after.unwrap_or(0), limit)
                .await?
        }
    };
    for e in &mut events {
        e.project_name = names.get(&e.project_id).cloned().unwrap_or_default();
    }
    Ok(Json(events))
}

/// A warning seen this often within the last hour needs attention.
const REPEATED: i64 = 3;

/// `GET /api/v1/ops/attention`: klusters that need an operator.
pub async fn attention(
    State(st): State<ApiState>,
    caller: Caller,
) -> Result<Json<Vec<Attention>>, ApiError> {
    require_cloud_admin(&st, caller)?;
    let names = named(&st).await;
    let stuck_after = st.settings.stuck_after;
    let mut out = Vec::new();
    let all = st.store.list_all().await?;
    let mut phases = HashMap::new();
    for o in &all {
        let k = &o.stored.kluster;
        let phase = k.status.phase;
        phases.insert((o.project.clone(), k.name.clone()), phase);
        let item = |problem: &str, detail: String| Attention {
            project_id: o.project.clone(),
            project_name: names.get(&o.project).cloned().unwrap_or_default(),
            kluster: k.name.clone(),
            problem: problem.into(),
            detail,
            phase: phase.as_str().into(),
        };
        if matches!(phase, KlusterPhase::Creating | KlusterPhase::Terminating)
            && o.in_phase >= stuck_after
        {
            out.push(item(
                "stuck",
                format!(
                    "{} for {} (timeout {})",
                    phase.as_str(),
                    crate::reconcile::context::human(round(o.in_phase)),
                    crate::reconcile::context::human(stuck_after)
                ),
            ));
        }
        if phase == KlusterPhase::Running {
            for p in &k.status.node_pools {
                let unhealthy = !p.health_unknown && p.healthy < p.size;
                if p.running < p.size || unhealthy {
                    let health = match p.health_unknown {
                        true => "node health unknown".to_string(),
                        false => format!("{} healthy", p.healthy),
                    };
                    out.push(item(
                        "pool_below_size",
                        format!(
                            "pool {}: {} of {} running, {health}",
                            p.name, p.running, p.size
                        ),
                    ));
                }
            }
        }
    }
    let hour_ago = time::OffsetDateTime::now_utc() - time::Duration::hours(1);
    let since = hour_ago
        .replace_nanosecond(0)
        .unwrap_or(hour_ago)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    for w in st.store.repeated_warnings(REPEATED, &since).await? {
        let Some(phase) = phases.get(&(w.project.clone(), w.kluster.clone())) else {
            continue; // the kluster is gone
        };
        out.push(Attention {
            project_name: names.get(&w.project).cloned().unwrap_or_default(),
            project_id: w.project,
            kluster: w.kluster,
            problem: "repeated_warnings".into(),
            detail: format!("{} ×{}: {}", w.reason, w.count, w.message),
            phase: phase.as_str().into(),
        });
    }
    Ok(Json(out))
}

/// Whole minutes past one minute, whole seconds below.
fn round(d: Duration) -> Duration {
    if d >= Duration::from_secs(60) {
        Duration::from_secs(d.as_secs() / 60 * 60)
    } else {
        Duration::from_secs(d.as_secs())
    }
}

/// `GET /api/v1/ops/quotas`: the quota use of every project that has klusters.
pub async fn quotas(
    State(st): State<ApiState>,
    caller: Caller,
) -> Result<Json<Vec<ProjectQuota>>, ApiError> {
    require_cloud_admin(&st, caller)?;
    let names = named(&st).await;
    let mut counts: Vec<(String, i64)> = Vec::new();
    for o in st.store.list_all().await? {
        match counts.last_mut() {
            Some((p, n)) if *p == o.project => *n += 1,
            _ => counts.push((o.project, 1)),
        }
    }
    let mut out = Vec::new();
    for (project, klusters) in counts {
        let (quota, error) =
            match tokio::time::timeout(Duration::from_secs(5), st.cloud.quota(&project)).await {
                Ok(Ok(q)) => (Some(q), String::new()),
                Ok(Err(e)) => (None, format!("The cloud did not answer: {e}")),
                Err(_) => (None, "The cloud did not answer within 5 seconds".into()),
            };
        out.push(ProjectQuota {
            project_name: names.get(&project).cloned().unwrap_or_default(),
            project_id: project,
            klusters,
            quota,
            error,
        });
    }
    Ok(Json(out))
}
