//! Create a kluster from the create form.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::KlusterForm;

/// Session key of a plain form post's rejected values and errors, shown once by the form.
pub const CREATE_FLASH: &str = "create_flash";

/// `POST /api/v1/clusters` with the form's kluster (the API's rule violations come back per
/// field); on success goes to
/// the new kluster's page. A plain form post (no JavaScript) that fails goes back to the
/// form, which shows the values and errors kept for it in the session. With `to` =
/// `yaml` ("Edit as YAML") nothing is created: the form's values go to the YAML editor
/// at create, as they are.
#[server(endpoint = "create_kluster")]
pub async fn create_kluster(
    form: KlusterForm,
    #[server(default)] to: String,
) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::{fail, is_plain_form_post, state};
    let st = state();
    let plain = is_plain_form_post();
    let session = session().await?;
    if to == "yaml" {
        require(&session, &st).await.map_err(fail)?;
        let kept = crate::model::CreateYaml {
            text: crate::ssr::yaml::of_form(&form),
            error: None,
        };
        session
            .insert(super::CREATE_YAML, &kept)
            .await
            .map_err(|e| fail(store_error(e)))?;
        leptos_axum::redirect("/klusters/new?yaml=1");
        return Ok(());
    }
    let result = async {
        let rec = require(&session, &st).await?;
        // The API checks its rules and answers with the same messages the browser shows.
        let (k, problems) = form.to_kluster_unchecked();
        if !problems.0.is_empty() {
            return Err(AppError::Invalid(problems.0));
        }
        st.controller_for(&rec)?.create(&rec.token, &k).await?;
        tracing::info!(
            kluster = k.name,
            project = rec.project_id,
            user = rec.user_name,
            "kluster created from the dashboard"
        );
        Ok(k.name)
    }
    .await;
    match result {
        Ok(name) => {
            let _ = session.remove_value(CREATE_FLASH).await;
            leptos_axum::redirect(&format!("/klusters/{name}"));
            Ok(())
        }
        Err(e @ (AppError::NotSignedIn | AppError::SessionExpired)) => {
            if plain {
                leptos_axum::redirect("/login?error=session_expired");
            }
            Err(fail(e))
        }
        Err(e) if plain => {
            session
                .insert(CREATE_FLASH, (&form, &e))
                .await
                .map_err(store_error)?;
            leptos_axum::redirect("/klusters/new?retry=1");
            Err(e)
        }
        Err(e) => Err(fail(e)),
    }
}
