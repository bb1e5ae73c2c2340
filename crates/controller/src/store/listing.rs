//! The list query extension (`kluster::listing`) in SQL: the database searches, filters,
//! sorts and pages, so a page of 50 out of 2,000 klusters decodes 50 stored bodies (sorting
//! by nodes too: each row keeps its body's node count in a column).

use kluster::listing::{ListQuery, Listed, SortKey, PHASES};
use sqlx::Row;

use super::klusters::{decode, COLUMNS};
use super::{Store, StoreError};

/// A query's `WHERE` clause and the values it binds, in their order: the project (`$1`),
/// then only the filters the query uses — part of the name (`pattern`, for `LIKE`, escaped)
/// and the phase. Without a search or a phase filter no condition is added, so counting a
/// project reads an index alone.
fn filter<'a>(project: &'a str, pattern: &'a str, query: &ListQuery) -> (String, Vec<&'a str>) {
    let mut clause = String::from("project_id = $1");
    let mut binds = vec![project];
    if !query.q.is_empty() {
        binds.push(pattern);
        clause.push_str(&format!(" AND name LIKE ${} ESCAPE '\\'", binds.len()));
    }
    if let Some(phase) = query.phase {
        binds.push(phase.as_str());
        clause.push_str(&format!(" AND phase = ${}", binds.len()));
    }
    (clause, binds)
}

/// `sql` with `binds` bound, in order.
fn bound<'q>(
    sql: &'q str,
    binds: &[&'q str],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    binds.iter().fold(sqlx::query(sql), |q, b| q.bind(*b))
}

impl Store {
    /// What `query` selects from the project's klusters, and
    /// how many matched before paging; the same answer as [`ListQuery::apply`] on
    /// [`Store::list`]. One statement answers both (the count is a sub-query), but for a
    /// page past the last, which is counted on its own.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "list_query"))]
    pub async fn list_query(&self, project: &str, query: &ListQuery) -> Result<Listed, StoreError> {
        self.check_ready()?;
        let pattern = format!("%{}%", escape_like(&query.q));
        let dir = if query.descending { "DESC" } else { "ASC" };
        let key = match query.sort {
            SortKey::Created => format!("created_at {dir}, "),
            SortKey::Phase => {
                let ranks: String = PHASES
                    .iter()
                    .enumerate()
                    .map(|(i, p)| format!(" WHEN '{}' THEN {i}", p.as_str()))
                    .collect();
                format!("CASE phase{ranks} ELSE 0 END {dir}, ")
            }
            SortKey::Nodes => format!("nodes {dir}, "),
            SortKey::Name => String::new(),
        };
        let (filter, binds) = filter(project, &pattern, query);
        let count = format!("SELECT COUNT(*) FROM klusters WHERE {filter}");
        let page = format!(
            "SELECT {COLUMNS}, ({count}) FROM klusters WHERE {filter}
             ORDER BY {key}name {dir} LIMIT ${} OFFSET ${}",
            binds.len() + 1,
            binds.len() + 2
        );
        let limit = query.limit.map_or(i64::MAX, |l| l as i64);
        let rows = bound(&page, &binds)
            .bind(limit)
            .bind(query.offset as i64)
            .fetch_all(&self.pool)
            .await?;
        let total: i64 = match rows.first() {
            // The count follows the columns.
            Some(row) => row.try_get(COLUMNS.split(',').count())?,
            None if query.offset == 0 && query.limit != Some(0) => 0,
            None => bound(&count, &binds)
                .fetch_one(&self.pool)
                .await?
                .try_get(0)?,
        };
        let items = rows
            .iter()
            .map(|r| decode(r).map(|s| s.kluster))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Listed {
            total: total.max(0) as usize,
            items,
        })
    }
}

/// `s` with `LIKE`'s wildcards and the escape character escaped (`\`).
fn escape_like(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(any(test, feature = "test-fixtures"))]
pub mod checks {
    //! One behaviour check of the list query in SQL, run on each engine (a test fixture,
    //! built for tests and with the `test-fixtures` feature only).
    use super::*;
    use crate::store::{CaRecord, StoredKluster};
    use kluster::KlusterPhase;

