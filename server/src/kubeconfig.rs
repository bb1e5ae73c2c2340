//! `GET /klusters/{name}/kubeconfig`: the signed-in user's kubeconfig for a kluster, as a
//! download. The controller mints a fresh 24-hour client certificate on every call.

use axum::{
    extract::{Path, State},
    http::{header, HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Redirect, Response},
};
use tower_sessions::Session;

use app::error::AppError;
use app::ssr::{auth, AppState};

/// Answers the kubeconfig as `<name>.kubeconfig` (attachment, `no-store`) and writes one
/// audit line; without a session, redirects to the login page. A certificate is a state
/// change: a request another site started (fetch metadata) gets 403.
pub async fn download(
    State(st): State<AppState>,
    session: Session,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Response {
    if !crate::csrf::minting_get_allowed(&headers) {
        tracing::warn!(kluster = name, "cross-site kubeconfig request rejected");
        return (
            StatusCode::FORBIDDEN,
            "Cross-site request rejected: download the kubeconfig from Mission Control itself.",
        )
            .into_response();
    }
    let rec = match auth::current(&session, &st).await {
        Ok(Some(rec)) => rec,
        Ok(None) => return Redirect::to("/login").into_response(),
        Err(AppError::SessionExpired) => {
            return Redirect::to("/login?error=session_expired").into_response()
        }
        Err(e) => return error(e),
    };
    if kluster::validate::kluster_name(&name).is_err() {
        return (StatusCode::NOT_FOUND, "No such kluster.").into_response();
    }
    let controller = match st.controller_for(&rec) {
        Ok(c) => c,
        Err(e) => return error(e),
    };
    let creds = match controller.credentials(&rec.token, &name).await {
        Ok(c) => c,
        Err(e) => return error(e.into()),
    };
    tracing::info!(
        target: "audit",
        user = rec.user_name,
        domain = rec.user_domain,
        project = rec.project_id,
        kluster = name,
        "kubeconfig downloaded"
    );
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}.kubeconfig\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/yaml; charset=utf-8"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        creds.kubeconfig,
    )
        .into_response()
}

fn error(e: AppError) -> Response {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, e.to_string()).into_response()
}
