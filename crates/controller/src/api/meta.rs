//! Unauthenticated metadata: `/`, `/docs`, `/info` and `/api`.

use axum::{
    extract::State,
    http::{header, HeaderMap},
    response::{IntoResponse, Redirect, Response},
    Json,
};

use super::{ApiError, ApiState, Caller};
use crate::auth::Permission;

/// `GET /info` (operation `Info`): versions this controller offers.
pub async fn info(State(st): State<ApiState>) -> Json<kluster::Info> {
    Json(kluster::Info {
        git_version: env!("CARGO_PKG_VERSION").into(),
        default_cluster_version: st.settings.default_version.clone(),
        supported_cluster_versions: st.settings.supported_versions.clone(),
        available_cluster_versions: st.settings.available_versions.clone(),
    })
}

/// `GET /api` (operation `ListAPIVersions`).
pub async fn api_versions() -> Json<kluster::ApiVersions> {
    Json(kluster::ApiVersions {
        versions: vec!["v1".into()],
    })
}

/// The OpenAPI (Swagger 2.0) document this API implements.
pub const SWAGGER: &str = include_str!("swagger.yml");

/// `GET /docs`: the OpenAPI document.
pub async fn docs() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/yaml; charset=utf-8")],
        SWAGGER,
    )
}

/// `GET /`: the list of paths; browsers are sent to `/docs`.
pub async fn paths(headers: HeaderMap) -> Response {
    let browser = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    if browser {
        return Redirect::to("/docs").into_response();
    }
    let paths: Vec<&str> = SWAGGER
        .lines()
        .filter_map(|l| l.strip_prefix("  ").and_then(|l| l.strip_suffix(':')))
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.trim_matches('\''))
        .filter(|l| l.starts_with('/') && !l.starts_with("/auth/")) // dex login: not served
        .collect();
    Json(serde_json::json!({ "paths": paths })).into_response()
}

/// `GET /api/v1/openstack/metadata` (GetOpenstackMetadata): what the create form offers,
/// with the images servers can boot (the extension `images`).
pub async fn openstack_metadata(
    State(st): State<ApiState>,
    caller: Caller,
) -> Result<Json<kluster::OpenstackMetadata>, ApiError> {
    let who = caller.allow(&st, Permission::GetOpenstackMetadata)?;
    let (meta, images) = tokio::join!(
        st.cloud.metadata(&who.account),
        st.cloud.images(&who.account)
    );
    let unanswered = |e: crate::cloud::CloudError| {
        ApiError::new(
            axum::http::StatusCode::BAD_GATEWAY,
            format!("The cloud did not answer: {e}"),
        )
    };
    let mut meta = meta.map_err(unanswered)?;
    meta.images = images.map_err(unanswered)?;
    Ok(Json(meta))
}
