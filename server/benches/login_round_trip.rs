//! Benchmark: sign-in round trip (browser → server function → Keystone → session store →
//! answer) and the signed-in dashboard render, against the real local Keystone. Baseline
//! in the same run, one of each in turn: the same password sign-in sent to Keystone
//! directly (`POST /v3/auth/tokens`, project scope).
//!
//! Run: `scripts/keystone.sh start && source .state/keystone-5000/demo.env &&
//!       cargo bench -p server --bench login_round_trip` (prints p50/p90/p99).

use std::time::{Duration, Instant};

use server::config::Settings;

const N: usize = 200;

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// Prints a figure's percentiles; answers its p50 in ms.
fn report(name: &str, mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    println!(
        "{name:<28} n={:<4} p50={:>7.2} ms  p90={:>7.2} ms  p99={:>7.2} ms",
        samples.len(),
        percentile(&samples, 0.5),
        percentile(&samples, 0.9),
        percentile(&samples, 0.99)
    );
    percentile(&samples, 0.5)
}

#[tokio::main]
async fn main() {
    let keystone_url = std::env::var("MC_TEST_KEYSTONE_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:5000/v3".to_string());
    let tokens_url = format!("{}/auth/tokens", keystone_url.trim_end_matches('/'));
    let data_dir = std::env::temp_dir().join(format!("mc-bench-{}", std::process::id()));
    let settings = Settings {
        site_addr: Some("127.0.0.1:0".parse().expect("literal address")),
        public_origin: Some("http://mc.bench".into()),
        keystone_url: Some(keystone_url),
        data_dir: Some(data_dir.clone()),
        login_failures_per_client: Some(usize::MAX),
        controller: server::config::ControllerSettings {
            controller_service_password: Some("mission-control-secret".into()),
            ..Default::default()
        },
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

    let direct_body = serde_json::json!({"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": "alice", "domain": {"name": "demo"}, "password": "alice-secret"}}},
        "scope": {"project": {"name": "demo", "domain": {"name": "demo"}}}}});
    let direct = reqwest::Client::new();

    let mut logins = Vec::with_capacity(N);
    let mut pages = Vec::with_capacity(N);
    let mut keystone = Vec::with_capacity(N);
    for i in 0..N + 10 {
        let t = Instant::now();
        let r = client
            .post(format!("{base}/api/login"))
            .header("sec-fetch-site", "same-origin")
            .header("accept", "application/json")
            .form(&form)
            .send()
            .await
            .expect("login request");
        assert_eq!(
            r.status(),
            200,
            "login failed: is the local Keystone running?"
        );
        let login = t.elapsed();
        let t = Instant::now();
        let r = client
            .get(format!("{base}/"))
            .send()
            .await
            .expect("page request");
        assert_eq!(r.status(), 200);
        let body = r.text().await.expect("page body");
        assert!(body.contains("alice"));
        let page = t.elapsed();
        let t = Instant::now();
        let r = direct
            .post(&tokens_url)
            .json(&direct_body)
            .send()
            .await
            .expect("keystone request");
        assert_eq!(r.status(), 201, "Keystone's own sign-in");
        let ks = t.elapsed();
        if i >= 10 {
            logins.push(login);
            pages.push(page);
            keystone.push(ks);
        }
    }
    let login = report("sign-in round trip", logins);
    report("dashboard render (signed in)", pages);
    let ks = report("Keystone direct (same sign-in)", keystone);
    println!(
        "ratio (p50): sign-in round trip / Keystone direct = {:.2}x (the dashboard's own part {:.2} ms)",
        login / ks,
        login - ks
    );
    let _ = std::fs::remove_dir_all(data_dir);
}
