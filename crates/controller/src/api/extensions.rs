//! Extensions beyond the Kubernikus API (documented in the README): the project's quota,
//! the project's events as a list and as a Server-Sent Events stream, and the simulated
//! cloud's per-project faults and limits.

use std::convert::Infallible;
use std::time::Duration;

use axum::{
    body::Bytes,
    extract::{rejection::BytesRejection, Query, State},
    http::{HeaderMap, StatusCode},
    response::sse::{Event as SseEvent, KeepAlive, Sse},
    Json,
};
use futures_util::stream::{self, Stream, StreamExt};
use kluster::ProjectEvent;
use serde::Deserialize;

use super::{ApiError, ApiState, Caller};
use crate::auth::Principal;
use crate::cloud::sim::{SimCloud, SimProject};
use crate::cloud::Quota;

/// How many events one read returns at most.
const PAGE: i64 = 500;
/// The reconnect delay suggested to stream clients.
const RETRY: Duration = Duration::from_secs(2);

/// `GET /api/v1/openstack/quota`: the project's compute quota, limit and use.
pub async fn quota(State(st): State<ApiState>, caller: Caller) -> Result<Json<Quota>, ApiError> {
    let who = caller.allow(&st, "GetOpenstackMetadata")?;
    match tokio::time::timeout(Duration::from_secs(10), st.cloud.quota(&who.account)).await {
        Ok(Ok(q)) => Ok(Json(q)),
        Ok(Err(e)) => Err(ApiError::new(
            StatusCode::BAD_GATEWAY,
            format!("The cloud did not answer: {e}"),
        )),
        Err(_) => Err(ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "The cloud did not answer within 10 seconds",
        )),
    }
}

/// Which events to read.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventQuery {
    /// Only changes after this sequence number (list default 0; stream default: now).
    after: Option<i64>,
    /// Only this kluster's events.
    kluster: Option<String>,
    /// At most this many (list only; 1–500, default 500).
    limit: Option<i64>,
    /// List only: the newest this many (1–500) instead of those after `after`.
    last: Option<i64>,
}

fn bad_query(e: axum::extract::rejection::QueryRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        format!("Bad query: {}", e.body_text()),
    )
}

