//! The simulated cloud's state per project (JSON), so that every controller replica sees the
//! same servers, and the cloud outlives the processes as a real one does.

use super::{Store, StoreError};

impl Store {
    /// Runs `change` on project `project`'s simulated state (`""` when the project has none
    /// yet) inside a write transaction that holds the project's row: concurrent callers, in
    /// this process or another replica, take turns. `change` returns the state to store
    /// (`None`: unchanged) and its answer.
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "sim_update"))]
    pub async fn sim_update<R>(
        &self,
        project: &str,
        change: impl FnOnce(&str) -> (Option<String>, R),
    ) -> Result<R, StoreError> {
        self.check_ready()?;
        let mut tx = self.pool.begin().await?;
        // A no-op write first: it takes the write lock (SQLite) or the row lock
        // (PostgreSQL) before the state is read, so the read cannot go stale.
        let current: String = sqlx::query_scalar(
            "INSERT INTO sim_projects (project_id, state) VALUES ($1, '')
             ON CONFLICT (project_id) DO UPDATE SET state = sim_projects.state
             RETURNING state",
        )
        .bind(project)
        .fetch_one(&mut *tx)
        .await?;
        let (next, answer) = change(&current);
        if let Some(next) = next {
            sqlx::query("UPDATE sim_projects SET state = $2 WHERE project_id = $1")
                .bind(project)
                .bind(next)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(answer)
    }

    /// Whether any project has simulated state (a saved file is imported only into an
    /// empty table).
    #[tracing::instrument(name = "store", skip_all, fields(store.operation = "sim_is_empty"))]
    pub async fn sim_is_empty(&self) -> Result<bool, StoreError> {
        self.check_ready()?;
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sim_projects")
            .fetch_one(&self.pool)
            .await?;
        Ok(n == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;

    #[tokio::test]
    async fn project_state_is_read_and_replaced_in_turns() {
        let s = Store::open(&db_path("sim")).await.unwrap();
        assert!(s.sim_is_empty().await.unwrap());
        let seen = s
            .sim_update("p", |cur| (Some(format!("{cur}a")), cur.to_string()))
            .await
            .unwrap();
        assert_eq!(seen, "");
        // Many writers at once: every change lands (none is lost to a stale read).
        let mut all = Vec::new();
        for _ in 0..20 {
            let s = s.clone();
            all.push(tokio::spawn(async move {
                s.sim_update("p", |cur| (Some(format!("{cur}a")), ()))
                    .await
                    .unwrap()
            }));
        }
        for t in all {
            t.await.unwrap();
        }
        let len = s.sim_update("p", |cur| (None, cur.len())).await.unwrap();
        assert_eq!(len, 21);
        assert!(!s.sim_is_empty().await.unwrap());
    }
}