    fn with_pools(name: &str, sizes: &[i64]) -> StoredKluster {
        let pools: Vec<_> = sizes
            .iter()
            .enumerate()
            .map(|(i, n)| serde_json::json!({"name": format!("p{i}"), "size": n, "flavor": "m1.small", "availabilityZone": "az-a"}))
            .collect();
        let mut kluster = kluster::Kluster {
            name: name.into(),
            ..Default::default()
        };
        kluster.spec.node_pools = serde_json::from_value(serde_json::Value::Array(pools)).unwrap();
        StoredKluster {
            kluster,
            creator: "alice/demo".into(),
            termination_protected: false,
        }
    }

    /// Every sort (both ways), search, filter and page the database answers for project
    /// `p` is what [`ListQuery::apply`] gives on the whole project; panics on a mismatch.
    pub async fn agrees_with_apply(store: &Store) {
        let all: Vec<_> = store
            .list("p")
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.kluster)
            .collect();
        for sort in [
            SortKey::Name,
            SortKey::Phase,
            SortKey::Created,
            SortKey::Nodes,
        ] {
            for descending in [false, true] {
                for (q, phase) in [
                    ("", None),
                    ("k1", None),
                    ("", Some(KlusterPhase::Running)),
                    ("k1", Some(KlusterPhase::Running)),
                    ("no such kluster", None),
                ] {
                    for (limit, offset) in [
                        (None, 0),
                        (Some(0), 0),
                        (Some(5), 0),
                        (Some(5), 7),
                        (Some(5), 500),
                    ] {
                        let query = ListQuery {
                            q: q.into(),
                            phase,
                            sort,
                            descending,
                            limit,
                            offset,
                            summary: false,
                        };
                        let db = store.list_query("p", &query).await.unwrap();
                        assert_eq!(db, query.apply(all.clone()), "{query:?}");
                    }
                }
            }
        }
    }

    /// Fills project `p` of an empty store with 24 klusters (node counts with ties and a
    /// negative pool size, some Running), checks [`agrees_with_apply`], then again after a
    /// scale (`modify`) and a replaced body (`update`) changed node counts; panics on a
    /// mismatch.
    pub async fn list_queries_follow_writes(store: &Store) {
        let ca = CaRecord {
            cert_pem: String::new(),
            key_sealed: Vec::new(),
        };
        for i in 0..24i64 {
            // Sizes with ties and a negative one (counted as 0), pools of 0 to 2.
            let sizes: Vec<i64> = (0..i % 3)
                .map(|p| (i * 7 + p * 3) % 5 - (i == 5) as i64 * 9)
                .collect();
            let mut k = with_pools(&format!("k{i:02}"), &sizes);
            if i % 4 == 0 {
                k.kluster.status.phase = KlusterPhase::Running;
            }
            store.insert("p", &k, &ca).await.unwrap();
        }
        agrees_with_apply(store).await;

        // Writes change the count: a scale through `modify`, a replaced body through `update`.
        store
            .modify("p", "k04", |k| {
                k.spec.node_pools[0].size = 40;
                Ok::<_, ()>(())
            })
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let mut k = store.get("p", "k10").await.unwrap().unwrap().kluster;
        k.spec.node_pools.clear();
        store.update("p", &k).await.unwrap();
        agrees_with_apply(store).await;
        let top = ListQuery {
            sort: SortKey::Nodes,
            descending: true,
            limit: Some(1),
            ..Default::default()
        };
        let listed = store.list_query("p", &top).await.unwrap();
        assert_eq!(
            listed.items[0].name, "k04",
            "the scaled kluster has the most nodes"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::checks::*;
    use super::*;

    #[test]
    fn like_wildcards_are_taken_literally() {
        assert_eq!(super::escape_like(r"a%b_c\d"), r"a\%b\_c\\d");
    }

    #[tokio::test]
    async fn sorting_by_nodes_happens_in_the_database_and_follows_every_write() {
        let path = db_path("nodes-sort");
        let store = Store::open(&path).await.unwrap();
        list_queries_follow_writes(&store).await;

        // A database from before the column: counted when migrated.
        drop(store);
        let old = Store::open(&path).await.unwrap();
        // Migration 11 added the column; what came after it goes too.
        for sql in [
            "DROP TABLE kluster_users",
            "DROP INDEX klusters_by_phase",
            "DROP INDEX klusters_by_nodes",
            "ALTER TABLE klusters DROP COLUMN nodes",
            "PRAGMA user_version = 10",
        ] {
            sqlx::raw_sql(sql).execute(&old.pool).await.unwrap();
        }
        drop(old);
        let migrated = Store::open(&path).await.unwrap();
        agrees_with_apply(&migrated).await;
    }
}
