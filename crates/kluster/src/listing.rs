//! Extension (not in the Kubernikus spec): the kluster list's query — name search, phase
//! filter, sort and a page — as `?q=&phase=&sort=&limit=&offset=`, and `fields=summary` for
//! klusters answered as [`crate::summary::KlusterSummary`]. Our controller applies it
//! to `GET /api/v1/clusters` and says so with an `X-Total-Count` header; a real Kubernikus
//! ignores the parameters and answers every kluster, and the dashboard then applies the same
//! query itself. One implementation for both, so both answer alike.

use std::cmp::Ordering;

use crate::{Kluster, KlusterPhase};

/// The longest search text (a kluster name has at most 20 characters).
pub const MAX_SEARCH: usize = 64;
/// The most klusters one answer may hold.
pub const MAX_LIMIT: usize = 500;
/// The header in which the controller reports how many klusters matched before paging.
pub const TOTAL_HEADER: &str = "x-total-count";

/// What the list is sorted by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortKey {
    /// The kluster's name.
    #[default]
    Name,
    /// The phase, in lifecycle order (Pending, Creating, Running, Upgrading, Terminating).
    Phase,
    /// When it was created (`metadata.creationTimestamp`, an extension; klusters without it first).
    Created,
    /// The wanted number of nodes, all pools together.
    Nodes,
}

impl SortKey {
    /// The key as written in a URL (`name`, `phase`, `created`, `nodes`).
    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Phase => "phase",
            SortKey::Created => "created",
            SortKey::Nodes => "nodes",
        }
    }
}

/// Every phase, in lifecycle order.
pub const PHASES: [KlusterPhase; 5] = [
    KlusterPhase::Pending,
    KlusterPhase::Creating,
    KlusterPhase::Running,
    KlusterPhase::Upgrading,
    KlusterPhase::Terminating,
];

impl KlusterPhase {
    /// The phase named `s` (`Running`, case-insensitive).
    pub fn parse(s: &str) -> Option<KlusterPhase> {
        PHASES
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s))
    }

    /// Its place in the lifecycle (Pending 0 … Terminating 4).
    pub fn rank(self) -> usize {
        PHASES.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// A query on a project's klusters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// Part of the name (case-insensitive; empty: every kluster).
    pub q: String,
    /// Only klusters in this phase.
    pub phase: Option<KlusterPhase>,
    /// Sort key.
    pub sort: SortKey,
    /// Largest first (`sort=-name`).
    pub descending: bool,
    /// At most this many klusters (`None`: all).
    pub limit: Option<usize>,
    /// Skip this many matching klusters first.
    pub offset: usize,
    /// Answer each kluster as a [`crate::summary::KlusterSummary`] (`fields=summary`).
    pub summary: bool,
}

/// The klusters a query selected, and how many matched before paging.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed {
    /// How many klusters matched the search and filter.
    pub total: usize,
    /// The page of them, sorted.
    pub items: Vec<Kluster>,
}

impl ListQuery {
    /// Reads the query from URL parameters (`q`, `phase`, `sort`, `limit`, `offset`, `fields`; others
    /// are ignored; empty values mean the default). A bad value is an error a person reads.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<ListQuery, String> {
        let mut out = ListQuery::default();
        for (key, value) in pairs {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            match key {
                "q" => out.q = value.to_lowercase(),
                "phase" => {
                    out.phase = Some(KlusterPhase::parse(value).ok_or_else(|| {
                        format!(
                            "Unknown phase {:?}: use one of Pending, Creating, Running, Upgrading, Terminating.",
                            short(value)
                        )
                    })?)
                }
                "sort" => {
                    let (desc, name) = match value.strip_prefix('-') {
                        Some(rest) => (true, rest),
                        None => (false, value),
                    };
                    out.sort = [SortKey::Name, SortKey::Phase, SortKey::Created, SortKey::Nodes]
                        .into_iter()
                        .find(|k| k.as_str() == name)
                        .ok_or_else(|| {
                            format!(
                                "Unknown sort {:?}: use name, phase, created or nodes (a leading - sorts largest first).",
                                short(value)
                            )
                        })?;
                    out.descending = desc;
                }
                "limit" => {
                    let n = number(key, value)?;
                    if n == 0 || n > MAX_LIMIT {
                        return Err(format!("limit is 1 to {MAX_LIMIT}."));
                    }
                    out.limit = Some(n);
                }
                "offset" => out.offset = number(key, value)?,
                "fields" => {
                    if value != "summary" {
                        return Err(format!(
                            "Unknown fields {:?}: use summary, or leave it out for whole klusters.",
                            short(value)
                        ));
                    }
                    out.summary = true;
                }
                _ => {}
            }
        }
        if out.q.chars().count() > MAX_SEARCH {
            return Err(format!(
                "The search is at most {MAX_SEARCH} characters (a kluster name has at most 20)."
            ));
        }
        Ok(out)
    }

    /// The query as URL parameters, only those that differ from the default.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if !self.q.is_empty() {
            out.push(("q", self.q.clone()));
        }
        if let Some(p) = self.phase {
            out.push(("phase", p.as_str().to_string()));
        }
        if self.sort != SortKey::Name || self.descending {
            out.push(("sort", self.sort_param()));
        }
        if let Some(l) = self.limit {
            out.push(("limit", l.to_string()));
        }
        if self.offset > 0 {
            out.push(("offset", self.offset.to_string()));
        }
        if self.summary {
            out.push(("fields", "summary".to_string()));
        }
        out
    }

    /// The `sort` parameter: the key, with a leading `-` when descending.
    pub fn sort_param(&self) -> String {
        format!(
            "{}{}",
            if self.descending { "-" } else { "" },
            self.sort.as_str()
        )
    }

    /// Whether `k` matches the search and the phase filter.
    pub fn matches(&self, k: &Kluster) -> bool {
        self.phase.is_none_or(|p| k.status.phase == p)
            && (self.q.is_empty() || k.name.to_lowercase().contains(&self.q))
    }

    /// Orders two klusters by the sort key (then by name).
    pub fn compare(&self, a: &Kluster, b: &Kluster) -> Ordering {
        let primary = match self.sort {
            SortKey::Name => Ordering::Equal,
            SortKey::Phase => a.status.phase.rank().cmp(&b.status.phase.rank()),
            SortKey::Created => created(a).cmp(created(b)),
            SortKey::Nodes => nodes(a).cmp(&nodes(b)),
        };
        let o = primary.then_with(|| a.name.cmp(&b.name));
        if self.descending {
            o.reverse()
        } else {
            o
        }
    }

    /// Searches, filters, sorts and pages `all`.
    pub fn apply(&self, all: Vec<Kluster>) -> Listed {
        let mut items: Vec<Kluster> = all.into_iter().filter(|k| self.matches(k)).collect();
        let total = items.len();
        items.sort_by(|a, b| self.compare(a, b));
        let items = items
            .into_iter()
            .skip(self.offset)
            .take(self.limit.unwrap_or(usize::MAX))
            .collect();
        Listed { total, items }
    }
}

