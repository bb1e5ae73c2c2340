//! Benchmark: "Scale" → the quota event on an open timeline, against the real server binary
//! (its own process) with the embedded controller and the local Keystone.
//!
//! A kluster holds the project's whole instance quota (10 nodes). Each round sends the scale
//! form's server function (`scale_pool`, the pool to 11 nodes: one over quota) and times until
//! the browser's open live stream (`/events/stream`, what the timeline reads) brings the
//! kluster's `FailedCreateNode` warning; then the pool goes back to 10. The controller's
//! resync timer stays at its production 1 s (`MC_CONTROLLER_PHASE_SECONDS=4`: a quarter of
//! it, at most 1 s), so the figure shows whether the change woke the reconciler.
//!
//! Baseline in the same run: a bare axum SSE echo on loopback (a POST, and the event it
//! sends at once to an open stream), read by the same client and parser.
//!
//! Run: `scripts/keystone.sh start && cargo bench -p server --bench scale_event`
//! (`SCALE_ROUNDS=n`, default 20).

mod support {
    pub mod sse_echo;
}

use std::time::{Duration, Instant};

use kluster::{EventReason, EventType, ProjectEvent};
use kubernikus_client::sse::Parser;
use tokio::sync::mpsc;

/// What a stream reader saw: the kluster of a warning (or `""` for the echo's events), when.
type Seen = mpsc::UnboundedSender<(String, Instant)>;

