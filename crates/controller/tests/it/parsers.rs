//! Property tests of the parsers a stranger reaches first: the policy rule parser
//! (arbitrary rules → a policy or a `PolicyError`, never a panic) and the event list and
//! stream's query and `Last-Event-ID` (arbitrary values → 400 in words or a valid answer,
//! never a panic or a 500). The event routes run in the real router with a real token.

use axum::{
    body::Body,
    http::{HeaderValue, Request, Uri},
    Router,
};
use controller::auth::{Creds, Policy};
use futures_util::StreamExt;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};
use tower::ServiceExt;

/// Rule text from the grammar's words, some checks and some noise.
fn rule() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "(",
        ")",
        "and",
        "or",
        "not",
        "@",
        "!",
        "role:a",
        "role:",
        "rule:r",
        "rule:missing",
        "project_id:p",
        "domain_name:Default",
        ":",
        "x:",
        ":y",
        "role:a:b",
        "",
        "((",
        "))",
    ]);
    let noise = any::<String>().prop_map(|s| s.chars().take(12).collect::<String>());
    prop::collection::vec(
        prop_oneof![8 => word.prop_map(String::from), 1 => noise],
        0..16,
    )
    .prop_map(|words| words.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_rule_parses_or_is_a_policy_error(a in rule(), b in rule(), roles in prop::collection::vec("[a-z]{0,3}", 0..3)) {
        let text = json!({"r": a, "other": b}).to_string();
        match Policy::from_json(&text) {
            Ok(p) => {
                let creds = Creds { roles, ..Creds::default() };
                let _ = p.allows("r", &creds);
                let _ = p.allows("other", &creds);
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn any_policy_text_is_a_policy_or_an_error(text in any::<String>()) {
        let _ = Policy::from_json(&text);
    }
}

/// A query value: numbers (also huge and negative), names, and arbitrary text.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        Just("99999999999999999999999".to_string()),
        "[a-z0-9-]{0,25}",
        any::<String>(),
    ]
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A query string: encoded pairs of known and unknown keys, or raw text.
fn query() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec!["after", "kluster", "limit", "last", "x", ""]);
    let pairs = prop::collection::vec((key, value()), 0..4).prop_map(|kv| {
        kv.iter()
            .map(|(k, v)| format!("{k}={}", percent(v)))
            .collect::<Vec<_>>()
            .join("&")
    });
    prop_oneof![3 => pairs, 1 => any::<String>()]
}

/// Last-Event-ID: none, a number, or arbitrary bytes.
fn last_event_id() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(prop_oneof![
        any::<i64>().prop_map(|n| n.to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..24),
    ])
}

async fn check(
    app: &Router,
    token: &str,
    path: &str,
    query: &str,
    last: Option<&[u8]>,
) -> Result<(), TestCaseError> {
    let Ok(uri) = Uri::try_from(format!("{path}?{query}")) else {
        return Ok(()); // not a request line a client can send
    };
    let mut req = Request::get(uri).header("x-auth-token", token);
    if let Some(v) = last {
        let Ok(v) = HeaderValue::from_bytes(v) else {
            return Ok(()); // not a header a client can send
        };
        req = req.header("last-event-id", v);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let status = res.status().as_u16();
    let kind = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut body = res.into_body().into_data_stream();
    match status {
        200 if path.ends_with("/stream") => {
            prop_assert_eq!(kind, "text/event-stream");
            let first = tokio::time::timeout(std::time::Duration::from_secs(5), body.next())
                .await
                .map_err(|_| TestCaseError::fail("no first frame"))?;
            let first = first.and_then(Result::ok).unwrap_or_default();
            // Read with the one SSE parser: the first chunk is the `ready` frame.
            let frames = kubernikus_client::sse::Parser::new(1 << 20)
                .push(&first)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(frames.iter().any(|f| f.event == "ready"), "{:?}", first);
        }
        200 => {
            let mut bytes = Vec::new();
            while let Some(chunk) = body.next().await {
                bytes.extend_from_slice(&chunk.map_err(|e| TestCaseError::fail(e.to_string()))?);
            }
            let v: Value = serde_json::from_slice(&bytes)
                .map_err(|e| TestCaseError::fail(format!("not JSON: {e}")))?;
            prop_assert!(v.is_array(), "{}", v);
        }
        400 => {
            let mut bytes = Vec::new();
            while let Some(chunk) = body.next().await {
                bytes.extend_from_slice(&chunk.map_err(|e| TestCaseError::fail(e.to_string()))?);
            }
            let v: Value = serde_json::from_slice(&bytes)
                .map_err(|e| TestCaseError::fail(format!("not JSON: {e}")))?;
            prop_assert_eq!(&v["code"], &json!(400));
            let message = v["message"].as_str().unwrap_or_default();
            prop_assert!(message.len() > 10, "a sentence: {:?}", message);
        }
        other => prop_assert!(false, "{} {}?{:?} answered {}", "GET", path, query, other),
    }
    Ok(())
}

#[test]
fn event_queries_and_last_event_ids_are_answered_or_refused_in_words() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (app, token) = rt.block_on(async {
        let (app, store) = crate::common::app_with(&crate::common::url()).await;
        let token = crate::common::token("bob", "demo").await;
        let project = crate::common::account_of(&token).await;
        for i in 0..3 {
            store
                .record_event(
                    &project,
                    "k",
                    kluster::EventType::Normal,
                    &kluster::EventReason::Running,
                    &format!("e{i}"),
                )
                .await
                .unwrap();
        }
        (app, token)
    });
    let mut runner = TestRunner::new(Config::with_cases(150));
    let strategy = (
        prop::sample::select(vec!["/api/v1/events", "/api/v1/events/stream"]),
        query(),
        last_event_id(),
    );
    runner
        .run(&strategy, |(path, q, last)| {
            rt.block_on(check(&app, &token, path, &q, last.as_deref()))
        })
        .unwrap();
}
