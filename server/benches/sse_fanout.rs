//! Benchmark: the live event stream's fan-out, on loopback, against the real server binary
//! (its own process, so its RSS is its own) with the embedded controller and the local
//! Keystone.
//!
//! 1. 1,000 browsers stream one project; 20 times a kluster is deleted and the time from
//!    the delete request to each browser receiving its `Terminating` event is recorded
//!    (p50, p99).
//! 2. The browsers are raised to `SSE_CLIENTS` (default 10,000): the server's RSS before
//!    and after gives the memory per stream, and one more event's delivery to all of them
//!    is timed.
//!
//! Baseline in the same run, after the server is stopped: a bare axum SSE echo fanned out to
//! as many streams (1,000), a POST to it timed to its event at each stream, read by the same
//! client and parser.
//!
//! Run: `scripts/keystone.sh start && source .state/keystone-5000/demo.env &&
//!       cargo bench -p server --bench sse_fanout` (needs ~2 file descriptors per client
//! across the two processes: `ulimit -n` ≥ 10,500).

mod support {
    pub mod sse_echo;
}

use std::sync::Arc;
use std::time::{Duration, Instant};

use kluster::{EventReason, EventType, ProjectEvent};
use kubernikus_client::sse::Parser;
use tokio::sync::Mutex;

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e3
}

/// Per client: when it saw each marker (kluster name → instant).
type Seen = Arc<Mutex<Vec<(String, Instant)>>>;

