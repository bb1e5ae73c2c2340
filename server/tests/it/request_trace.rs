//! One request id from the browser to the controller, with the real binaries: the
//! dashboard (JSON logs) takes the browser's `X-Request-Id`, answers it, logs it, and sends
//! it with the browser's address to the controller (JSON logs, spans exported over OTLP to
//! a collector stub), which logs it, exports it in a span (with spans of its cloud,
//! Keystone and store calls) and keeps it in the audit record of the create, with the
//! browser's address the dashboard forwarded.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::cluster::*;
use crate::common::{keystone_url, serve_router, user_token, ORIGIN};

/// A collector stub: every body POSTed to `/v1/traces`.
async fn collector() -> (String, Arc<Mutex<Vec<Vec<u8>>>>) {
    let got: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let sink = got.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: axum::body::Bytes| {
            let sink = sink.clone();
            async move {
                sink.lock().unwrap().push(body.to_vec());
                ""
            }
        }),
    );
    (serve_router(app).await, got)
}

#[tokio::test]
async fn one_request_id_reaches_both_logs_the_span_export_and_the_audit_record() {
    let _ = keystone_url();
    let dir = scratch("trace");
    let (otlp, spans) = collector().await;
    let db = dir.join("controller.db");
    let ctl = controller_env(
        "controller",
        &dir,
        &db.to_string_lossy(),
        &dir.join("ca.key"),
        8.0,
        &[
            ("MC_LOG_FORMAT", "json"),
            ("MC_CONTROLLER_TRUSTED_PROXIES", "127.0.0.1"),
            ("MC_OTLP_ENDPOINT", &otlp),
        ],
    );
    let ctl_url = format!("http://{}", ctl.addr);
    wait_ok(&format!("{ctl_url}/readyz"), 30, Some(&ctl)).await;
    let dash = dashboard_env(
        "dashboard",
        &dir,
        "memory",
        &dir.join("session.key"),
        &ctl_url,
        ORIGIN,
        &[("MC_LOG_FORMAT", "json")],
    );
    let base = format!("http://{}", dash.addr);
    wait_ok(&format!("{base}/readyz"), 30, Some(&dash)).await;

    let c = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let post = |name: &str, form: Vec<(&str, &str)>, id: &str| {
        c.post(format!("{base}/api/{name}"))
            .header("sec-fetch-site", "same-origin")
            .header("accept", "application/json")
            .header("x-request-id", id)
            // The dashboard trusts 127.0.0.1 as a proxy: this is "the browser".
            .header("x-forwarded-for", "198.51.100.23")
            .form(&form)
            .send()
    };
    let r = post(
        "login",
        vec![
            ("user_name", "alice"),
            ("password", "alice-secret"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ],
        "login-1",
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let id = format!("trace-{}-{}", std::process::id(), free_port());
    let r = post(
        "create_kluster",
        vec![
            ("form[name]", "traced"),
            ("form[pools][0][name]", "small"),
            ("form[pools][0][flavor]", "m1.small"),
            ("form[pools][0][availability_zone]", "az-a"),
            ("form[pools][0][size]", "1"),
        ],
        &id,
    )
    .await
    .unwrap();
    assert_eq!(r.headers()["x-request-id"], id.as_str(), "answered back");
    assert!(
        r.status().is_success(),
        "create: {}",
        r.text().await.unwrap()
    );

    // The audit record of the create.
    let token = user_token("alice", "demo").await;
    let audit: serde_json::Value = reqwest::Client::new()
        .get(format!(
            "{ctl_url}/api/v1/audit?action=create&kluster=traced"
        ))
        .header("x-auth-token", token.expose())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let rec = &audit[0];
    assert_eq!(rec["requestId"], serde_json::json!(id), "{audit}");
    assert_eq!(
        rec["clientAddr"],
        serde_json::json!("198.51.100.23"),
        "{audit}"
    );
    assert_eq!(rec["userName"], serde_json::json!("alice"));

    // Both logs are JSON lines, and the id is in lines of each.
    testkit::eventually(Duration::from_secs(20), format!("id {id} in both logs"), || async {
        let d = std::fs::read_to_string(&dash.log).unwrap_or_default();
        let k = std::fs::read_to_string(&ctl.log).unwrap_or_default();
        let json_lines_with = |text: &str| {
            text.lines()
                .filter(|l| l.contains(&id))
                .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
                .count()
        };
        // The reconciler's pass over the kluster carries the id of the change too.
        let reconciled = k
            .lines()
            .any(|l| l.contains(&id) && l.contains("\"reconcile\""));
        let bodies = spans.lock().unwrap().clone();
        let in_export = |text: &[u8]| {
            bodies
                .iter()
                .any(|b| b.windows(text.len()).any(|w| w == text))
        };
        // The request's span, and the controller's calls inside requests and passes: to
        // the cloud (admission reads its catalog), to Keystone (token validation) and to
        // its store.
        let exported = in_export(id.as_bytes())
            && in_export(b"cloud.operation")
            && in_export(b"keystone.operation")
            && in_export(b"store.operation");
        if json_lines_with(&d) > 0 && json_lines_with(&k) > 0 && reconciled && exported {
            let line = d.lines().find(|l| l.contains(&id)).unwrap();
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(line.contains("\"user\":\"alice@demo\""), "{v}");
            return Ok(());
        }
        Err(format!(
            "dashboard lines {}, controller lines {}, reconcile line {reconciled}, exported {exported}\n{}\n{}",
            json_lines_with(&d),
            json_lines_with(&k),
            dash.tail(),
            ctl.tail()
        ))
    })
    .await;
}
