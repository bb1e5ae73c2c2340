//! The list query extension (`kluster::listing`) in SQL: the database searches, filters,
//! sorts and pages, so a page of 50 out of 2,000 klusters decodes 50 stored bodies. Sorting
//! by nodes (inside the stored body) loads the project's klusters and sorts in memory.

use kluster::listing::{ListQuery, Listed, SortKey, PHASES};
use sqlx::Row;

use super::klusters::{decode, COLUMNS};
use super::{Store, StoreError};

/// `WHERE` of a query: the project, part of the name (`LIKE`, escaped) and the phase.
const FILTER: &str = "project_id = $1 AND name LIKE $2 ESCAPE '\\' AND ($3 = '' OR phase = $3)";

impl Store {
    /// What `query` selects from the project's klusters, and
    /// how many matched before paging; the same answer as [`ListQuery::apply`] on
    /// [`Store::list`].
    pub async fn list_query(&self, project: &str, query: &ListQuery) -> Result<Listed, StoreError> {
        self.check_ready()?;
        if query.sort == SortKey::Nodes {
            let all = self.list(project).await?;
            return Ok(query.apply(all.into_iter().map(|s| s.kluster).collect()));
        }
        let pattern = format!("%{}%", escape_like(&query.q));
        let phase = query.phase.map(|p| p.as_str()).unwrap_or("");
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
            SortKey::Name | SortKey::Nodes => String::new(),
        };
        let total: i64 = sqlx::query(&format!("SELECT COUNT(*) FROM klusters WHERE {FILTER}"))
            .bind(project)
            .bind(&pattern)
            .bind(phase)
            .fetch_one(&self.pool)
            .await?
            .try_get(0)?;
        let limit = query.limit.map_or(i64::MAX, |l| l as i64);
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM klusters WHERE {FILTER}
             ORDER BY {key}name {dir} LIMIT $4 OFFSET $5"
        ))
        .bind(project)
        .bind(&pattern)
        .bind(phase)
        .bind(limit)
        .bind(query.offset as i64)
        .fetch_all(&self.pool)
        .await?;
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
    #[test]
    fn like_wildcards_are_taken_literally() {
        assert_eq!(super::escape_like(r"a%b_c\d"), r"a\%b\_c\\d");
    }
}
