//! Benchmark: the controller's API on SQLite and on PostgreSQL, measured in one run:
//! `POST /api/v1/clusters` (create) and `GET /api/v1/clusters` (list, 200 klusters), over
//! HTTP on loopback with a real (cached) Keystone token. Prints p50/p90 of each and the
//! PostgreSQL/SQLite ratio.
//!
//! Run: `cargo bench -p controller --bench engines` with `MC_TEST_KEYSTONE_URL` and
//! `MC_TEST_POSTGRES_URL` set (scripts/keystone.sh and scripts/postgres.sh start them).

use std::time::{Duration, Instant};

use controller::run::{start, ControllerConfig, Tuning};
use controller::store::Database;

const KLUSTERS: usize = 200;
const LISTS: usize = 200;

fn pct(samples: &mut [Duration], p: f64) -> f64 {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3
}

/// (create p50, create p90, list p50, list p90) in ms against a controller on `db`.
async fn measure(db: Database, ks: &str, token: &str, dir: &std::path::Path) -> [f64; 4] {
    let config = ControllerConfig {
        listen: "127.0.0.1:0".parse().expect("addr"),
        keystone_url: ks.to_string(),
        service: controller::auth::ServiceCredentials {
            user_name: "mission-control".into(),
            password: "mission-control-secret".into(),
            user_domain: "Default".into(),
            project: "service".into(),
            project_domain: "Default".into(),
        },
        database: db,
        policy_file: None,
        token_cache: Duration::from_secs(300),
        settings: Default::default(),
        ca_key: controller::pki::SealKey([1; 32]),
        // No phase ends during the run: the reconciler only reads.
        cloud: Default::default(),
        tuning: Tuning {
            reconcile_every: Duration::from_secs(3600),
            ..Tuning::scaled(Duration::from_secs(3600))
        },
    };
    let _ = dir;
    let running = start(config, std::future::pending())
        .await
        .expect("controller starts");
    let url = format!("http://{}/api/v1/clusters", running.addr);
    let http = reqwest::Client::new();
    let mut creates = Vec::new();
    for i in 0..KLUSTERS {
        // Each on its own pod range: no clash checks fail.
        let body = format!(
            r#"{{"name":"b{i:04}","spec":{{"clusterCIDR":"10.{}.{}.0/24","nodePools":[]}}}}"#,
            i / 250,
            i % 250
        );
        let t = Instant::now();
        let r = http
            .post(&url)
            .header("x-auth-token", token)
            .body(body)
            .send()
            .await
            .expect("create");
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap_or_default());
        creates.push(t.elapsed());
    }
    let mut lists = Vec::new();
    for i in 0..LISTS + 10 {
        let t = Instant::now();
        let r = http
            .get(&url)
            .header("x-auth-token", token)
            .send()
            .await
            .expect("list");
        assert_eq!(r.status(), 200);
        let n = r
            .json::<Vec<serde_json::Value>>()
            .await
            .expect("json")
            .len();
        assert_eq!(n, KLUSTERS);
        if i >= 10 {
            lists.push(t.elapsed());
        }
    }
    [
        pct(&mut creates, 0.5),
        pct(&mut creates, 0.9),
        pct(&mut lists, 0.5),
        pct(&mut lists, 0.9),
    ]
}

#[tokio::main]
async fn main() {
    let ks =
        std::env::var("MC_TEST_KEYSTONE_URL").unwrap_or_else(|_| "http://127.0.0.1:5000/v3".into());
    let pg = std::env::var("MC_TEST_POSTGRES_URL")
        .expect("MC_TEST_POSTGRES_URL: start one with scripts/postgres.sh (url)");
    let token = keystone::Client::new(&ks)
        .expect("keystone url")
        .password_auth(&keystone::PasswordAuth {
            user_name: "alice",
            password: "alice-secret",
            user_domain: "demo",
            project: keystone::ProjectRef::Name {
                name: "demo",
                domain: "demo",
            },
        })
        .await
        .expect("alice signs in: is the Keystone running?")
        .secret;
    let dir = std::env::temp_dir().join(format!("mc-bench-engines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    // A schema of its own in the PostgreSQL database.
    let schema = format!("bench_{}", std::process::id());
    let pool = sqlx::PgPool::connect(&pg)
        .await
        .expect("PostgreSQL answers");
    sqlx::query(&format!("CREATE SCHEMA {schema}"))
        .execute(&pool)
        .await
        .expect("schema");
    let sep = if pg.contains('?') { '&' } else { '?' };
    let pg_db = Database::Postgres(format!("{pg}{sep}options=-c%20search_path%3D{schema}"));
    let sqlite = measure(
        Database::Sqlite(dir.join("controller.db")),
        &ks,
        token.expose(),
        &dir,
    )
    .await;
    let postgres = measure(pg_db, &ks, token.expose(), &dir).await;
    for (name, i) in [("create", 0), ("list (200 klusters)", 2)] {
        println!(
            "{name:>20}: SQLite p50 {:.2} ms p90 {:.2} ms | PostgreSQL p50 {:.2} ms p90 {:.2} ms | ratio p50 {:.2}x",
            sqlite[i],
            sqlite[i + 1],
            postgres[i],
            postgres[i + 1],
            postgres[i] / sqlite[i]
        );
    }
    let _ = sqlx::query(&format!("DROP SCHEMA {schema} CASCADE"))
        .execute(&pool)
        .await;
    let _ = std::fs::remove_dir_all(dir);
}