/// Opens one SSE stream with the session cookie and records, read with the one SSE parser,
/// when it went live and every kluster whose typed `Terminating` event (reason and type, not
/// the message) it sees.
async fn client(
    http: reqwest::Client,
    addr: String,
    cookie: String,
    seen: Seen,
) -> Result<(), String> {
    let mut r = http
        .get(format!("http://{addr}/events/stream"))
        .header("cookie", cookie)
        .header("accept", "text/event-stream")
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!("stream refused: {}", r.status()));
    }
    let mut parser = Parser::new(1 << 20);
    let mut ready = false;
    while let Some(chunk) = r.chunk().await.map_err(|e| e.to_string())? {
        for f in parser.push(&chunk).map_err(|e| e.to_string())? {
            match f.event.as_str() {
                "live" if !ready => {
                    ready = true;
                    seen.lock().await.push(("<live>".into(), Instant::now()));
                }
                "kluster-event" => {
                    let Ok(e) = serde_json::from_str::<ProjectEvent>(&f.data) else {
                        continue;
                    };
                    let terminating = e.event.event_reason() == EventReason::Terminating
                        && e.event.event_type() == Some(EventType::Normal);
                    if terminating {
                        seen.lock().await.push((e.kluster, Instant::now()));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

async fn wait_all(seen: &[Seen], marker: &str, deadline: Duration) -> Vec<Instant> {
    let end = Instant::now() + deadline;
    loop {
        let mut got = Vec::with_capacity(seen.len());
        for s in seen {
            if let Some((_, t)) = s.lock().await.iter().find(|(m, _)| m == marker) {
                got.push(*t);
            }
        }
        if got.len() == seen.len() || Instant::now() > end {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn connect_many(
    http: &reqwest::Client,
    addr: &str,
    cookie: &str,
    n: usize,
    seen: &mut Vec<Seen>,
) {
    let start = seen.len();
    for _ in 0..n {
        let s: Seen = Arc::default();
        seen.push(s.clone());
        let (h, a, c) = (http.clone(), addr.to_string(), cookie.to_string());
        tokio::spawn(async move {
            if let Err(e) = client(h, a, c, s).await {
                eprintln!("client: {e}");
            }
        });
        if seen.len().is_multiple_of(200) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let live = wait_all(&seen[start..], "<live>", Duration::from_secs(120)).await;
    println!("  {} of {n} new streams live", live.len());
}

/// The baseline: `n` streams of the bare SSE echo, `rounds` pokes, each timed from the POST
/// to its event at every stream.
async fn echo_fanout(n: usize, rounds: usize) -> Vec<Duration> {
    let addr = support::sse_echo::start().await;
    let http = reqwest::Client::new();
    let (ready_tx, mut ready) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (got_tx, mut got) = tokio::sync::mpsc::unbounded_channel::<Instant>();
    let mut readers = Vec::with_capacity(n);
    for i in 0..n {
        let (http, ready_tx, got_tx) = (http.clone(), ready_tx.clone(), got_tx.clone());
        readers.push(tokio::spawn(async move {
            let Ok(mut r) = http.get(format!("http://{addr}/stream")).send().await else {
                return;
            };
            let _ = ready_tx.send(());
            let mut parser = Parser::new(1 << 20);
            while let Ok(Some(chunk)) = r.chunk().await {
                let now = Instant::now();
                for f in parser.push(&chunk).unwrap_or_default() {
                    if f.event == "echo" {
                        let _ = got_tx.send(now);
                    }
                }
            }
        }));
        if (i + 1) % 200 == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let mut live = 0;
    while live < n {
        match tokio::time::timeout(Duration::from_secs(60), ready.recv()).await {
            Ok(Some(())) => live += 1,
            _ => break,
        }
    }
    let mut times = Vec::with_capacity(n * rounds);
    for _ in 0..rounds {
        while got.try_recv().is_ok() {}
        let t0 = Instant::now();
        let _ = http.post(format!("http://{addr}/poke")).send().await;
        for _ in 0..live {
            match tokio::time::timeout(Duration::from_secs(20), got.recv()).await {
                Ok(Some(t)) => times.push(t.duration_since(t0)),
                _ => break,
            }
        }
    }
    for r in readers {
        r.abort();
    }
    // One more event ends the echo's side of the closed streams (their descriptors).
    let _ = http.post(format!("http://{addr}/poke")).send().await;
    times.sort();
    times
}

#[tokio::main]
async fn main() {
    let keystone = std::env::var("MC_TEST_KEYSTONE_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:5000/v3".to_string());
    let total: usize = std::env::var("SSE_CLIENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("addr").port()
    };
    let addr = format!("127.0.0.1:{port}");
    let data = std::env::temp_dir().join(format!("mc-bench-sse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_mission-control"))
        .env("MC_SITE_ADDR", &addr)
        .env("MC_PUBLIC_ORIGIN", format!("http://{addr}"))
        .env("MC_KEYSTONE_URL", &keystone)
        .env("MC_DATA_DIR", &data)
        .env("MC_CONTROLLER_PHASE_SECONDS", "1")
        .env("MC_CONTROLLER_SERVICE_PASSWORD", "mission-control-secret")
        .env("MC_LOGIN_FAILURES_PER_CLIENT", "100000")
        // Every stream is the one user's (10 by default).
        .env("MC_LIVE_STREAMS_PER_USER", (total + 100).to_string())
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("server binary starts");
    let pid = server.id();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    for _ in 0..100 {
        if http
            .get(format!("http://{addr}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let r = http
        .post(format!("http://{addr}/api/login"))
        .header("sec-fetch-site", "same-origin")
        .header("accept", "application/json")
        .form(&[
            ("user_name", "alice"),
            ("password", "alice-secret"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ])
        .send()
        .await
        .expect("login");
    assert_eq!(
        r.status(),
        200,
        "login failed: is the local Keystone running?"
    );
    let cookie = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("session cookie")
        .to_string();
    let call = |name: &'static str, form: Vec<(&'static str, String)>| {
        let (http, addr, cookie) = (http.clone(), addr.clone(), cookie.clone());
        async move {
            let r = http
                .post(format!("http://{addr}/api/{name}"))
                .header("sec-fetch-site", "same-origin")
                .header("accept", "application/json")
                .header("cookie", cookie)
                .form(&form)
                .send()
                .await
                .expect("server fn");
            assert!(
                r.status().is_success() || r.status().is_redirection(),
                "{name}: {}",
                r.text().await.unwrap_or_default()
            );
        }
    };
    let create = |k: String| {
        call(
            "create_kluster",
            vec![
                ("form[name]", k),
                ("form[pools][0][name]", "p".into()),
                ("form[pools][0][flavor]", "m1.small".into()),
                ("form[pools][0][availability_zone]", "az-a".into()),
                ("form[pools][0][size]", "0".into()),
            ],
        )
    };
    let delete = |k: String| call("delete_kluster", vec![("name", k.clone()), ("confirm", k)]);

    // The browsers' streams: one connection each (no idle pool to share).
    let streams = reqwest::Client::new();
    let base_rss = rss_kib(pid);
    let mut seen: Vec<Seen> = Vec::new();
    println!("connecting 1,000 streams");
    connect_many(&streams, &addr, &cookie, 1000, &mut seen).await;

    let mut latencies = Vec::new();
    for round in 0..20 {
        let k = format!("bench-{round}");
        create(k.clone()).await;
        let t0 = Instant::now();
        delete(k.clone()).await;
        for t in wait_all(&seen, &k, Duration::from_secs(20)).await {
            latencies.push(t.duration_since(t0));
        }
    }
    latencies.sort();
    println!(
        "event latency (delete request → Terminating event at the browser), 1,000 streams: n={} p50={:.1} ms p99={:.1} ms",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
    println!("raising to {total} streams");
    connect_many(
        &streams,
        &addr,
        &cookie,
        total.saturating_sub(1000),
        &mut seen,
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss = rss_kib(pid);
    let k = "bench-all".to_string();
    create(k.clone()).await;
    let t0 = Instant::now();
    delete(k.clone()).await;
    let got = wait_all(&seen, &k, Duration::from_secs(60)).await;
    let last = got
        .iter()
        .max()
        .map(|t| t.duration_since(t0))
        .unwrap_or_default();
    println!(
        "{} streams: server RSS {} MiB (was {} MiB with none): {:.1} KB per stream; one event reached {} of them, the last after {:.0} ms",
        seen.len(),
        rss / 1024,
        base_rss / 1024,
        (rss.saturating_sub(base_rss)) as f64 * 1.024 / seen.len() as f64,
        got.len(),
        last.as_secs_f64() * 1e3
    );
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&data);

    // The baseline runs once the server is gone and its streams with it, so the two share
    // neither descriptors nor the client's runtime.
    tokio::time::sleep(Duration::from_secs(2)).await;
    println!("baseline: 1,000 streams of a bare axum SSE echo");
    let echo = echo_fanout(1000, 20).await;
    println!(
        "bare axum SSE echo (POST -> event at each of 1,000 streams): n={} p50={:.1} ms p99={:.1} ms",
        echo.len(),
        percentile(&echo, 0.5),
        percentile(&echo, 0.99)
    );
    println!(
        "ratio (p50): delete -> Terminating at 1,000 browsers / the bare echo to 1,000 streams = {:.1}x",
        percentile(&latencies, 0.5) / percentile(&echo, 0.5)
    );
}