/// `GET /api/v1/events`: the project's events changed after `after`, oldest change first.
pub async fn list(
    State(st): State<ApiState>,
    caller: Caller,
    query: Result<Query<EventQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<ProjectEvent>>, ApiError> {
    let who = caller.allow(&st, "GetClusterEvents")?;
    let Query(q) = query.map_err(bad_query)?;
    let events = match q.last {
        Some(n) => {
            st.store
                .events_latest(&who.account, q.kluster.as_deref(), n.clamp(1, PAGE))
                .await?
        }
        None => {
            let limit = q.limit.unwrap_or(PAGE).clamp(1, PAGE);
            st.store
                .events_since(
                    &who.account,
                    q.kluster.as_deref(),
                    q.after.unwrap_or(0),
                    limit,
                )
                .await?
        }
    };
    Ok(Json(events))
}

/// `GET /api/v1/events/stream`: Server-Sent Events, one `event` per change with
/// `id:` = its sequence number, and an `event: kluster` hint (data: its name; empty: any)
/// whenever a kluster's stored state changes; resumes after `Last-Event-ID` (or `?after=`); comments
/// keep it alive every 15 s. When the caller's token stops being valid the stream sends
/// `event: unauthorized` and ends; on shutdown it ends.
pub async fn stream(
    State(st): State<ApiState>,
    caller: Caller,
    headers: HeaderMap,
    query: Result<Query<EventQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let who = caller.allow(&st, "GetClusterEvents")?;
    let Query(q) = query.map_err(bad_query)?;
    let resume = match headers.get("last-event-id").map(|v| v.to_str()) {
        None => None,
        Some(Ok(v)) => Some(v.trim().parse::<i64>().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "Last-Event-ID must be a number this stream sent",
            )
        })?),
        Some(Err(_)) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "Last-Event-ID must be a number this stream sent",
            ))
        }
    };
    let mut latest = st.store.latest_seq();
    let now = *latest.borrow_and_update();
    let after = resume.or(q.after).unwrap_or(now);
    let token = headers
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    tracing::info!(
        project = who.account,
        user = who.name,
        after,
        "event stream opened"
    );
    let hello = SseEvent::default()
        .retry(RETRY)
        .event("ready")
        .data(after.to_string());
    let changes = st.store.kluster_changes();
    let recheck_every = st.settings.stream_recheck.max(Duration::from_millis(10));
    let reader = Reader {
        recheck: tokio::time::Instant::now() + recheck_every,
        recheck_every,
        changes,
        st,
        project: who.account,
        kluster: q.kluster,
        after,
        latest,
        token,
        done: false,
    };
    let events = stream::unfold(reader, Reader::next).flat_map(stream::iter);
    let all = stream::once(async move { Ok(hello) }).chain(events);
    Ok(Sse::new(all).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// One open stream's position and its token re-check schedule.
struct Reader {
    /// When the token is checked next; kept across batches, so a busy stream re-checks too.
    recheck: tokio::time::Instant,
    /// How often the token is checked (the validator's cache answers most checks).
    recheck_every: Duration,
    changes: tokio::sync::broadcast::Receiver<(String, String)>,
    st: ApiState,
    project: String,
    kluster: Option<String>,
    after: i64,
    latest: tokio::sync::watch::Receiver<i64>,
    token: String,
    done: bool,
}

type Batch = Vec<Result<SseEvent, Infallible>>;

impl Reader {
    /// The next batch of SSE events; `None` ends the stream.
    async fn next(mut self) -> Option<(Batch, Reader)> {
        if self.done {
            return None;
        }
        loop {
            if tokio::time::Instant::now() >= self.recheck {
                self.recheck = tokio::time::Instant::now() + self.recheck_every;
                if let Err(e) = self.st.validator.principal(Some(&self.token)).await {
                    if e.status() == 401 {
                        self.done = true;
                        let bye = SseEvent::default()
                            .event("unauthorized")
                            .data(e.to_string());
                        return Some((vec![Ok(bye)], self));
                    }
                }
            }
            match self
                .st
                .store
                .events_since(&self.project, self.kluster.as_deref(), self.after, PAGE)
                .await
            {
                Ok(batch) if !batch.is_empty() => {
                    self.after = batch.last().map_or(self.after, |e| e.seq);
                    let out = batch.iter().map(|e| Ok(sse(e))).collect();
                    return Some((out, self));
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(project = self.project, error = %e, "event stream read failed");
                    self.done = true;
                    let bye = SseEvent::default()
                        .event("error")
                        .data("The event store failed; reconnect");
                    return Some((vec![Ok(bye)], self));
                }
            }
            let stop = self.st.stop.signal();
            tokio::select! {
                changed = self.latest.changed() => if changed.is_err() { return None },
                hint = self.changes.recv() => {
                    use tokio::sync::broadcast::error::RecvError;
                    let name = match hint {
                        Ok((p, name)) if p == self.project => name,
                        Ok(_) => continue,
                        Err(RecvError::Lagged(_)) => String::new(), // anything may have changed
                        Err(RecvError::Closed) => return None,
                    };
                    if self.kluster.as_deref().is_some_and(|k| !name.is_empty() && k != name) {
                        continue;
                    }
                    let hint = SseEvent::default().event("kluster").data(name);
                    return Some((vec![Ok(hint)], self));
                }
                // The top of the loop re-checks the token.
                _ = tokio::time::sleep_until(self.recheck) => {}
                _ = stop => return None,
            }
        }
    }
}

fn sse(e: &ProjectEvent) -> SseEvent {
    let data = serde_json::to_string(e).unwrap_or_default();
    SseEvent::default()
        .id(e.seq.to_string())
        .event("event")
        .data(data)
}

fn simulator(st: &ApiState) -> Result<&SimCloud, ApiError> {
    st.simulator.as_ref().ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "This controller runs against a real cloud: there is no simulator",
        )
    })
}

/// Every `/api/v1/simulator*` path while the operator has not enabled the simulator API.
pub async fn simulator_disabled() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "The simulator API is not enabled on this controller: the operator has not turned it on \
         (kubernikus-controller --simulator-api, or controller_simulator_api in the dashboard's \
         configuration)",
    )
}

