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
    crate::ssr::kluster_form(&name, async {
        let rec = require(&session().await?, &st).await?;
        let enabled: bool = match enabled.as_str() {
            "true" => true,
            "false" => false,
            _ => {
                return Err(AppError::BadInput(
                    "Termination protection is either on (true) or off (false).".into(),
                ))
            }
        };
        crate::ssr::kluster_name(&name)?;
        // A Kubernikus without the route: "does not offer termination protection", in words.
        st.controller_for(&rec)?
            .set_termination_protection(&rec.token, &name, enabled)
            .await?;
        tracing::info!(
            kluster = name,
            enabled,
            project = rec.project_id,
            user = rec.user_name,
            "termination protection set"
        );
        Ok(())
    })
    .await?;
    leptos_axum::redirect(&format!("/klusters/{name}"));
    Ok(())
}
