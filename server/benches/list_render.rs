//! Benchmark: the server's time to render the kluster list (`GET /`, signed in) with 2,000
//! klusters in the project: session check, controller call over loopback HTTP with the
//! user's token, SSR of the table. Prints p50/p90/p99 and the page size.
//!
//! Run: `scripts/keystone.sh start && source .state/keystone-5000/demo.env &&
//!       cargo bench -p server --bench list_render`.

use std::time::{Duration, Instant};

use server::config::Settings;

const KLUSTERS: usize = 2_000;
const N: usize = 50;

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

#[tokio::main]
async fn main() {
    let keystone_url = std::env::var("MC_TEST_KEYSTONE_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:5000/v3".to_string());
    let data_dir = std::env::temp_dir().join(format!("mc-bench-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data_dir);
    std::fs::create_dir_all(&data_dir).expect("data dir");

    // The demo project's id, then 2,000 running klusters in the controller's store.
    let token = keystone::Client::new(&keystone_url)
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
        .expect("alice signs in: is the local Keystone running?");
    let project = token.project.expect("project-scoped").id;
    let store = controller::store::Store::open(&data_dir.join("controller.db"))
        .await
        .expect("store");
    for i in 0..KLUSTERS {
        let mut k: kluster::Kluster = serde_json::from_value(serde_json::json!({
            "name": format!("k{i:04}"),
            "spec": {"nodePools": [
                {"name": "a", "size": 0, "flavor": "m1.small", "availabilityZone": "az-a"},
                {"name": "b", "size": 0, "flavor": "m1.large", "availabilityZone": "az-b"}
            ]}
        }))
        .expect("kluster");
        kluster::defaults::fill(&mut k, "1.32.4");
        k.status.phase = kluster::KlusterPhase::Running;
        k.status.version = "1.32.4".into();
        let stored = controller::store::StoredKluster {
            kluster: k,
            creator: "bench/demo".into(),
            termination_protected: false,
        };
        let ca = controller::store::CaRecord {
            cert_pem: String::new(),
            key_sealed: Vec::new(),
        };
        store.insert(&project, &stored, &ca).await.expect("insert");
    }
    drop(store);

    let settings = Settings {
        site_addr: Some("127.0.0.1:0".parse().expect("literal address")),
        public_origin: Some("http://mc.bench".into()),
        keystone_url: Some(keystone_url),
        data_dir: Some(data_dir.clone()),
        login_failures_per_client: Some(usize::MAX),
        controller_service_password: Some("mission-control-secret".into()),
        ..Default::default()
    };
    let config = server::Config::resolve(settings).expect("bench config");
    let running = server::start(config, std::future::pending())
        .await
        .expect("server starts");
    let base = format!("http://{}", running.addr);
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let form = [
        ("user_name", "alice"),
        ("password", "alice-secret"),
        ("user_domain", "demo"),
        ("project", "demo"),
    ];
    let r = client
        .post(format!("{base}/api/login"))
        .header("sec-fetch-site", "same-origin")
        .header("accept", "application/json")
        .form(&form)
        .send()
        .await
        .expect("login request");
    assert_eq!(r.status(), 200, "login failed");

    let mut samples = Vec::with_capacity(N);
    let mut size = 0;
    for i in 0..N + 5 {
        let t = Instant::now();
        let r = client
            .get(format!("{base}/"))
            .send()
            .await
            .expect("page request");
        assert_eq!(r.status(), 200);
        let body = r.text().await.expect("page body");
        let took = t.elapsed();
        assert!(body.contains("k1999"), "all klusters rendered");
        size = body.len();
        if i >= 5 {
            samples.push(took);
        }
    }
    // The same data without rendering: the server function alone (controller call included).
    let mut data = Vec::with_capacity(N);
    for _ in 0..N {
        let t = Instant::now();
        let r = client
            .post(format!("{base}/api/list_klusters"))
            .header("sec-fetch-site", "same-origin")
            .header("accept", "application/json")
            .send()
            .await
            .expect("server fn request");
        assert_eq!(r.status(), 200);
        let _ = r.bytes().await.expect("body");
        data.push(t.elapsed());
    }
    data.sort();
    println!(
        "list_klusters server fn alone:        p50={:.1} ms p99={:.1} ms",
        percentile(&data, 0.5),
        percentile(&data, 0.99)
    );
    samples.sort();
    println!(
        "kluster list render, {KLUSTERS} klusters: n={N} p50={:.1} ms p90={:.1} ms p99={:.1} ms; page {} KB",
        percentile(&samples, 0.5),
        percentile(&samples, 0.9),
        percentile(&samples, 0.99),
        size / 1024
    );
    let _ = std::fs::remove_dir_all(data_dir);
}
