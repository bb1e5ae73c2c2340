//! The list query extension (`kluster::listing`) in SQL: the database searches, filters,
//! sorts and pages, so a page of 50 out of 2,000 klusters decodes 50 stored bodies (sorting
//! by nodes too: each row keeps its body's node count in a column).

use kluster::listing::{ListQuery, Listed, SortKey, PHASES};
use sqlx::Row;

use super::klusters::{decode, COLUMNS};
use super::{Store, StoreError};

/// Where [`COLUMNS`] ends: the index of the match count that follows them.
const TOTAL_COLUMN: usize = 6;

/// A query's `WHERE` clause and how many parameters it binds: the project (`$1`), then only
/// the filters it uses — part of the name (`LIKE`, escaped) and the phase. Without a search
/// or a phase filter no condition is added, so counting a project reads an index alone.
fn filter(query: &ListQuery) -> (String, usize) {
    let mut clause = String::from("project_id = $1");
    let mut n = 1;
    if !query.q.is_empty() {
        n += 1;
        clause.push_str(&format!(" AND name LIKE ${n} ESCAPE '\\'"));
    }
    if query.phase.is_some() {
        n += 1;
        clause.push_str(&format!(" AND phase = ${n}"));
    }
    (clause, n)
}

/// `sql` with the project and the filters [`filter`] put in it bound, in its order.
fn bound<'q>(
    sql: &'q str,
    project: &'q str,
    pattern: &'q str,
    query: &ListQuery,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    let mut q = sqlx::query(sql).bind(project);
    if !query.q.is_empty() {
        q = q.bind(pattern);
    }
    if let Some(phase) = query.phase {
        q = q.bind(phase.as_str());
    }
    q
}

impl Store {
    /// What `query` selects from the project's klusters, and
    /// how many matched before paging; the same answer as [`ListQuery::apply`] on
    /// [`Store::list`]. One statement answers both (the count is a sub-query), but for a
    /// page past the last, which is counted on its own.
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
        let (filter, n) = filter(query);
        let count = format!("SELECT COUNT(*) FROM klusters WHERE {filter}");
        let page = format!(
            "SELECT {COLUMNS}, ({count}) FROM klusters WHERE {filter}
             ORDER BY {key}name {dir} LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        );
        let limit = query.limit.map_or(i64::MAX, |l| l as i64);
        let rows = bound(&page, project, &pattern, query)
            .bind(limit)
            .bind(query.offset as i64)
            .fetch_all(&self.pool)
            .await?;
        let total: i64 = match rows.first() {
            Some(row) => row.try_get(TOTAL_COLUMN)?,
            None if query.offset == 0 && query.limit != Some(0) => 0,
            None => bound(&count, project, &pattern, query)
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

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use kluster::KlusterPhase;

    #[test]
    fn like_wildcards_are_taken_literally() {
        assert_eq!(super::escape_like(r"a%b_c\d"), r"a\%b\_c\\d");
    }

    fn with_pools(name: &str, sizes: &[i64]) -> crate::store::StoredKluster {
        let mut s = stored(name);
        let pools: Vec<_> = sizes
            .iter()
            .enumerate()
            .map(|(i, n)| serde_json::json!({"name": format!("p{i}"), "size": n, "flavor": "m1.small", "availabilityZone": "az-a"}))
            .collect();
        s.kluster.spec.node_pools =
            serde_json::from_value(serde_json::Value::Array(pools)).unwrap();
        s
    }

    /// Every sort (both ways), search, filter and page the database answers is what
    /// [`ListQuery::apply`] gives on the whole project.
    async fn agrees_with_apply(store: &Store) {
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
                        };
                        let db = store.list_query("p", &query).await.unwrap();
                        assert_eq!(db, query.apply(all.clone()), "{query:?}");
                    }
                }
            }
        }
    }

    #[tokio::test]
    async fn sorting_by_nodes_happens_in_the_database_and_follows_every_write() {
        let path = db_path("nodes-sort");
        let store = Store::open(&path).await.unwrap();
        for i in 0..24i64 {
            // Sizes with ties and a negative one (counted as 0), pools of 0 to 2.
            let sizes: Vec<i64> = (0..i % 3)
                .map(|p| (i * 7 + p * 3) % 5 - (i == 5) as i64 * 9)
                .collect();
            let mut k = with_pools(&format!("k{i:02}"), &sizes);
            if i % 4 == 0 {
                k.kluster.status.phase = KlusterPhase::Running;
            }
            store.insert("p", &k, &ca()).await.unwrap();
        }
        agrees_with_apply(&store).await;

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
        agrees_with_apply(&store).await;
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

        // A database from before the column: counted when migrated.
        drop(store);
        let old = Store::open(&path).await.unwrap();
        // Migration 11 added the column; what came after it goes too.
        for sql in [
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
