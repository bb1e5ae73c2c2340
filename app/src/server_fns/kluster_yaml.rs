//! The kluster as YAML: read it, preview what typed YAML would change, apply it.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::KlusterYaml;

/// Session key of the last preview: (kluster, [`YamlPreview`]), shown by the YAML page
/// (`?preview=1`) until the text is applied.
pub const YAML_PREVIEW: &str = "yaml_preview";

/// Kluster `name` as YAML: the whole object and the editable name and spec; with
/// `preview`, what the last preview of typed text found.
#[server(endpoint = "get_kluster_yaml")]
pub async fn get_kluster_yaml(
    name: String,
    preview: Option<bool>,
) -> Result<KlusterYaml, AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::{fail, state, yaml};
    let st = state();
    let session = session().await?;
    let rec = require(&session, &st).await.map_err(fail)?;
    crate::ssr::kluster_name(&name).map_err(fail)?;
    let k = st
        .controller_for(&rec)
        .map_err(fail)?
        .get(&rec.token, &name)
        .await
        .map_err(|e| fail(e.into()))?;
    let preview = match preview {
        Some(true) => session
            .get::<(String, crate::model::YamlPreview)>(YAML_PREVIEW)
            .await
            .map_err(store_error)?
            .filter(|(k, _)| *k == name)
            .map(|(_, p)| p),
        _ => None,
    };
    let version = k.metadata.as_ref().map(|m| m.resource_version.clone());
    Ok(KlusterYaml {
        whole: yaml::whole(&k),
        editable: match &preview {
            Some(p) => p.text.clone(),
            None => yaml::editable(&k),
        },
        version: match &preview {
            Some(p) => p.version.clone(),
            None => version.unwrap_or_default(),
        },
        may_edit: rec.may(kubernikus_policy::Permission::UpdateCluster),
        preview,
    })
}

/// With `step` "preview": reads `yaml`, checks it with the API's rules against kluster
/// `name` and keeps what it would change for the page; with "apply": applies it while the
/// kluster is at `version` (412 in words otherwise). A refusal keeps the text for the page
/// (`?preview=1`) and names the field; nothing is applied in part.
#[server(endpoint = "edit_kluster_yaml")]
pub async fn edit_kluster_yaml(
    name: String,
    yaml: String,
    version: Option<String>,
    step: String,
) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::state;
    let st = state();
    let fail = crate::ssr::kluster_form_failure(&name);
    let session = session().await?;
    let rec = async {
        let rec = require(&session, &st).await?;
        crate::ssr::kluster_name(&name)?;
        Ok(rec)
    }
    .await
    .map_err(fail.clone())?;
    let back = format!("/klusters/{name}/yaml");
    let mut version = version.unwrap_or_default();
    let result = match step.as_str() {
        // Compared with the kluster as it is now: applying it later is at that version.
        "preview" => preview(&st, &rec, &rec.token, &name, &yaml)
            .await
            .map(|(changes, now)| {
                version = now;
                Some(changes)
            }),
        "apply" => apply(&st, &rec, &rec.token, &name, &yaml, &version)
            .await
            .map(|()| None),
        _ => Err(AppError::BadInput(
            "The step is \"preview\" or \"apply\".".into(),
        )),
    };
    let kept = |changes, error| crate::model::YamlPreview {
        text: yaml.clone(),
        version: version.clone(),
        changes,
        error,
    };
    match result {
        Ok(Some(changes)) => {
            session
                .insert(YAML_PREVIEW, (&name, kept(changes, None)))
                .await
                .map_err(store_error)?;
            leptos_axum::redirect(&format!("{back}?preview=1"));
            Ok(())
        }
        Ok(None) => {
            let _ = session.remove_value(YAML_PREVIEW).await;
            tracing::info!(
                kluster = name,
                project = rec.project_id,
                user = rec.user_name,
                "kluster changed from YAML"
            );
            leptos_axum::redirect(&format!("/klusters/{name}"));
            Ok(())
        }
        Err(e) => {
            session
                .insert(YAML_PREVIEW, (&name, kept(Vec::new(), Some(e.clone()))))
                .await
                .map_err(store_error)?;
            // Back to the page, which shows the text as typed and why (with JavaScript too:
            // the editor is rendered again from the kept preview).
            leptos_axum::redirect(&format!("{back}?preview=1"));
            Err(e)
        }
    }
}

/// What `text` would change in kluster `name` and the version it was compared with, or
/// why it is refused.
#[cfg(feature = "ssr")]
async fn preview(
    st: &crate::ssr::AppState,
    rec: &crate::ssr::AuthRecord,
    token: &keystone::TokenSecret,
    name: &str,
    text: &str,
) -> Result<(Vec<kluster::SpecChange>, String), AppError> {
    let typed = crate::ssr::yaml::read(text)?;
    let current = st.controller_for(rec)?.get(token, name).await?;
    let changes = crate::ssr::yaml::preview(&current, &typed)?;
    let version = current.metadata.map(|m| m.resource_version);
    Ok((changes, version.unwrap_or_default()))
}

/// Applies `text` to kluster `name` at `version` (the controller checks it again).
#[cfg(feature = "ssr")]
async fn apply(
    st: &crate::ssr::AppState,
    rec: &crate::ssr::AuthRecord,
    token: &keystone::TokenSecret,
    name: &str,
    text: &str,
    version: &str,
) -> Result<(), AppError> {
    let typed = crate::ssr::yaml::read(text)?;
    // The controller checks the spec again; the name is in the URL, so it is checked here.
    if !typed.name.is_empty() && typed.name != name {
        return Err(AppError::Invalid(vec![kluster::FieldError {
            field: "name".into(),
            message: format!("The name cannot change (this kluster is {name:?})."),
        }]));
    }
    let shown = Some(version).filter(|v| !v.is_empty());
    let c = st.controller_for(rec)?;
    crate::ssr::controller::update_spec(&c, token, name, shown, |spec| {
        *spec = typed.spec.clone();
        Ok(())
    })
    .await
}
