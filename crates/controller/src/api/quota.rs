//! Extension `GET /api/v1/openstack/quota`: the project's compute quota, limit and use.

use std::time::Duration;

use axum::{extract::State, http::StatusCode, Json};

use super::{ApiError, ApiState, Caller};
use crate::auth::Permission;
use crate::cloud::Quota;

/// `GET /api/v1/openstack/quota`: the project's compute quota, limit and use.
pub async fn quota(State(st): State<ApiState>, caller: Caller) -> Result<Json<Quota>, ApiError> {
    let who = caller.allow(&st, Permission::GetOpenstackMetadata)?;
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