/// The wanted nodes of all pools.
pub fn nodes(k: &Kluster) -> i64 {
    k.spec.node_pools.iter().map(|p| p.size.max(0)).sum()
}

fn number(key: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{key} is a whole number, not {:?}.", short(value)))
}

/// At most 30 characters of what someone sent, for a message.
fn short(s: &str) -> String {
    s.chars().take(30).collect()
}

/// When `k` was created (RFC 3339; empty from a controller that does not say).
fn created(k: &Kluster) -> &str {
    k.metadata
        .as_ref()
        .map_or("", |m| m.creation_timestamp.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(name: &str, phase: KlusterPhase, created: &str, size: i64) -> Kluster {
        let mut k = Kluster {
            name: name.into(),
            ..Default::default()
        };
        k.status.phase = phase;
        k.metadata = Some(crate::KlusterMetadata {
            creation_timestamp: created.into(),
            ..Default::default()
        });
        k.spec.node_pools.push(crate::NodePool {
            name: "a".into(),
            size,
            ..Default::default()
        });
        k
    }

    fn sample() -> Vec<Kluster> {
        use KlusterPhase::*;
        vec![
            k("web", Running, "2026-01-03T00:00:00Z", 3),
            k("db", Creating, "2026-01-01T00:00:00Z", 5),
            k("web-2", Pending, "2026-01-02T00:00:00Z", 1),
            k("batch", Running, "2026-01-04T00:00:00Z", 5),
        ]
    }

    fn names(l: &Listed) -> Vec<&str> {
        l.items.iter().map(|k| k.name.as_str()).collect()
    }

    fn query(s: &[(&str, &str)]) -> ListQuery {
        ListQuery::from_pairs(s.iter().copied()).unwrap()
    }

    #[test]
    fn search_filter_sort_and_page() {
        let all = sample();
        assert_eq!(
            names(&query(&[]).apply(all.clone())),
            ["batch", "db", "web", "web-2"]
        );
        let web = query(&[("q", "WEB")]).apply(all.clone());
        assert_eq!((web.total, names(&web)), (2, vec!["web", "web-2"]));
        let running = query(&[("phase", "running")]).apply(all.clone());
        assert_eq!(names(&running), ["batch", "web"]);
        let by_phase = query(&[("sort", "phase")]).apply(all.clone());
        assert_eq!(names(&by_phase), ["web-2", "db", "batch", "web"]);
        let newest = query(&[("sort", "-created")]).apply(all.clone());
        assert_eq!(names(&newest), ["batch", "web", "web-2", "db"]);
        let nodes = query(&[("sort", "nodes")]).apply(all.clone());
        assert_eq!(names(&nodes), ["web-2", "web", "batch", "db"]);
        let page = query(&[("sort", "-name"), ("limit", "2"), ("offset", "1")]).apply(all);
        assert_eq!((page.total, names(&page)), (4, vec!["web", "db"]));
    }

    #[test]
    fn bad_parameters_are_refused_in_words_and_round_trip() {
        let e = |s: &[(&str, &str)]| ListQuery::from_pairs(s.iter().copied()).unwrap_err();
        assert!(e(&[("phase", "Sleeping")]).contains("Unknown phase"));
        assert!(e(&[("sort", "size")]).contains("Unknown sort"));
        assert!(e(&[("limit", "0")]).contains("1 to 500"));
        assert!(e(&[("limit", "501")]).contains("1 to 500"));
        assert!(e(&[("offset", "-1")]).contains("whole number"));
        assert!(e(&[("q", &"x".repeat(65))]).contains("at most 64"));
        assert!(e(&[("fields", "all")]).contains("use summary"));
        let q = query(&[
            ("q", "a"),
            ("phase", "Running"),
            ("sort", "-nodes"),
            ("limit", "5"),
            ("fields", "summary"),
        ]);
        assert!(q.summary);
        let pairs = q.to_pairs();
        let back = ListQuery::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str()))).unwrap();
        assert_eq!(back, q);
        assert!(query(&[("sort", "name")]).to_pairs().is_empty());
    }
}
