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
    crate::ssr::kluster_form(&name, async {
        let rec = require(&session().await?, &st).await?;
        if confirm.trim() != name {
            return Err(AppError::Invalid(vec![kluster::FieldError {
                field: "confirm".into(),
                message: format!("Type {name} to confirm."),
            }]));
        }
        crate::ssr::kluster_name(&name)?;
        st.controller_for(&rec)?
            .terminate(&rec.token, &name)
            .await?;
        tracing::info!(
            kluster = name,
            project = rec.project_id,
            user = rec.user_name,
            "kluster deletion requested"
        );
        Ok(())
    })
    .await?;
    leptos_axum::redirect("/");
    Ok(())
}
