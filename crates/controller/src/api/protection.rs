//! Extension: termination protection, switched by the project's admins
//! (`PUT /api/v1/clusters/{name}/termination-protection` with `{"enabled": true|false}`,
//! policy rule `UpdateCluster`). While it is on, `DELETE` is refused with 403.

use axum::{
    body::Bytes,
    extract::{rejection::BytesRejection, Path, State},
    http::StatusCode,
    response::Response,
};

use super::versions::versioned;
use super::{ApiError, ApiState, Caller};
use crate::auth::Permission;

/// The request body.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Protection {
    enabled: bool,
}

/// `PUT /api/v1/clusters/{name}/termination-protection`: sets it; answers the kluster
/// (`metadata.terminationProtection`) with its new `ETag`.
pub async fn set(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let who = caller.allow(&st, Permission::UpdateCluster)?;
    let body = body.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    let want: Protection = serde_json::from_slice(&body).map_err(|e| {
        ApiError::unprocessable(format!(
            "The body must be {{\"enabled\": true}} or {{\"enabled\": false}}: {e}"
        ))
    })?;
    if !st
        .store
        .set_termination_protection(&who.account, &name, want.enabled)
        .await?
    {
        return Err(ApiError::not_found(&name));
    }
    let k = st
        .store
        .get(&who.account, &name)
        .await?
        .ok_or_else(|| ApiError::not_found(&name))?;
    tracing::info!(
        kluster = name,
        project = who.account,
        user = who.name,
        enabled = want.enabled,
        "termination protection set"
    );
    Ok(versioned(StatusCode::OK, k.kluster))
}
