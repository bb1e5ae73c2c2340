//! PostgreSQL for the tests: a fresh schema per test in `MC_TEST_POSTGRES_URL` (started by
//! `scripts/services`, which scripts/test and `scripts/services run` use).

use controller::store::Database;

/// A fresh schema in the test database, as a URL whose connections use it.
pub async fn fresh_database(tag: &str) -> Database {
    let base = std::env::var("MC_TEST_POSTGRES_URL").expect(
        "MC_TEST_POSTGRES_URL is not set: run the suite with scripts/test, which starts a PostgreSQL",
    );
    let schema = format!("t_{tag}_{}_{}", std::process::id(), rand_suffix());
    let pool = sqlx::PgPool::connect(&base)
        .await
        .expect("test PostgreSQL answers");
    sqlx::query(&format!("CREATE SCHEMA {schema}"))
        .execute(&pool)
        .await
        .unwrap();
    let sep = if base.contains('?') { '&' } else { '?' };
    Database::Postgres(format!("{base}{sep}options=-c%20search_path%3D{schema}"))
}

fn rand_suffix() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish() as u32
}
