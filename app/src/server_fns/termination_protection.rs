//! Switch a kluster's termination protection on or off (project admins).

use leptos::prelude::*;

use crate::error::AppError;

/// Turns termination protection of kluster `name` on (`enabled` = "true") or off
/// ("false") (`PUT /api/v1/clusters/{name}/termination-protection`, an extension of Mission
/// Control's controller). Goes back to the kluster's page.
#[server(endpoint = "set_termination_protection")]
pub async fn set_termination_protection(name: String, enabled: String) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::state;
    let st = state();
    let fail = crate::ssr::kluster_form_failure(&name);
    let rec = require(&session().await?, &st)
        .await
        .map_err(fail.clone())?;
    let enabled: bool = match enabled.as_str() {
        "true" => true,
        "false" => false,
        _ => {
            return Err(fail.clone()(AppError::BadInput(
                "Termination protection is either on (true) or off (false).".into(),
            )))
        }
    };
    let path = crate::ssr::kluster_path(&name).map_err(fail.clone())?;
    let body = serde_json::json!({ "enabled": enabled });
    st.controller
        .write(
            reqwest::Method::PUT,
            &rec.token,
            &format!("{path}/termination-protection"),
            Some(&body),
        )
        .await
        .map_err(|e| match e {
            AppError::NotFound(_) if !e.to_string().contains(&name) => {
                AppError::BadInput("This Kubernikus does not offer termination protection.".into())
            }
            e => e,
        })
        .map_err(fail.clone())?;
    tracing::info!(
        kluster = name,
        enabled,
        project = rec.project_id,
        user = rec.user_name,
        "termination protection set"
    );
    leptos_axum::redirect(&format!("/klusters/{name}"));
    Ok(())
}
