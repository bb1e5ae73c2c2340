//! Delete a kluster.

use leptos::prelude::*;

use crate::error::AppError;

/// Deletes kluster `name` once the user typed its name into `confirm`
/// (`DELETE /api/v1/clusters/{name}`); goes back to the list.
#[server(endpoint = "delete_kluster")]
pub async fn delete_kluster(name: String, confirm: String) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::state;
    let st = state();
    let fail = crate::ssr::kluster_form_failure(&name);
    let rec = require(&session().await?, &st)
        .await
        .map_err(fail.clone())?;
    if confirm.trim() != name {
        return Err(fail.clone()(AppError::Invalid(vec![kluster::FieldError {
            field: "confirm".into(),
            message: format!("Type {name} to confirm."),
        }])));
    }
    crate::ssr::kluster_name(&name).map_err(fail.clone())?;
    st.controller_for(&rec)
        .map_err(fail.clone())?
        .terminate(&rec.token, &name)
        .await
        .map_err(|e| fail.clone()(e.into()))?;
    tracing::info!(
        kluster = name,
        project = rec.project_id,
        user = rec.user_name,
        "kluster deletion requested"
    );
    leptos_axum::redirect("/");
    Ok(())
}
