//! The klusters of the session's project.

use leptos::prelude::*;

use crate::error::AppError;

/// Lists the project's klusters (`GET /api/v1/clusters` on the controller, with the
/// session's token).
#[server(endpoint = "list_klusters")]
pub async fn list_klusters() -> Result<Vec<crate::model::KlusterRow>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    let list: Vec<kluster::Kluster> = st
        .controller
        .get(&rec.token, "/api/v1/clusters")
        .await
        .map_err(fail)?;
    let now_ms = (st.clock.now_utc().unix_timestamp_nanos() / 1_000_000) as f64;
    Ok(list
        .into_iter()
        .map(|k| {
            let created = k
                .metadata
                .as_ref()
                .map(|m| m.creation_timestamp.clone())
                .unwrap_or_default();
            let mut row: crate::model::KlusterRow = k.into();
            row.age = crate::pages::timeline::age(&created, now_ms);
            row
        })
        .collect())
}
