//! The create form as YAML and back (`/klusters/new?yaml=1`): the form's values become a
//! kluster's YAML, the YAML becomes the form's values again, or the kluster is created from
//! the YAML. What was typed is kept in the session, so nothing is lost on either side, with
//! or without JavaScript.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::CreateYaml;

/// Session key of the YAML at create as last typed, and why it was refused, if it was.
pub const CREATE_YAML: &str = "create_yaml";

/// Session key of the form that the YAML turned back into (a [`crate::model::Copied`]).
pub const CREATE_DRAFT: &str = "create_draft";

/// The YAML editor at create: the text kept in the session (from the form, or as last
/// typed), else the YAML of an empty form.
#[server(endpoint = "get_create_yaml")]
pub async fn get_create_yaml() -> Result<CreateYaml, AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::{fail, state};
    let st = state();
    let session = session().await?;
    require(&session, &st).await.map_err(fail)?;
    let kept = session
        .get::<CreateYaml>(CREATE_YAML)
        .await
        .map_err(|e| fail(store_error(e)))?;
    Ok(kept.unwrap_or_else(|| CreateYaml {
        text: crate::ssr::yaml::of_form(&Default::default()),
        error: None,
    }))
}

/// A post of the YAML editor at create: `step` `create` makes the kluster from `yaml`
/// (its page next), `form` goes back to the form filled from it. A refusal goes back to
/// the editor with the text kept and the reason in words (field by field from the API).
#[server(endpoint = "create_kluster_yaml")]
pub async fn create_kluster_yaml(yaml: String, step: String) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::{fail, is_plain_form_post, state};
    let st = state();
    let plain = is_plain_form_post();
    let session = session().await?;
    let rec = require(&session, &st).await.map_err(fail)?;
    let result = match step.as_str() {
        "form" => match crate::ssr::yaml::to_form(&yaml) {
            Ok((form, left_out)) => {
                let draft = crate::model::Copied {
                    form: Some(form),
                    notice: back_notice(&left_out),
                };
                session
                    .insert(CREATE_DRAFT, &draft)
                    .await
                    .map_err(|e| fail(store_error(e)))?;
                Ok("/klusters/new?draft=1".to_string())
            }
            Err(e) => Err(e),
        },
        "create" => create(&st, &rec, &yaml).await,
        _ => Err(AppError::BadInput(
            "The step is \"create\" or \"form\".".into(),
        )),
    };
    match result {
        Ok(next) => {
            let _ = session.remove_value(CREATE_YAML).await;
            leptos_axum::redirect(&next);
            Ok(())
        }
        Err(e) => {
            let kept = CreateYaml {
                text: yaml,
                error: Some(e.clone()),
            };
            session
                .insert(CREATE_YAML, &kept)
                .await
                .map_err(|e| fail(store_error(e)))?;
            if plain {
                leptos_axum::redirect("/klusters/new?yaml=1");
                return Ok(());
            }
            Err(fail(e))
        }
    }
}

/// What the form says when it comes back from the YAML.
#[cfg(feature = "ssr")]
fn back_notice(left_out: &[String]) -> String {
    if left_out.is_empty() {
        "The form holds what the YAML said.".into()
    } else {
        format!(
            "The form holds what the YAML said, but has no place for {}: switch to YAML again to set it.",
            left_out.join(", ")
        )
    }
}

/// Creates the kluster of `text` (the API checks it and names each refused field); the path
/// of its page.
#[cfg(feature = "ssr")]
async fn create(
    st: &crate::ssr::AppState,
    rec: &crate::ssr::AuthRecord,
    text: &str,
) -> Result<String, AppError> {
    let k = crate::ssr::yaml::read(text)?;
    kluster::validate::kluster_name(&k.name).map_err(|m| {
        AppError::Invalid(vec![kluster::FieldError {
            field: "name".into(),
            message: m,
        }])
    })?;
    st.controller_for(rec)?.create(&rec.token, &k).await?;
    tracing::info!(
        kluster = k.name,
        project = rec.project_id,
        user = rec.user_name,
        "kluster created from YAML in the dashboard"
    );
    Ok(format!("/klusters/{}", k.name))
}
