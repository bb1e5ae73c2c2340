//! Live streams fail closed: only an explicit yes from the controller opens one, the answer
//! is asked again while it runs, a token the controller refuses is not used for the shared
//! feed, and a session or user holds a bounded number of streams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::*;
use reqwest::Client;
use testkit::eventually;

/// What the test proxy in front of the controller does.
#[derive(Default)]
struct Rules {
    /// `GET /api/v1/events…` (not the stream) answers 403: the policy withdrew access.
    deny_events: bool,
    /// The first token to open `/api/v1/events/stream` is refused there from then on.
    refuse_first_streamer: Option<String>,
    /// How often each token asked for the stream.
    stream_asks: HashMap<String, usize>,
    /// `/api/v1/events/stream` answers 503 (a lost feed, retried) to every other token.
    fail_other_streams: bool,
}

type Shared = Arc<Mutex<Rules>>;

fn lock(r: &Shared) -> std::sync::MutexGuard<'_, Rules> {
    r.lock().unwrap()
}

/// A proxy in front of `upstream` that streams answers through and applies [`Rules`].
async fn proxy(upstream: String, rules: Shared) -> String {
    let forbidden = || {
        proxy::answer(
            403,
            r#"{"code":403,"message":"You are not allowed to do GetClusterEvents"}"#,
        )
    };
    let hook: proxy::Hook = Arc::new(move |req: &proxy::Seen| {
        let token = req.header("x-auth-token").to_string();
        let mut r = lock(&rules);
        if req.path.starts_with("/api/v1/events/stream") {
            *r.stream_asks.entry(token.clone()).or_default() += 1;
            let refused = r.refuse_first_streamer.get_or_insert_with(|| token.clone());
            if *refused == token {
                return Some(forbidden());
            }
            if r.fail_other_streams {
                return Some(proxy::answer(503, r#"{"code":503,"message":"not now"}"#));
            }
        } else if req.path.starts_with("/api/v1/events") && r.deny_events {
            return Some(forbidden());
        }
        None
    });
    proxy::start(&upstream, hook).await
}

async fn stream(c: &Client, srv: &TestServer) -> reqwest::Response {
    c.get(format!("{}/events/stream", srv.base))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap()
}

/// Reads the stream (with the one SSE parser) until a frame `event: <kind>` arrives and
/// returns its data line; panics after 15 s.
async fn wait_for(r: &mut reqwest::Response, kind: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut parser = kubernikus_client::sse::Parser::new(1 << 20);
    let mut got = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, r.chunk()).await {
            Ok(Ok(Some(c))) => {
                for f in parser.push(&c).expect("frames under the bound") {
                    if f.event == kind {
                        return format!("data: {}", f.data);
                    }
                    got.push(f);
                }
            }
            other => panic!("no `{kind}` frame ({other:?}); got {got:?}"),
        }
    }
}

#[tokio::test]
async fn a_user_without_a_kubernetes_role_gets_no_stream() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    let password = std::env::var("KS_ADMIN_PASSWORD").expect("KS_ADMIN_PASSWORD (demo env)");
    let r = call(
        &c,
        &srv,
        "login",
        &[
            ("user_name", "admin"),
            ("password", &password),
            ("user_domain", "Default"),
            ("project", "cloud_admin"),
        ],
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let r = stream(&c, &srv).await;
    assert_eq!(r.status(), 403);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("not allowed to see this project's events"));
}

#[tokio::test]
async fn a_controller_that_cannot_answer_opens_no_stream() {
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }; // nothing listens there any more
    let srv = spawn(|s| s.controller_url = Some(format!("http://127.0.0.1:{closed}"))).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let r = stream(&c, &srv).await;
    assert_eq!(r.status(), 503);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("cannot confirm your access"));
}

#[tokio::test]
async fn withdrawn_access_ends_an_open_stream_at_the_next_check() {
    let backing = spawn(|_| {}).await;
    let rules = Shared::default();
    lock(&rules).refuse_first_streamer = Some(String::new()); // refuse nobody
    let url = proxy(backing.controller_url.clone(), rules.clone()).await;
    let srv = spawn(|s| s.controller_url = Some(url)).await; // token re-check: every 1 s
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let mut r = stream(&c, &srv).await;
    assert_eq!(r.status(), 200);
    wait_for(&mut r, "live").await;
    lock(&rules).deny_events = true;
    let why = wait_for(&mut r, "forbidden").await;
    assert!(why.contains("not allowed"), "{why}");
    // And it is closed: a new one is refused.
    assert_eq!(stream(&c, &srv).await.status(), 403);
}

#[tokio::test]
async fn a_token_the_controller_refuses_is_not_used_again_for_the_shared_feed() {
    let backing = spawn(|_| {}).await;
    let rules = Shared::default();
    let url = proxy(backing.controller_url.clone(), rules.clone()).await;
    let srv = spawn(|s| s.controller_url = Some(url)).await;
    let first = browser();
    login(&first, &srv, "alice", "demo").await;
    let mut a = stream(&first, &srv).await;
    assert_eq!(a.status(), 200);
    wait_for(&mut a, "paused").await;
    // Several upstream retries' worth, counted in retries: a feed started after the refusal
    // (another project's, whose stream the proxy answers 503) is retried twice by the same
    // loop and backoff; a refused token treated like a lost feed would have been too.
    lock(&rules).fail_other_streams = true;
    let other = browser();
    login(&other, &srv, "alice", "staging").await;
    let lost = stream(&other, &srv).await;
    assert_eq!(lost.status(), 200);
    let refused = lock(&rules).refuse_first_streamer.clone().unwrap();
    eventually(
        Duration::from_secs(15),
        "the lost feed retried twice",
        || async {
            let r = lock(&rules);
            let retried = r
                .stream_asks
                .iter()
                .any(|(token, asks)| *token != refused && *asks >= 3);
            retried
                .then_some(())
                .ok_or_else(|| format!("{:?}", r.stream_asks.values()))
        },
    )
    .await;
    assert_eq!(
        lock(&rules).stream_asks[&refused],
        1,
        "the refused token was tried again"
    );
    drop(lost);
    lock(&rules).fail_other_streams = false;
    // Another browser of the project brings a token the controller accepts.
    let second = browser();
    login(&second, &srv, "alice", "demo").await;
    let mut b = stream(&second, &srv).await;
    wait_for(&mut b, "live").await;
    wait_for(&mut a, "live").await;
}

#[tokio::test]
async fn a_session_holds_a_bounded_number_of_streams() {
    let srv = spawn(|s| s.live_streams_per_user = Some(2)).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let one = stream(&c, &srv).await;
    let two = stream(&c, &srv).await;
    assert_eq!((one.status().as_u16(), two.status().as_u16()), (200, 200));
    let three = stream(&c, &srv).await;
    assert_eq!(three.status(), 429);
    assert!(three
        .text()
        .await
        .unwrap()
        .contains("Too many live update streams"));
    // The user's other session counts too.
    let other = browser();
    login(&other, &srv, "alice", "demo").await;
    assert_eq!(stream(&other, &srv).await.status(), 429);
    drop(one);
    eventually(Duration::from_secs(10), "the slot was freed", || async {
        let r = stream(&c, &srv).await;
        if r.status() == 200 {
            Ok(())
        } else {
            Err(r.status())
        }
    })
    .await;
}
