//! Extension `/api/v1/simulator*`: the simulated cloud's per-project faults and limits
//! (cloud admins) and a kluster's debris (the project's users, or cloud admins). Served only
//! when the operator enables it ([`super::ApiSettings::simulator_api`]).

use axum::{
    body::Bytes,
    extract::{rejection::BytesRejection, Query, State},
    http::StatusCode,
    Json,
};
use serde::Deserialize;

use super::error::bad_query;
use super::{ApiError, ApiState, Caller};
use crate::auth::{Permission, Principal};
use crate::cloud::sim::{SimCloud, SimProject};

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

/// 403 in words for a caller who is not a cloud admin.
fn not_cloud_admin(who: &Principal, what: &str) -> ApiError {
    super::caller::denied(who, &[Permission::CloudAdmin], what)
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
    if !st.permits(&who, Permission::CloudAdmin) {
        return Err(not_cloud_admin(&who, "The simulator API"));
    }
    let project = target_project(query, &who)?;
    Ok(Json(
        simulator(&st)?
            .project(&project)
            .await
            .map_err(cloud_failed)?,
    ))
}

/// The simulated cloud could not answer (its database is away): 503 in words.
fn cloud_failed(e: crate::cloud::CloudError) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.message)
}

/// `PUT /api/v1/simulator[?project=<id>]` (cloud admins): replaces the project's faults and
/// limits (takes effect at once).
pub async fn put_simulator(
    State(st): State<ApiState>,
    Caller(who): Caller,
    query: Result<Query<SimulatorQuery>, axum::extract::rejection::QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SimProject>, ApiError> {
    if !st.permits(&who, Permission::CloudAdmin) {
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
    sim.set_project(&project, settings)
        .await
        .map_err(cloud_failed)?;
    st.store.project_touched(&project).await; // settled klusters are looked at again now
    tracing::info!(
        project,
        user = who.name,
        user_project = who.account,
        "simulator settings changed"
    );
    Ok(Json(sim.project(&project).await.map_err(cloud_failed)?))
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
    let admin = st.permits(&who, Permission::CloudAdmin);
    if project != who.account && !admin {
        return Err(not_cloud_admin(&who, "Another project's debris"));
    }
    if !admin {
        Caller(who).allow(&st, Permission::ProjectUser)?;
    }
    Ok(Json(
        simulator(&st)?
            .debris(&project, &kluster)
            .await
            .map_err(cloud_failed)?,
    ))
}