/// Reads one SSE stream; sends `("<live>", t)` once it is open, then every echo event or
/// `FailedCreateNode` warning (typed: reason and type, not the message) with its arrival.
async fn read_stream(r: reqwest::Response, seen: Seen) -> Result<(), String> {
    let mut r = r;
    let mut parser = Parser::new(1 << 20);
    let _ = seen.send(("<live>".into(), Instant::now()));
    while let Some(chunk) = r.chunk().await.map_err(|e| e.to_string())? {
        let now = Instant::now();
        for f in parser.push(&chunk).map_err(|e| e.to_string())? {
            match f.event.as_str() {
                "echo" => {
                    let _ = seen.send((String::new(), now));
                }
                "kluster-event" => {
                    let Ok(e) = serde_json::from_str::<ProjectEvent>(&f.data) else {
                        continue;
                    };
                    if e.event.event_reason() == EventReason::FailedCreateNode
                        && e.event.event_type() == Some(EventType::Warning)
                    {
                        let _ = seen.send((e.kluster, now));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Waits for `marker` from the stream, up to `limit`; `None` past it.
async fn wait_for(
    rx: &mut mpsc::UnboundedReceiver<(String, Instant)>,
    marker: &str,
    limit: Duration,
) -> Option<Instant> {
    let end = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(end, rx.recv()).await {
            Ok(Some((m, t))) if m == marker => return Some(t),
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return None,
        }
    }
}

/// Drops what the stream brought before a round starts.
fn drain(rx: &mut mpsc::UnboundedReceiver<(String, Instant)>) {
    while rx.try_recv().is_ok() {}
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
}

/// The baseline: `rounds` pokes of the bare SSE echo, each timed from the POST to the
/// event at an open stream.
async fn echo_baseline(http: &reqwest::Client, rounds: usize) -> Vec<Duration> {
    let addr = support::sse_echo::start().await;
    let (seen, mut rx) = mpsc::unbounded_channel();
    let r = http
        .get(format!("http://{addr}/stream"))
        .send()
        .await
        .expect("echo stream");
    tokio::spawn(read_stream(r, seen));
    wait_for(&mut rx, "<live>", Duration::from_secs(5)).await;
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        drain(&mut rx);
        let t0 = Instant::now();
        http.post(format!("http://{addr}/poke"))
            .send()
            .await
            .expect("poke");
        if let Some(t) = wait_for(&mut rx, "", Duration::from_secs(5)).await {
            times.push(t.duration_since(t0));
        }
    }
    times.sort();
    times
}

#[tokio::main]
async fn main() {
    let keystone = std::env::var("MC_TEST_KEYSTONE_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:5000/v3".to_string());
    let rounds: usize = std::env::var("SCALE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let echo = echo_baseline(&http, rounds).await;

    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("addr").port()
    };
    let addr = format!("127.0.0.1:{port}");
    let data = std::env::temp_dir().join(format!("mc-bench-scale-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_mission-control"))
        .env("MC_SITE_ADDR", &addr)
        .env("MC_PUBLIC_ORIGIN", format!("http://{addr}"))
        .env("MC_KEYSTONE_URL", &keystone)
        .env("MC_DATA_DIR", &data)
        .env("MC_CONTROLLER_PHASE_SECONDS", "4")
        .env("MC_CONTROLLER_SERVICE_PASSWORD", "mission-control-secret")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("server binary starts");
    for _ in 0..100 {
        let ready = http.get(format!("http://{addr}/readyz")).send().await;
        if ready.is_ok_and(|r| r.status().is_success()) {
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
    assert_eq!(r.status(), 200, "sign-in: is the local Keystone running?");
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
            let status = r.status();
            assert!(
                status.is_success() || status.is_redirection(),
                "{name}: {status} {}",
                r.text().await.unwrap_or_default()
            );
        }
    };
    let k = "quota-bench".to_string();
    let scale = |size: u32| {
        call(
            "scale_pool",
            vec![
                ("name", k.clone()),
                ("pool", "p".into()),
                ("size", size.to_string()),
            ],
        )
    };

    // The timeline's stream, open before anything happens.
    let (seen, mut rx) = mpsc::unbounded_channel();
    let r = http
        .get(format!("http://{addr}/events/stream"))
        .header("cookie", &cookie)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("live stream");
    assert!(r.status().is_success(), "stream: {}", r.status());
    let reader = tokio::spawn(async move {
        if let Err(e) = read_stream(r, seen).await {
            eprintln!("stream: {e}");
        }
    });
    wait_for(&mut rx, "<live>", Duration::from_secs(10)).await;

    // Warm-up: a kluster one node over the quota comes up, takes the 10 instances the
    // project has, and is refused the 11th.
    let t = Instant::now();
    call(
        "create_kluster",
        vec![
            ("form[name]", k.clone()),
            ("form[pools][0][name]", "p".into()),
            ("form[pools][0][flavor]", "m1.small".into()),
            ("form[pools][0][availability_zone]", "az-a".into()),
            ("form[pools][0][size]", "11".into()),
        ],
    )
    .await;
    let warm = wait_for(&mut rx, &k, Duration::from_secs(180)).await;
    assert!(
        warm.is_some(),
        "no quota warning within 180 s of the create"
    );
    println!(
        "warm-up: created, Running, 10 servers and the refusal of the 11th in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        scale(10).await;
        // Past any answer to the last round (a retry of the refused server comes after 2
        // resyncs at the soonest).
        tokio::time::sleep(Duration::from_millis(500)).await;
        drain(&mut rx);
        let t0 = Instant::now();
        scale(11).await;
        match wait_for(&mut rx, &k, Duration::from_secs(10)).await {
            Some(t) => times.push(t.duration_since(t0)),
            None => println!("  a round brought no warning within 10 s"),
        }
    }
    times.sort();
    let (p50, echo50) = (percentile(&times, 0.5), percentile(&echo, 0.5));
    println!(
        "bare axum SSE echo (POST -> event at an open stream): n={} p50={:.2} ms p99={:.2} ms",
        echo.len(),
        echo50,
        percentile(&echo, 0.99)
    );
    println!(
        "scale_pool -> FailedCreateNode at the open timeline stream:  n={} p50={:.1} ms p90={:.1} ms max={:.1} ms",
        times.len(),
        p50,
        percentile(&times, 0.9),
        percentile(&times, 1.0)
    );
    println!(
        "ratio (p50): scale -> quota event / bare SSE echo = {:.0}x; scale -> quota event {:.0} ms (goal <= 250 ms)",
        p50 / echo50,
        p50
    );
    reader.abort();
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&data);
}
