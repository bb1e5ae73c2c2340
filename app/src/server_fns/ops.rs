//! The cloud admins' cross-project views (controller extensions `/api/v1/ops/*`). The
//! controller decides who may see them: anyone but a cloud admin gets its 403 in words.

use leptos::prelude::*;

use crate::error::AppError;

/// Klusters that need an operator: stuck past their timeout, pools below size, repeated
/// warnings.
#[server(endpoint = "ops_attention")]
pub async fn ops_attention() -> Result<Vec<kluster::Attention>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    st.controller
        .get(&rec.token, "/api/v1/ops/attention")
        .await
        .map_err(fail)
}

/// Each project's quota use.
#[server(endpoint = "ops_quotas")]
pub async fn ops_quotas() -> Result<Vec<kluster::ProjectQuota>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    st.controller
        .get(&rec.token, "/api/v1/ops/quotas")
        .await
        .map_err(fail)
}

/// The newest 300 events of every project (or of `project`), oldest first.
#[server(endpoint = "ops_events")]
pub async fn ops_events(project: String) -> Result<Vec<kluster::OpsEvent>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, percent_encode, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    let mut path = "/api/v1/ops/events?last=300".to_string();
    let project = project.trim();
    if !project.is_empty() {
        path.push_str(&format!("&project={}", percent_encode(project)));
    }
    st.controller.get(&rec.token, &path).await.map_err(fail)
}
