//! HTTP helpers of the failure scenarios: a signed-in browser through the proxy, kluster
//! creation through the controller, SSE reading with resume, the reconcile lease's holder.

use std::time::Duration;

use reqwest::header;

/// A browser through the proxy: signs in as alice and keeps its cookie.
pub async fn signed_in(front: &str) -> reqwest::Client {
    let c = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let r = c
        .post(format!("{front}/api/login"))
        .header("sec-fetch-site", "same-origin")
        .header(header::ACCEPT, "application/json")
        .form(&[
            ("user_name", "alice"),
            ("password", "alice-secret"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "sign-in through nginx");
    c
}

/// Creates kluster `name` (pools of `size` m1.small nodes) through the controller front.
pub async fn create(ctl: &str, token: &str, name: &str, size: u32) -> u16 {
    let body = format!(
        r#"{{"name":"{name}","spec":{{"nodePools":[{{"name":"p","size":{size},"flavor":"m1.small","availabilityZone":"az-a"}}]}}}}"#
    );
    match reqwest::Client::new()
        .post(format!("{ctl}/api/v1/clusters"))
        .header("x-auth-token", token)
        .body(body)
        .timeout(Duration::from_secs(5))
        .send()
        .await
    {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}

pub async fn get_json(url: &str, token: &str) -> serde_json::Value {
    reqwest::Client::new()
        .get(url)
        .header("x-auth-token", token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The pid in the reconcile lease's holder name (`host-<pid>-<random>`).
pub async fn lease_holder_pid(db: &str) -> Option<u32> {
    let pool = sqlx::PgPool::connect(db).await.ok()?;
    let holder: String = sqlx::query_scalar("SELECT holder FROM leases WHERE name = 'reconcile'")
        .fetch_optional(&pool)
        .await
        .ok()??;
    holder.rsplit('-').nth(1)?.parse().ok()
}

/// Reads one chunk of SSE frames (with the one SSE parser) or waits 300 ms for one; the ids of
/// `kluster-event`s go to `seen`. False when the stream ended (its replica died).
pub async fn read_events(
    r: &mut reqwest::Response,
    parser: &mut kubernikus_client::sse::Parser,
    seen: &mut Vec<i64>,
) -> bool {
    match tokio::time::timeout(Duration::from_millis(300), r.chunk()).await {
        Err(_) => true,
        Ok(Ok(Some(c))) => {
            keep_events(parser, &c, seen);
            true
        }
        _ => false,
    }
}

/// Reads everything the stream has sent until it is quiet for 100 ms (at most 5 s), so that
/// no backlog of earlier chunks hides the stream's end. False when the stream ended.
pub async fn drain_events(
    r: &mut reqwest::Response,
    parser: &mut kubernikus_client::sse::Parser,
    seen: &mut Vec<i64>,
) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_millis(100), r.chunk()).await {
            Err(_) => return true,
            Ok(Ok(Some(c))) => keep_events(parser, &c, seen),
            _ => return false,
        }
    }
    true
}

fn keep_events(parser: &mut kubernikus_client::sse::Parser, chunk: &[u8], seen: &mut Vec<i64>) {
    for f in parser.push(chunk).expect("frames under the bound") {
        if f.event == "kluster-event" {
            if let Some(id) = f.id {
                seen.push(id.trim().parse().unwrap());
            }
        }
    }
}

/// A new SSE parser for [`read_events`].
pub fn sse_parser() -> kubernikus_client::sse::Parser {
    kubernikus_client::sse::Parser::new(1 << 20)
}

pub async fn open_stream(
    c: &reqwest::Client,
    front: &str,
    last: Option<i64>,
) -> Option<reqwest::Response> {
    let mut req = c
        .get(format!("{front}/events/stream"))
        .header("accept", "text/event-stream");
    if let Some(l) = last {
        req = req.header("last-event-id", l.to_string());
    }
    let r = req.send().await.ok()?;
    (r.status() == 200).then_some(r)
}