/// Which project a simulator call is about.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulatorQuery {
    /// A project id (default: the caller's own project); other projects: cloud admins only.
    project: Option<String>,
}

/// Whether `who` is a cloud admin (the policy's `kubernetes_cloud_admin` rule).
fn is_cloud_admin(st: &ApiState, who: &Principal) -> bool {
    st.policy.allows("kubernetes_cloud_admin", &who.creds())
}

/// 403 in words for a caller who is not a cloud admin.
fn not_cloud_admin(who: &Principal, what: &str) -> ApiError {
    let roles = if who.roles.is_empty() {
        "none".to_string()
    } else {
        who.roles.join(", ")
    };
    ApiError::new(
        StatusCode::FORBIDDEN,
        format!(
            "{what} is for cloud admins only (the policy's kubernetes_cloud_admin rule: project \
             cloud_admin); you are signed in to project {} with roles {roles}",
            who.account_name
        ),
    )
}

/// The project a simulator call names: the caller's own unless `?project=` says otherwise.
fn target_project(
    query: Result<Query<SimulatorQuery>, axum::extract::rejection::QueryRejection>,
    who: &Principal,
) -> Result<String, ApiError> {
    let Query(q) = query.map_err(bad_query)?;
    let Some(project) = q.project else {
        return Ok(who.account.clone());
    };
    let valid = !project.is_empty()
        && project.len() <= 64
        && project
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !valid {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "project must be a project id: 1 to 64 letters, digits, '-' or '_'",
        ));
    }
    Ok(project)
}

/// `GET /api/v1/simulator[?project=<id>]` (cloud admins): the simulated cloud's faults and
/// limits for the project.
pub async fn get_simulator(
    State(st): State<ApiState>,
    Caller(who): Caller,
    query: Result<Query<SimulatorQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<SimProject>, ApiError> {
    if !is_cloud_admin(&st, &who) {
        return Err(not_cloud_admin(&who, "The simulator API"));
    }
    let project = target_project(query, &who)?;
    Ok(Json(simulator(&st)?.project(&project)))
}

/// `PUT /api/v1/simulator[?project=<id>]` (cloud admins): replaces the project's faults and
/// limits (takes effect at once).
pub async fn put_simulator(
    State(st): State<ApiState>,
    Caller(who): Caller,
    query: Result<Query<SimulatorQuery>, axum::extract::rejection::QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SimProject>, ApiError> {
    if !is_cloud_admin(&st, &who) {
        tracing::warn!(
            project = who.account,
            user = who.name,
            "simulator change refused: not a cloud admin"
        );
        return Err(not_cloud_admin(&who, "The simulator API"));
    }
    let project = target_project(query, &who)?;
    let sim = simulator(&st)?;
    let body = body.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    let settings: SimProject = serde_json::from_slice(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("The body is not a simulator setting: {e}"),
        )
    })?;
    let limits = settings.limits;
    if limits.instances < 0 || limits.cores < 0 || limits.ram < 0 {
        return Err(ApiError::unprocessable("limits must not be negative"));
    }
    sim.set_project(&project, settings);
    tracing::info!(
        project,
        user = who.name,
        user_project = who.account,
        "simulator settings changed"
    );
    Ok(Json(sim.project(&project)))
}

/// `GET /api/v1/simulator/debris/{kluster}[?project=<id>]`: what is left in the simulated
/// cloud of a kluster (servers and resources, also ones being deleted); `[]` once it left
/// nothing. The project's own `kubernetes_user`s, or cloud admins for any project.
pub async fn debris(
    State(st): State<ApiState>,
    Caller(who): Caller,
    axum::extract::Path(kluster): axum::extract::Path<String>,
    query: Result<Query<SimulatorQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<String>>, ApiError> {
    let project = target_project(query, &who)?;
    let admin = is_cloud_admin(&st, &who);
    if project != who.account && !admin {
        return Err(not_cloud_admin(&who, "Another project's debris"));
    }
    if !admin {
        Caller(who).allow(&st, "kubernetes_user")?;
    }
    Ok(Json(simulator(&st)?.debris(&project, &kluster)))
}
