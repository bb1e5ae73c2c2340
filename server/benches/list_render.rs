//! Benchmark: the kluster list (`GET /`, signed in) with 2,000 klusters in the project: the
//! session check, the controller call over loopback HTTP with the user's token (the list
//! query extension: one page of 50), the SSR of the page. In the same run, the baselines
//! that make the figures comparable across machines: the same server serving a static file
//! of the same size as the page, and the controller answered directly (no dashboard) for
//! the server function's request, each measured interleaved with its figure (one request
//! of each in turn). Prints p50/p90/p99, sizes and the ratios. The seeded
//! klusters stay as seeded: the bench holds the reconcile lease, as another replica would,
//! so the embedded controller serves the API without reconciling (it would otherwise move
//! the klusters on for about half a minute, at a core's worth, changing the page from run
//! to run). `LIST_RECONCILE=1` lets it reconcile; measuring starts once it has settled.
//!
//! Run with a Keystone that knows the demo users (`MC_TEST_KEYSTONE_URL`, default the local
//! one of `scripts/keystone.sh start`): `cargo bench -p server --bench list_render`
//! (`LIST_COMPARE_BYTES=n` also times a static file of n bytes, e.g. an earlier page's size;
//! `LIST_N=n` makes n requests per measurement instead of 300; `LIST_PROFILE=sfn` only
//! makes the server function's request, in a loop, to profile it).

use std::time::{Duration, Instant};

use server::config::Settings;

const KLUSTERS: usize = 2_000;
const N: usize = 300;

/// Requests per measurement: `LIST_N`, else [`N`] (more, e.g. to profile one of them).
fn requests() -> usize {
    std::env::var("LIST_N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(N)
}
const WARM: usize = 10;

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// Times [`requests`] made by `call` (after `WARM` unmeasured ones); returns the sorted
/// samples and the size of the last answer.
async fn measure<F, Fut>(mut call: F) -> (Vec<Duration>, usize)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = usize>,
{
    let n = requests();
    let mut samples = Vec::with_capacity(n);
    let mut size = 0;
    for i in 0..n + WARM {
        let t = Instant::now();
        size = call().await;
        if i >= WARM {
            samples.push(t.elapsed());
        }
    }
    samples.sort();
    (samples, size)
}

/// Like [`measure`] for two calls at once, made in turn (`a`, then `b`, then `a` again):
/// a figure and its baseline meet the same machine. Returns each one's sorted samples and
/// the size of its last answer.
async fn measure_pair<A, FA, B, FB>(
    mut a: A,
    mut b: B,
) -> ((Vec<Duration>, usize), (Vec<Duration>, usize))
where
    A: FnMut() -> FA,
    FA: std::future::Future<Output = usize>,
    B: FnMut() -> FB,
    FB: std::future::Future<Output = usize>,
{
    let n = requests();
    let (mut sa, mut sb) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut size_a, mut size_b) = (0, 0);
    for i in 0..n + WARM {
        let t = Instant::now();
        size_a = a().await;
        let ta = t.elapsed();
        let t = Instant::now();
        size_b = b().await;
        if i >= WARM {
            sa.push(ta);
            sb.push(t.elapsed());
        }
    }
    sa.sort();
    sb.sort();
    ((sa, size_a), (sb, size_b))
}

fn line(what: &str, s: &[Duration], size: usize) -> f64 {
    let p50 = percentile(s, 0.5);
    println!(
        "{what:<44} p50={p50:6.2} ms p90={:6.2} ms p99={:6.2} ms  {:>7} bytes",
        percentile(s, 0.9),
        percentile(s, 0.99),
        size
    );
    p50
}

async fn get(client: &reqwest::Client, url: &str, token: Option<&str>, needle: &str) -> usize {
    let mut req = client.get(url);
    if let Some(t) = token {
        req = req.header("x-auth-token", t);
    }
    let r = req.send().await.expect("request");
    assert_eq!(r.status(), 200, "{url}");
    let body = r.text().await.expect("body");
    assert!(body.contains(needle), "{url} lacks {needle:?}");
    body.len()
}

/// Calls the server function at `url` as the app's own fetch does (same-origin, JSON); the
/// size of its answer, which must be 200.
async fn call_fn(client: &reqwest::Client, url: &str) -> usize {
    let r = client
        .post(url)
        .header("sec-fetch-site", "same-origin")
        .header("accept", "application/json")
        .send()
        .await
        .expect("server fn request");
    assert_eq!(r.status(), 200, "{url}");
    r.bytes().await.expect("body").len()
}

