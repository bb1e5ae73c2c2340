//! Benchmark: `GET /api/v1/clusters` with 1,000 klusters in the project, over HTTP on
//! loopback against a real SQLite store, with a real (cached) Keystone token. Prints p50/p99
//! latency and the process's RSS, and two baselines measured in the same run with their
//! ratios: the same bytes served as a static body by a bare axum route (the HTTP floor),
//! and the direct call (the store's list and its JSON, without HTTP or authentication).
//!
//! Run: `scripts/keystone.sh start && cargo bench -p controller --bench list_clusters`
//! (uses MC_TEST_KEYSTONE_URL, default http://127.0.0.1:5000/v3).

use std::time::{Duration, Instant};

use controller::api::ApiSettings;
use controller::auth::ServiceCredentials;
use controller::pki::SealKey;
use controller::run::{start, ControllerConfig};
use controller::store::{CaRecord, Store, StoredKluster};

const KLUSTERS: usize = 1_000;
const REQUESTS: usize = 200;

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .map(str::to_owned)
        })
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

/// The `p` quantile of `samples` in ms (sorts them).
fn pct(samples: &mut [Duration], p: f64) -> f64 {
    samples.sort();
    samples[((samples.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3
}

#[tokio::main]
async fn main() {
    let ks =
        std::env::var("MC_TEST_KEYSTONE_URL").unwrap_or_else(|_| "http://127.0.0.1:5000/v3".into());
    let dir = std::env::temp_dir().join(format!("mc-bench-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let db = dir.join("controller.db");

    let client = keystone::Client::new(&ks).expect("keystone url");
    let token = client
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
        .expect("alice signs in: is the local Keystone running?");
    let account = token.project.clone().expect("scoped").id;

    let store = Store::open(&db).await.expect("store");
    let sample: kluster::Kluster = serde_json::from_str(
        r#"{"name":"x","spec":{"serviceCIDR":"198.18.128.0/17","clusterCIDR":"100.100.0.0/16","version":"1.32.4",
        "nodePools":[{"name":"small","size":3,"flavor":"m1.small","image":"flatcar-stable-amd64","availabilityZone":"az-a"}]}}"#,
    )
    .expect("sample");
    let ca = CaRecord {
        cert_pem: "x".into(),
        key_sealed: vec![0; 64],
    };
    for i in 0..KLUSTERS {
        let mut k = sample.clone();
        k.name = format!("k{i:04}");
        let s = StoredKluster {
            kluster: k,
            creator: "alice/demo".into(),
            termination_protected: false,
        };
        store.insert(&account, &s, &ca).await.expect("insert");
    }
    drop(store);

    let config = ControllerConfig {
        listen: "127.0.0.1:0".parse().expect("addr"),
        keystone_url: ks,
        service: ServiceCredentials {
            user_name: "mission-control".into(),
            password: "mission-control-secret".into(),
            user_domain: "Default".into(),
            project: "service".into(),
            project_domain: "Default".into(),
        },
        database: controller::store::Database::Sqlite(db.clone()),
        policy_file: None,
        token_cache: Duration::from_secs(300),
        settings: ApiSettings::default(),
        ca_key: SealKey([1; 32]),
        // Everything is Pending and no phase ends during the run: the reconciler only reads.
        cloud: Default::default(),
        tuning: controller::run::Tuning {
            reconcile_every: Duration::from_secs(3600),
            ..controller::run::Tuning::scaled(Duration::from_secs(3600))
        },
    };
    let running = start(config, std::future::pending())
        .await
        .expect("controller starts");
    let url = format!("http://{}/api/v1/clusters", running.addr);
    let http = reqwest::Client::new();
    let mut samples = Vec::with_capacity(REQUESTS);
    for i in 0..REQUESTS + 10 {
        let t = Instant::now();
        let r = http
            .get(&url)
            .header("x-auth-token", token.secret.expose())
            .send()
            .await
            .expect("request");
        assert_eq!(r.status(), 200);
        let body = r.bytes().await.expect("body");
        if i == 0 {
            let n = serde_json::from_slice::<Vec<serde_json::Value>>(&body)
                .expect("json")
                .len();
            assert_eq!(n, KLUSTERS);
            println!("response size {} KiB for {n} klusters", body.len() / 1024);
        }
        if i >= 10 {
            samples.push(t.elapsed());
        }
    }
    let (p50, p99) = (pct(&mut samples, 0.5), pct(&mut samples, 0.99));
    println!(
        "GET /api/v1/clusters, {KLUSTERS} klusters: n={REQUESTS} p50={p50:.2} ms p99={p99:.2} ms; RSS {} MiB",
        rss_kib() / 1024
    );

    // Baseline 1: the last answer's bytes as a static body, same client, same loopback.
    let body = http
        .get(&url)
        .header("x-auth-token", token.secret.expose())
        .send()
        .await
        .expect("request")
        .bytes()
        .await
        .expect("body");
    let size = body.len();
    let app = axum::Router::new().route(
        "/static",
        axum::routing::get(move || {
            let body = body.clone();
            async move { ([("content-type", "application/json")], body) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let static_url = format!("http://{}/static", listener.local_addr().expect("addr"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut fixed = Vec::with_capacity(REQUESTS);
    for i in 0..REQUESTS + 10 {
        let t = Instant::now();
        let got = http
            .get(&static_url)
            .send()
            .await
            .expect("static")
            .bytes()
            .await
            .expect("static body");
        assert_eq!(got.len(), size);
        if i >= 10 {
            fixed.push(t.elapsed());
        }
    }
    // Baseline 2: the direct call, what the handler does for the answer minus HTTP and auth.
    let store = Store::open(&db).await.expect("store");
    let mut direct = Vec::with_capacity(REQUESTS);
    for i in 0..REQUESTS + 10 {
        let t = Instant::now();
        let listed = store.list(&account).await.expect("list");
        let klusters: Vec<&kluster::Kluster> = listed.iter().map(|s| &s.kluster).collect();
        let json = serde_json::to_vec(&klusters).expect("json");
        assert_eq!(klusters.len(), KLUSTERS);
        std::hint::black_box(json);
        if i >= 10 {
            direct.push(t.elapsed());
        }
    }
    let (f50, d50) = (pct(&mut fixed, 0.5), pct(&mut direct, 0.5));
    println!(
        "baseline, a static body of the same {} KiB over HTTP: p50={f50:.2} ms p99={:.2} ms",
        size / 1024,
        pct(&mut fixed, 0.99)
    );
    println!(
        "baseline, the direct call (store list + JSON): p50={d50:.2} ms p99={:.2} ms",
        pct(&mut direct, 0.99)
    );
    println!(
        "ratio (p50): the API / the static body = {:.2}x; the API / the direct call = {:.2}x",
        p50 / f50,
        p50 / d50
    );
    let _ = std::fs::remove_dir_all(dir);
}
