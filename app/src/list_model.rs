//! The kluster list's data: one row per kluster, a page of rows, the page's URL parameters,
//! and the dashboard's own search, sort and paging for a controller that answered every
//! kluster (a real Kubernikus ignores the list query extension).

use kluster::listing::ListQuery;
use kluster::KlusterSummary;
use serde::{Deserialize, Serialize};

/// Klusters on one page of the list.
pub const PER_PAGE: usize = 50;

/// One pool in the kluster list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolRow {
    /// Pool name.
    pub name: String,
    /// Wanted size.
    pub size: i64,
    /// Running (and starting) nodes; `None` until the controller reports the pool.
    pub running: Option<i64>,
    /// Ready nodes.
    pub healthy: i64,
    /// Ready and not cordoned.
    pub schedulable: i64,
    /// The controller could not tell the nodes' health: `healthy` and `schedulable` say
    /// nothing and show as "unknown".
    pub health_unknown: bool,
}

/// One kluster in the list: only what the table shows, made from its [`KlusterSummary`]
/// (the page carries the summaries; see [`KlusterPage::into_rows`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KlusterRow {
    /// Name.
    pub name: String,
    /// Phase.
    pub phase: kluster::KlusterPhase,
    /// Running version, else the wanted one.
    pub version: String,
    /// Pools.
    pub pools: Vec<PoolRow>,
    /// When it was created (`YYYY-MM-DD HH:MM` UTC; empty when the controller does not say).
    pub created: String,
    /// Who created it (`user@domain`; empty when the controller does not say).
    pub created_by: String,
}

impl From<KlusterSummary> for KlusterRow {
    fn from(k: KlusterSummary) -> Self {
        let pools = k
            .spec
            .node_pools
            .into_iter()
            .map(|p| {
                let info = k.status.node_pools.iter().find(|i| i.name == p.name);
                PoolRow {
                    running: info.map(|i| i.running),
                    healthy: info.map_or(0, |i| i.healthy),
                    schedulable: info.map_or(0, |i| i.schedulable),
                    health_unknown: info.is_some_and(|i| i.health_unknown),
                    name: p.name,
                    size: p.size,
                }
            })
            .collect();
        let created = k.metadata.creation_timestamp.get(..16).unwrap_or_default();
        KlusterRow {
            created: created.replacen('T', " ", 1),
            created_by: k.metadata.created_by,
            version: if k.status.version.is_empty() {
                k.spec.version
            } else {
                k.status.version
            },
            name: k.name,
            phase: k.status.phase,
            pools,
        }
    }
}

impl From<kluster::Kluster> for KlusterRow {
    fn from(k: kluster::Kluster) -> Self {
        KlusterSummary::from(k).into()
    }
}

/// One page of the list.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KlusterPage {
    /// The page's klusters, in order (see [`KlusterPage::into_rows`]).
    pub items: PageItems,
    /// How many klusters match the search and filter (all pages).
    pub total: usize,
    /// This page's number, from 1.
    pub page: usize,
    /// How many pages there are (at least 1).
    pub pages: usize,
}

impl KlusterPage {
    /// The page's rows, in order.
    pub fn into_rows(self) -> Vec<KlusterRow> {
        match self.items {
            PageItems::Decoded(items) => items.into_iter().map(Into::into).collect(),
            // Only made for an answer to the browser, which reads it back as `Decoded`.
            // Read here instead, an answer that does not decode is no rows.
            #[cfg(feature = "ssr")]
            PageItems::Passed(a) => a
                .decode::<Vec<KlusterSummary>>()
                .unwrap_or_default()
                .into_iter()
                .map(Into::into)
                .collect(),
        }
    }
}

/// A page's klusters as list summaries (the browser makes the rows). On the wire a JSON
/// array of [`KlusterSummary`]; always read back as [`PageItems::Decoded`].
#[derive(Clone, Debug, PartialEq)]
pub enum PageItems {
    /// Decoded (to render them, or searched and paged here).
    Decoded(Vec<KlusterSummary>),
    /// The controller's answer itself, checked to be a well-formed JSON array but not
    /// decoded: what a server function called by the browser answers, so the page is not
    /// decoded and encoded again on its way through.
    #[cfg(feature = "ssr")]
    Passed(kubernikus_client::JsonArray),
}

impl Default for PageItems {
    fn default() -> Self {
        PageItems::Decoded(Vec::new())
    }
}

impl Serialize for PageItems {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PageItems::Decoded(items) => items.serialize(s),
            #[cfg(feature = "ssr")]
            PageItems::Passed(a) => a.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PageItems {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<KlusterSummary>::deserialize(d).map(PageItems::Decoded)
    }
}

/// The list's URL parameters as the browser sent them (`?q=&phase=&sort=&page=`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListParams {
    /// Search text.
    pub q: String,
    /// Phase filter (empty: all).
    pub phase: String,
    /// Sort (`name`, `-created`, …; empty: by name).
    pub sort: String,
    /// Page number from 1 (0 and junk: the first).
    pub page: usize,
}

impl ListParams {
    /// The query these parameters ask for (without the page), or the problem in words.
    pub fn query(&self) -> Result<ListQuery, String> {
        ListQuery::from_pairs([
            ("q", self.q.as_str()),
            ("phase", self.phase.as_str()),
            ("sort", self.sort.as_str()),
        ])
    }

    /// The list's URL with these parameters but `page` (only what differs from the default).
    pub fn href(&self, page: usize) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        for (k, v) in [("q", &self.q), ("phase", &self.phase), ("sort", &self.sort)] {
            if !v.trim().is_empty() {
                pairs.push((k, v.trim().to_string()));
            }
        }
        if page > 1 {
            pairs.push(("page", page.to_string()));
        }
        if pairs.is_empty() {
            return "/".into();
        }
        let query: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect();
        format!("/?{}", query.join("&"))
    }

    /// The same parameters sorted by `key`: ascending, or descending when already ascending
    /// by it; back to the first page.
    pub fn sorted_by(&self, key: &str) -> ListParams {
        let sort = if self.sort == key || (self.sort.is_empty() && key == "name") {
            format!("-{key}")
        } else {
            key.to_string()
        };
        ListParams {
            sort: if sort == "name" { String::new() } else { sort },
            page: 1,
            ..self.clone()
        }
    }
}

/// Percent-encodes a URL query value (everything but unreserved characters).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Page `page` (from 1, clamped to the last) of what `query` selects from a list the
/// controller answered whole.
pub fn page_of_all(query: &ListQuery, all: Vec<kluster::Kluster>, page: usize) -> KlusterPage {
    let total = all.iter().filter(|k| query.matches(k)).count();
    let pages = total.div_ceil(PER_PAGE).max(1);
    let page = page.clamp(1, pages);
    let paged = ListQuery {
        limit: Some(PER_PAGE),
        offset: (page - 1) * PER_PAGE,
        ..query.clone()
    };
    let listed = paged.apply(all);
    let items = listed.items.into_iter().map(KlusterSummary::from).collect();
    rows_page(PageItems::Decoded(items), listed.total, page)
}

/// Page `page` of `total` matches, holding `items`.
pub fn rows_page(items: PageItems, total: usize, page: usize) -> KlusterPage {
    KlusterPage {
        pages: total.div_ceil(PER_PAGE).max(1),
        total,
        items,
        page,
    }
}

#[cfg(test)]
mod tests;