/// The longest wait for the controller to settle.
const SETTLE_MAX: u64 = 120;

/// This process's CPU seconds so far (user + system), from `/proc/self/stat`.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name's closing parenthesis: utime and stime are the 12th
    // and 13th, in clock ticks (100 a second on Linux).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Waits until this process (the server and its controller) uses under a tenth of a core
/// for three seconds running; the seconds waited, or `None` after [`SETTLE_MAX`] (or
/// without `/proc`).
async fn settle() -> Option<u64> {
    let start = Instant::now();
    let mut quiet = 0;
    while start.elapsed().as_secs() < SETTLE_MAX {
        let before = cpu_seconds()?;
        tokio::time::sleep(Duration::from_secs(1)).await;
        quiet = if cpu_seconds()? - before < 0.1 {
            quiet + 1
        } else {
            0
        };
        if quiet == 3 {
            return Some(start.elapsed().as_secs());
        }
    }
    None
}

#[tokio::main]
async fn main() {
    let keystone_url = std::env::var("MC_TEST_KEYSTONE_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:5000/v3".to_string());
    let data_dir = std::env::temp_dir().join(format!("mc-bench-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data_dir);
    let site = data_dir.join("site");
    std::fs::create_dir_all(site.join("pkg")).expect("site dir");

    // The demo project's id, then 2,000 klusters in the controller's store.
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
    let secret = token.secret.expose().to_string();
    let project = token.project.expect("project-scoped").id;
    let store = controller::store::Store::open(&data_dir.join("controller.db"))
        .await
        .expect("store");
    let phases = kluster::listing::PHASES;
    for i in 0..KLUSTERS {
        let mut k: kluster::Kluster = serde_json::from_value(serde_json::json!({
            "name": format!("k{i:04}"),
            "spec": {"nodePools": [
                {"name": "a", "size": i % 7, "flavor": "m1.small", "availabilityZone": "az-a"},
                {"name": "b", "size": 0, "flavor": "m1.large", "availabilityZone": "az-b"}
            ]}
        }))
        .expect("kluster");
        kluster::defaults::fill(&mut k, "1.32.4");
        k.status.phase = phases[(i / 3) % phases.len()];
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
    let reconcile = std::env::var_os("LIST_RECONCILE").is_some_and(|v| v == "1");
    if !reconcile {
        let held = store
            .try_lease(
                controller::reconcile::lease::NAME,
                "list_render (another replica)",
                Duration::from_secs(24 * 3600),
            )
            .await
            .expect("lease");
        assert!(held, "the bench takes the reconcile lease of a fresh store");
    }
    drop(store);

    let settings = Settings {
        site_addr: Some("127.0.0.1:0".parse().expect("literal address")),
        public_origin: Some("http://mc.bench".into()),
        keystone_url: Some(keystone_url),
        data_dir: Some(data_dir.clone()),
        site_root: Some(site.clone()),
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
    let r = client
        .post(format!("{base}/api/login"))
        .header("sec-fetch-site", "same-origin")
        .header("accept", "application/json")
        .form(&form)
        .send()
        .await
        .expect("login request");
    assert_eq!(r.status(), 200, "login failed");

    println!(
        "kluster list, {KLUSTERS} klusters in the project, n={} sequential requests each",
        requests()
    );
    // Reconciling, the embedded controller moves the seeded klusters (phases without
    // servers) on for about half a minute, a core's worth: measured during it, every figure
    // (the baselines too) would share the machine with it.
    if reconcile {
        println!("the embedded controller reconciles (LIST_RECONCILE=1)");
    } else {
        println!("the klusters stay as seeded: the bench holds the reconcile lease");
    }
    match settle().await {
        Some(secs) => println!("controller settled after {secs} s"),
        None => println!("controller did not settle within {SETTLE_MAX} s: figures are noisy"),
    }
    // Each figure and its baseline are measured interleaved, one request of each in turn,
    // so that both meet the same machine (on a shared 2-core VM, figures measured one after
    // the other differed by up to 2x from run to run).
    let page_url = format!("{base}/");
    let page_size = get(&client, &page_url, None, "k0049").await;
    std::fs::write(site.join("pkg/static.html"), "x".repeat(page_size)).expect("static file");
    let static_url = format!("{base}/pkg/static.html");
    let ((page, page_size), (stat, size)) = measure_pair(
        || get(&client, &page_url, None, "k0049"),
        || get(&client, &static_url, None, "x"),
    )
    .await;
    let page_p50 = line("GET / (first page)", &page, page_size);
    let static_p50 = line("GET a static file of the same size", &stat, size);
    let url = format!("{base}/?q=k1&phase=Running&sort=-nodes&page=2");
    let (search, size) = measure(|| get(&client, &url, None, "k1")).await;
    line("GET /?q=k1&phase=Running&sort=-nodes&page=2", &search, size);

    // To compare with an earlier run: a static file of another size (e.g. that run's page).
    if let Some(bytes) = std::env::var("LIST_COMPARE_BYTES")
        .ok()
        .and_then(|b| b.parse::<usize>().ok())
    {
        std::fs::write(site.join("pkg/other.html"), "x".repeat(bytes)).expect("static file");
        let url = format!("{base}/pkg/other.html");
        let (other, size) = measure(|| get(&client, &url, None, "x")).await;
        line("GET a static file of LIST_COMPARE_BYTES", &other, size);
    }

    // The server function alone vs the controller answered directly, the same query. The
    // server function asks the controller for what the controller can give: a page of
    // summaries when it understands the list query, else everything.
    let paged_url = format!(
        "{}/api/v1/clusters?limit=50&fields=summary",
        running.controller_url
    );
    let whole_url = format!("{}/api/v1/clusters", running.controller_url);
    let paged = client
        .get(&paged_url)
        .header("x-auth-token", &secret)
        .send()
        .await
        .expect("controller")
        .headers()
        .contains_key("x-total-count");
    let (direct_url, direct_label) = if paged {
        (&paged_url, "controller direct, ?limit=50&fields=summary")
    } else {
        (&whole_url, "controller direct, all klusters (no query)")
    };
    let sfn_url = format!("{base}/api/list_klusters");
    // `LIST_PROFILE=sfn`: only the server function, in a loop until killed (to profile it).
    if std::env::var_os("LIST_PROFILE").is_some_and(|v| v == "sfn") {
        println!("LIST_PROFILE=sfn: the server function in a loop");
        loop {
            call_fn(&client, &sfn_url).await;
        }
    }
    let ((sfn, sfn_size), (direct, size)) = measure_pair(
        || call_fn(&client, &sfn_url),
        || get(&client, direct_url, Some(&secret), "k0049"),
    )
    .await;
    let sfn_p50 = line("list_klusters server fn (first page)", &sfn, sfn_size);
    let direct_p50 = line(direct_label, &direct, size);
    // Where the server function's extra time goes: the dashboard's HTTP stack (its layers,
    // against the controller's own, answering nothing), then a server function that only
    // checks the session.
    let health = |url: String| {
        let client = &client;
        move || {
            let url = url.clone();
            async move { get(client, &url, None, "ok").await }
        }
    };
    let ((dash, dash_size), (ctl, ctl_size)) = measure_pair(
        health(format!("{base}/healthz")),
        health(format!("{}/healthz", running.controller_url)),
    )
    .await;
    line("  dashboard GET /healthz", &dash, dash_size);
    line("  controller GET /healthz", &ctl, ctl_size);
    let session_url = format!("{base}/api/current_session");
    let (session, size) = measure(|| call_fn(&client, &session_url)).await;
    line("  current_session server fn (session only)", &session, size);
    if paged {
        // For comparison: the same page of whole klusters, and every kluster whole.
        let url = format!("{}/api/v1/clusters?limit=50", running.controller_url);
        let (page, size) = measure(|| get(&client, &url, Some(&secret), "k0049")).await;
        line("controller direct, ?limit=50 (whole klusters)", &page, size);
        let (whole, size) = measure(|| get(&client, &whole_url, Some(&secret), "k1999")).await;
        line("controller direct, all klusters (no query)", &whole, size);
    }

    println!(
        "ratios (p50): page / static file of the same size = {:.1}x (goal <= 5); \
         server fn / controller direct = {:.2}x (goal <= 1.3); first page {page_p50:.1} ms (goal <= 20)",
        page_p50 / static_p50,
        sfn_p50 / direct_p50,
    );
    let _ = std::fs::remove_dir_all(data_dir);
}
