//! A page of the session's project's klusters: searched, filtered and sorted.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{KlusterPage, ListParams};

/// One page of the project's klusters (`GET /api/v1/clusters` on the controller, with the
/// session's token and the list query extension `?q=&phase=&sort=&limit=&offset=`). When
/// the controller answers every kluster (a real Kubernikus ignores the extension), the
/// dashboard searches, sorts and pages them itself, alike. A page past the last is the last.
#[server(endpoint = "list_klusters")]
pub async fn list_klusters(#[server(default)] params: ListParams) -> Result<KlusterPage, AppError> {
    use crate::model::{page_of_all, rows_page, PER_PAGE};
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, for_browser, state};
    use kubernikus_client::Listing;
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    let mut query = params.query().map_err(|m| fail(AppError::BadInput(m)))?;
    let page = params.page.max(1);
    query.limit = Some(PER_PAGE);
    query.offset = (page - 1) * PER_PAGE;
    // Only what a row shows is asked for: our controller answers a summary per kluster (a
    // third of the bytes).
    query.summary = true;
    let pass = for_browser();
    let c = st.controller_for(&rec).map_err(fail)?;
    let (items, total) = match fetch(&c, &rec.token, &query, pass).await? {
        Listing::Paged { items, total } => (items, total),
        Listing::All(all) => return Ok(page_of_all(&query, all, page)),
    };
    let pages = total.div_ceil(PER_PAGE).max(1);
    if page <= pages {
        return Ok(rows_page(items, total, page));
    }
    // Past the last page (the list shrank, or a typed URL): the last one.
    query.offset = (pages - 1) * PER_PAGE;
    Ok(match fetch(&c, &rec.token, &query, pass).await? {
        Listing::Paged { items, total } => rows_page(items, total, pages),
        Listing::All(all) => page_of_all(&query, all, pages),
    })
}

/// The controller's answer to `query`. A page the controller paged is decoded as
/// summaries (skipping the fields a row does not show), or, when `pass` (an answer to the
/// browser, which decodes it itself), only checked to be a JSON array and passed on.
#[cfg(feature = "ssr")]
async fn fetch(
    c: &kubernikus_client::Client,
    token: &keystone::TokenSecret,
    query: &kluster::listing::ListQuery,
    pass: bool,
) -> Result<kubernikus_client::Listing<crate::model::PageItems>, AppError> {
    use crate::model::PageItems;
    let listed = if pass {
        c.list_page(token, query)
            .await
            .map(|l| l.map_items(PageItems::Passed))
    } else {
        c.list_page(token, query)
            .await
            .map(|l| l.map_items(PageItems::Decoded))
    };
    listed.map_err(|e| crate::ssr::fail(e.into()))
}
