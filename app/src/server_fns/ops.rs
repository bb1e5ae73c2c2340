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
    st.controller_for(&rec)
        .map_err(fail)?
        .ops_attention(&rec.token)
        .await
        .map_err(|e| fail(e.into()))
}

/// Each project's quota use.
#[server(endpoint = "ops_quotas")]
pub async fn ops_quotas() -> Result<Vec<kluster::ProjectQuota>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    st.controller_for(&rec)
        .map_err(fail)?
        .ops_quotas(&rec.token)
        .await
        .map_err(|e| fail(e.into()))
}

/// The newest 300 events of every project (or of `project`), oldest first.
#[server(endpoint = "ops_events")]
pub async fn ops_events(project: String) -> Result<Vec<kluster::OpsEvent>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    let project = project.trim();
    let project = (!project.is_empty()).then_some(project);
    st.controller_for(&rec)
        .map_err(fail)?
        .ops_events(&rec.token, 300, project)
        .await
        .map_err(|e| fail(e.into()))
}
