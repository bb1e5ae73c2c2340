//! When the provider tries again, and with what: tokens renewed (and kept when renewal
//! fails), a 401 signed in again once, GETs retried on 5xx and connection errors, every
//! method on rate limits (honouring Retry-After), and Nova's microversion negotiated.

use std::time::Duration;

use serde_json::json;

use super::stand::Stand;
use super::*;
#[tokio::test]
async fn a_token_near_its_expiry_is_renewed_with_the_same_scope() {
    let stand = Stand::start().await;
    stand.state().lifetime = time::Duration::milliseconds(400);
    let c = cloud(&stand);
    c.quota("p1").await.unwrap();
    // Calls go on until the session is renewed (at half the token's 400 ms life); the
    // stand never expires tokens, so only the renewal time can make a second sign-in.
    testkit::eventually(Duration::from_secs(5), "a second sign-in", || async {
        c.quota("p1").await.unwrap();
        stand.state().sign_ins.len() >= 2
    })
    .await;
    let s = stand.state();
    assert_eq!(s.sign_ins.len(), 2, "renewed before the token expired");
    assert!(s.sign_ins.iter().all(|v| v["project"]["id"] == "p1"));
}

#[tokio::test]
async fn a_failed_renewal_keeps_the_valid_token_until_it_expires() {
    let stand = Stand::start().await;
    stand.state().lifetime = time::Duration::seconds(3);
    let c = cloud(&stand);
    c.quota("p1").await.unwrap();
    let down = json!({ "error": { "code": 503, "message": "Keystone is down" } });
    stand.state().fail = vec![("auth/tokens".into(), 503, down); 100];
    // Past the renewal time (half the life) every call still works with the old token.
    let started = std::time::Instant::now();
    testkit::eventually(Duration::from_secs(5), "a failed renewal", || async {
        c.quota("p1").await.expect("the token is still valid");
        stand.state().fail.len() < 100
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(3));
    // Once it has expired, the failure is the call's.
    let e = testkit::eventually(
        Duration::from_secs(6),
        "the expired token's end",
        || async { c.quota("p1").await.err() },
    )
    .await;
    assert!(e.message.contains("Signing in as"), "{e}");
    let tries = 100 - stand.state().fail.len();
    assert!(
        tries < 20,
        "renewal tried again now and then, not at every call: {tries}"
    );
}

#[tokio::test]
async fn a_401_twice_is_an_error_not_a_loop() {
    let stand = Stand::start().await;
    let body = json!({ "error": { "code": 401, "message": "nope" } });
    stand.state().fail = vec![
        ("os-quota-sets".into(), 401, body.clone()),
        ("os-quota-sets".into(), 401, body),
    ];
    let e = cloud(&stand).quota("p1").await.unwrap_err();
    assert!(e.message.contains("HTTP 401"), "{e}");
    assert_eq!(stand.state().sign_ins.len(), 2);
}

#[tokio::test]
async fn gets_are_retried_on_5xx_but_creates_are_not() {
    let stand = Stand::start().await;
    let unavailable = json!({ "message": "Service Unavailable" });
    stand.state().fail = vec![
        ("servers/detail".into(), 503, unavailable.clone()),
        ("servers/detail".into(), 502, unavailable.clone()),
    ];
    let c = cloud(&stand);
    assert_eq!(c.servers("p1").await.unwrap().len(), 2);
    stand.state().fail = vec![("servers/detail".into(), 503, unavailable.clone()); 3];
    let e = c.servers("p1").await.unwrap_err();
    assert!(e.message.contains("HTTP 503"), "{e}");
    let placement = Placement {
        network_id: Some("net1".into()),
        security_group: None,
    };
    stand.state().fail = vec![("/compute/v2.1/servers".into(), 500, unavailable)];
    let before = stand.seen("/compute/v2.1/servers").len();
    let e = c
        .create_server_with("p1", &spec("kks-k1-a-xxxxx"), &placement)
        .await
        .unwrap_err();
    assert!(e.message.contains("HTTP 500"), "{e}");
    let posts = stand.seen("/compute/v2.1/servers");
    assert_eq!(posts.len() - before, 1, "a failed create is not sent again");
}

#[tokio::test]
async fn rate_limits_are_waited_out_for_every_method() {
    let stand = Stand::start().await;
    let limited = |after: Option<&str>| {
        let mut body = json!({ "overLimit": { "code": 429, "message": "Rate limit exceeded" } });
        if let Some(a) = after {
            body["retryAfter"] = json!(a);
        }
        body
    };
    let c = cloud(&stand);
    let placement = Placement {
        network_id: Some("net1".into()),
        security_group: None,
    };
    // A create answered 429 with Retry-After: 1 is sent again after that second.
    stand.state().fail = vec![("/compute/v2.1/servers".into(), 429, limited(Some("1")))];
    let before = stand.seen("/compute/v2.1/servers").len();
    let t = std::time::Instant::now();
    c.create_server_with("p1", &spec("kks-k1-a-yyyyy"), &placement)
        .await
        .expect("created on the second try");
    assert!(t.elapsed() >= Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(stand.seen("/compute/v2.1/servers").len() - before, 2);
    // A delete answered 429 without Retry-After, then 503 with it: sent a third time.
    stand.state().fail = vec![
        ("/servers/s1".into(), 429, limited(None)),
        (
            "/servers/s1".into(),
            503,
            json!({ "message": "busy", "retryAfter": "0" }),
        ),
    ];
    c.delete_server("p1", "s1")
        .await
        .expect("deleted on the third try");
    assert!(stand.state().fail.is_empty(), "both limits were met");
    // Past its tries, the cloud's words come back.
    stand.state().fail = vec![("os-quota-sets".into(), 429, limited(Some("0"))); 6];
    let e = c.quota("p1").await.unwrap_err();
    assert!(e.message.contains("Rate limit exceeded"), "{e}");
}

#[tokio::test]
async fn novas_microversion_is_negotiated_once_with_a_floor() {
    let stand = Stand::start().await;
    stand.state().nova_version = "2.60";
    let c = cloud(&stand);
    c.servers("p1").await.unwrap();
    c.quota("p1").await.unwrap();
    c.servers("p2").await.unwrap();
    let (asked, sent) = {
        let s = stand.state();
        let asked = s.seen.iter().filter(|x| x.path == "/compute/v2.1/").count();
        let sent: Vec<_> = s
            .seen
            .iter()
            .filter(|x| x.path.starts_with("/compute/v2.1/") && x.path != "/compute/v2.1/")
            .map(|x| {
                let h = x.headers.get("openstack-api-version");
                h.and_then(|v| v.to_str().ok()).map(String::from)
            })
            .collect();
        (asked, sent)
    };
    assert_eq!(asked, 1, "the version document is read once");
    assert!(!sent.is_empty());
    assert!(
        sent.iter().all(|h| h.as_deref() == Some("compute 2.60")),
        "{sent:?}"
    );
    let old = Stand::start().await;
    old.state().nova_version = "2.38";
    let e = cloud(&old).servers("p1").await.unwrap_err();
    assert!(e.message.contains("needs 2.52 or newer"), "{e}");
}

#[test]
fn retry_after_is_read_in_seconds_and_only_limits_are_resent_for_every_method() {
    use super::retries::{again, retry_after, Again};
    assert_eq!(retry_after(Some("2")), Some(Duration::from_secs(2)));
    assert_eq!(retry_after(Some(" 0.5 ")), Some(Duration::from_millis(500)));
    assert_eq!(retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
    assert_eq!(retry_after(Some("-1")), None);
    assert_eq!(retry_after(None), None);
    let r = |status, after: Option<u64>| Some((status, after.map(Duration::from_secs)));
    let limited = Some(Again::Limited(Some(Duration::from_secs(3))));
    assert_eq!(again(r(429, Some(3)), false), limited);
    assert_eq!(again(r(503, Some(3)), false), limited);
    assert_eq!(again(r(429, None), false), Some(Again::Limited(None)));
    assert_eq!(
        again(r(503, None), false),
        None,
        "a POST may have been processed"
    );
    assert_eq!(again(r(503, None), true), Some(Again::Failed));
    assert_eq!(again(r(500, None), false), None);
    assert_eq!(again(r(404, None), true), None);
    assert_eq!(again(None, false), None);
    assert_eq!(again(None, true), Some(Again::Failed));
}

#[tokio::test]
async fn a_get_that_cannot_connect_is_tried_again_then_names_the_service() {
    let stand = Stand::start().await;
    stand.state().dead.push("network");
    let started = std::time::Instant::now();
    let e = cloud(&stand).metadata("p1").await.unwrap_err();
    assert!(e.message.starts_with("Neutron could not be reached"), "{e}");
    assert!(
        !e.message.contains("SECRET") && !e.message.contains("127.0.0.1:9"),
        "{e}"
    );
    // Three tries with 1 ms and 2 ms pauses: bounded, and quick on a refused connection.
    assert!(started.elapsed() < Duration::from_secs(4));
}
