//! Listings that span pages ([`Api::list`]): `{key}_links` with `rel: next` (Nova,
//! Neutron, Cinder, Octavia) or `next` (Glance), followed up to [`MAX_PAGES`] pages; a page
//! without its list is an error, never an empty listing.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::catalog::Service;
use super::http::{Api, Query};
use crate::cloud::CloudError;

/// Most pages a listing follows before it gives up (a loop guard).
pub const MAX_PAGES: usize = 100;

impl Api {
    /// Every item under `key` of a listing, following its pages: `{key}_links` with
    /// `rel: next` (Nova, Neutron, Cinder, Octavia) or `next` (Glance). The next page is
    /// asked for at `path` with the link's query (its host may be an internal one).
    pub async fn list<T: DeserializeOwned>(
        &self,
        project: &str,
        service: Service,
        path: &str,
        query: Query,
        key: &str,
    ) -> Result<Vec<T>, CloudError> {
        let mut out = Vec::new();
        let mut query = query;
        for _ in 0..MAX_PAGES {
            let mut page: Value = self.get(project, service, path, &query).await?;
            // A page without the list is no empty list: taken for one, a server listing
            // would show every node gone.
            let items = page.get_mut(key).map(Value::take).unwrap_or(Value::Null);
            if items.is_null() {
                return Err(CloudError::new(format!(
                    "{} answered a listing without {key}",
                    service.label()
                )));
            }
            let items: Vec<T> = serde_json::from_value(items).map_err(|e| {
                CloudError::new(format!(
                    "{} sent {key} this provider cannot read: {e}",
                    service.label()
                ))
            })?;
            let empty = items.is_empty();
            out.extend(items);
            if empty {
                return Ok(out);
            }
            match next_query(&page, key) {
                Some(next) if next != query => query = next,
                _ => return Ok(out),
            }
        }
        Err(CloudError::new(format!(
            "{} listed {key} in more than {MAX_PAGES} pages",
            service.label()
        )))
    }
}

/// The query of a listing's next page, if it has one.
fn next_query(page: &Value, key: &str) -> Option<Query> {
    let href = page
        .get(format!("{key}_links"))
        .and_then(Value::as_array)
        .and_then(|links| {
            links
                .iter()
                .find(|l| l.get("rel").and_then(Value::as_str) == Some("next"))
        })
        .and_then(|l| l.get("href"))
        .or_else(|| page.get("next"))
        .and_then(Value::as_str)?;
    let base = url::Url::parse("http://next.invalid/").ok()?;
    let url = base.join(href).ok()?;
    let pairs: Query = url.query_pairs().into_owned().collect();
    (!pairs.is_empty()).then_some(pairs)
}
