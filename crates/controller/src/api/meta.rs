//! Unauthenticated metadata: `/info` and `/api`.

use axum::{extract::State, Json};

use super::ApiState;

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
