//! Change a kluster: upgrade its version, add a pool, remove an empty pool, set a pool's
//! labels, taints and update policy.

use leptos::prelude::*;

use crate::error::AppError;
pub use crate::kluster_edit::{Edit, PoolFlash, PoolOptions};

/// Session key of a plain form post's rejected pool settings: (kluster, [`PoolFlash`]), shown
/// once more by the kluster's page (`?retry=1`) with what was typed.
pub const EDIT_FLASH: &str = "edit_flash";

/// Applies `edit` to kluster `name` (`GET`, change, `PUT`) while it is at the resource
/// `version` the page showed ([`AppError::Stale`] otherwise; none: last write wins); the
/// controller's rule violations come back per field. Goes back to the kluster's page; a
/// plain form post of a pool's settings that fails keeps what was typed for it.
#[server(endpoint = "edit_kluster")]
pub async fn edit_kluster(
    name: String,
    edit: Edit,
    version: Option<String>,
) -> Result<(), AppError> {
    use crate::ssr::auth::{require, session, store_error};
    use crate::ssr::{is_plain_form_post, state};
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
    let what = format!("{edit:?}");
    let typed = edit.clone();
    let c = st.controller_for(&rec).map_err(fail.clone())?;
    let result =
        crate::ssr::controller::update_spec(&c, &rec.token, &name, version.as_deref(), |spec| {
            edit.clone().apply(spec)
        })
        .await;
    if let Err(e) = result {
        if let Some((pool, options)) = typed.typed_pool().filter(|_| is_plain_form_post()) {
            let flash = PoolFlash {
                pool: pool.to_string(),
                options: options.clone(),
                error: e.clone(),
            };
            session
                .insert(EDIT_FLASH, (&name, &flash))
                .await
                .map_err(store_error)?;
            leptos_axum::redirect(&format!("/klusters/{name}?error={}&retry=1", e.code()));
            return Err(e);
        }
        return Err(fail(e));
    }
    let _ = session.remove_value(EDIT_FLASH).await;
    tracing::info!(
        kluster = name,
        change = what,
        project = rec.project_id,
        user = rec.user_name,
        "kluster changed"
    );
    leptos_axum::redirect(&format!("/klusters/{name}"));
    Ok(())
}
