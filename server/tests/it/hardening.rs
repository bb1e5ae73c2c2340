//! The holes a hostile tenant or a sibling site could use, each closed and kept closed:
//! forged posts to every server function, calls to none, cross-site kubeconfig minting, huge
//! bodies, headers, files at rest, sign-in guessing, and live streams that must fail closed.

use crate::common::*;
use reqwest::header;

fn every_server_fn() -> Vec<String> {
    let mut paths: Vec<String> = leptos::server_fn::axum::server_fn_paths()
        .map(|(p, _)| p.to_string())
        .collect();
    paths.sort();
    paths.dedup();
    assert!(paths.len() >= 10, "server functions found: {paths:?}");
    paths
}

#[tokio::test]
async fn every_server_function_refuses_sibling_cross_site_and_headerless_posts() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let forged: [&[(&str, &str)]; 5] = [
        &[
            ("sec-fetch-site", "same-site"),
            ("origin", "http://127.0.0.1:9999"),
        ],
        &[("sec-fetch-site", "same-site")],
        &[("sec-fetch-site", "cross-site"), ("origin", ORIGIN)],
        &[("sec-fetch-site", "none")],
        &[],
    ];
    let paths = every_server_fn();
    for path in &paths {
        for headers in forged {
            let mut req = c.post(format!("{}{path}", srv.base)).body("x=1");
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), 403, "{path} with {headers:?}");
            assert!(r
                .text()
                .await
                .unwrap()
                .contains("Cross-site request rejected"));
        }
    }
    // Still signed in: none of the forged posts (logout among them) did anything.
    assert_eq!(page(&c, &srv, "/").await.0, 200);
    // The same post from the page itself is not refused by the guard.
    for path in &paths {
        let r = c
            .post(format!("{}{path}", srv.base))
            .header("sec-fetch-site", "same-origin")
            .body("")
            .send()
            .await
            .unwrap();
        assert_ne!(r.status(), 403, "{path} same-origin");
    }
}

#[tokio::test]
async fn a_kubeconfig_is_not_minted_for_another_site() {
    let srv = spawn(|_| {}).await;
    create_kluster(&srv, "alice", r#"{"name":"mint","spec":{"nodePools":[]}}"#).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let get = |site: Option<&'static str>| {
        let mut r = c.get(format!("{}/klusters/mint/kubeconfig", srv.base));
        if let Some(s) = site {
            r = r.header("sec-fetch-site", s);
        }
        r.send()
    };
    for site in ["cross-site", "same-site"] {
        let r = get(Some(site)).await.unwrap();
        assert_eq!(r.status(), 403, "{site}");
        assert!(r
            .text()
            .await
            .unwrap()
            .contains("Cross-site request rejected"));
    }
    for site in [Some("same-origin"), Some("none"), None] {
        let r = get(site).await.unwrap();
        assert_eq!(r.status(), 200, "{site:?}");
        assert!(r.text().await.unwrap().contains("client-certificate-data"));
    }
}

#[tokio::test]
async fn a_20_mb_body_gets_413_in_words() {
    let srv = spawn(|_| {}).await;
    let body = vec![b'a'; 20 << 20];
    let r = browser()
        .post(format!("{}/api/login", srv.base))
        .header("sec-fetch-site", "same-origin")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    let text = r.text().await.unwrap_or_default();
    assert!(text.contains("at most 256 KB"), "{text:?}");
}

#[tokio::test]
async fn calls_no_function_can_serve_get_a_4xx_in_words() {
    let srv = spawn(|_| {}).await;
    for (method, path) in [("POST", "/api/no_such_fn"), ("GET", "/api/a/b%0Ac")] {
        let r = browser()
            .request(method.parse().unwrap(), format!("{}{path}", srv.base))
            .header("sec-fetch-site", "same-origin")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 404, "{method} {path}");
        let text = r.text().await.unwrap_or_default();
        assert!(text.contains("has no function called"), "{text:?}");
        assert!(text.contains("reload it"), "{text:?}");
        assert!(!text.contains("register_explicit"), "{text:?}");
    }
    // A real function's path answers as before: the route is only what they leave.
    let r = browser()
        .post(format!("{}/api/current_session", srv.base))
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_ne!(r.status(), 404);
    // Input a function cannot decode is the caller's fault: 400 and a sentence, not a 500.
    let r = browser()
        .post(format!("{}/api/login", srv.base))
        .header("sec-fetch-site", "same-origin")
        .header(header::ACCEPT, "application/json")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body("user=alice")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let text = r.text().await.unwrap_or_default();
    assert!(text.contains("The form data is invalid"), "{text:?}");
}

#[tokio::test]
async fn pages_carry_a_nonce_csp_and_personal_answers_are_not_stored() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let r = c.get(format!("{}/", srv.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let h = r.headers().clone();
    let html = r.text().await.unwrap();
    let csp = h[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .to_string();
    let nonce = csp
        .split("'nonce-")
        .nth(1)
        .and_then(|s| s.split('\'').next())
        .expect("a nonce in the CSP");
    assert!(nonce.len() >= 16, "{csp}");
    assert!(
        html.contains(&format!("nonce=\"{nonce}\"")),
        "scripts carry it"
    );
    for s in html.split("<script").skip(1) {
        let tag = s.split('>').next().unwrap_or_default();
        assert!(
            tag.contains(&format!("nonce=\"{nonce}\"")) || tag.contains("src="),
            "an inline script without the nonce: <script{tag}>"
        );
    }
    for must in [
        "frame-ancestors 'none'",
        "'wasm-unsafe-eval'",
        "object-src 'none'",
    ] {
        assert!(csp.contains(must), "{csp}");
    }
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("'unsafe-eval'"),
        "{csp}"
    );
    assert_eq!(h[header::CACHE_CONTROL], "no-store");
    assert!(
        h.get(header::STRICT_TRANSPORT_SECURITY).is_none(),
        "http origin"
    );
    // A second render has another nonce.
    let again = c.get(format!("{}/", srv.base)).send().await.unwrap();
    assert_ne!(
        again.headers()[header::CONTENT_SECURITY_POLICY],
        csp.as_str()
    );
    // Server functions: not stored, and nothing in them may run.
    let r = call(&c, &srv, "list_klusters", &[]).await;
    assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
    assert!(r.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap()
        .starts_with("default-src 'none'"));

    let https = spawn(|s| s.public_origin = Some("https://mc.example".into())).await;
    let r = browser()
        .get(format!("{}/login", https.base))
        .send()
        .await
        .unwrap();
    assert!(r.headers()[header::STRICT_TRANSPORT_SECURITY]
        .to_str()
        .unwrap()
        .starts_with("max-age="));
}

#[cfg(unix)]
#[tokio::test]
async fn data_is_private_on_disk_and_sessions_hold_no_plain_token() {
    use std::os::unix::fs::PermissionsExt;
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&srv.data_dir), 0o700);
    for f in [
        "sessions.db",
        "controller.db",
        "session.key",
        "controller-ca.key",
    ] {
        assert_eq!(mode(&srv.data_dir.join(f)), 0o600, "{f}");
    }
    for entry in std::fs::read_dir(&srv.data_dir).unwrap() {
        let p = entry.unwrap().path();
        if p.to_string_lossy().ends_with("-wal") {
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }
    let rows = raw_sessions(&srv).await;
    assert_eq!(rows.len(), 1);
    let raw = String::from_utf8_lossy(&rows[0].1).into_owned();
    assert!(fernet_tokens(&raw).is_empty(), "a plain token at rest");
    assert!(!raw.contains("alice"), "session data is sealed");
    // ... and yet the session holds the live token (so the check above means something).
    let tokens = stored_tokens(&srv).await;
    assert_eq!(tokens.len(), 1);
}

#[tokio::test]
async fn signing_in_over_a_session_revokes_its_token() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let first = keystone::TokenSecret::new(stored_tokens(&srv).await.remove(0));
    login(&c, &srv, "bob", "demo").await;
    let svc = service_token().await;
    assert!(matches!(
        keystone().validate(&svc, &first).await,
        Err(keystone::Error::NotFound)
    ));
    let left = stored_tokens(&srv).await;
    assert_eq!(left.len(), 1, "only bob's token is kept");
    assert_ne!(left[0], first.expose());
}

/// A sign-in form for `user` with `password`, posted as the hydrated app does, from the
/// client address `from` (forwarded by the trusted proxy on loopback).
async fn sign_in_from(
    c: &reqwest::Client,
    srv: &TestServer,
    from: &str,
    user: &str,
    password: &str,
) -> u16 {
    c.post(format!("{}/api/login", srv.base))
        .header("sec-fetch-site", "same-origin")
        .header("x-forwarded-for", from)
        .header(header::ACCEPT, "application/json")
        .form(&[
            ("user_name", user),
            ("password", password),
            ("user_domain", "demo"),
            ("project", "demo"),
        ])
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn parallel_guesses_are_counted_before_keystone_and_cannot_lock_the_user_out() {
    let srv = spawn(|s| {
        s.trusted_proxies = Some(vec!["127.0.0.1".into()]);
        s.login_failures_per_client = Some(1000);
    })
    .await;
    // Bob signs in from his usual address.
    assert_eq!(
        sign_in_from(&browser(), &srv, "198.51.100.1", "bob", "bob-secret").await,
        200
    );
    // 15 guesses at once, then 15 more, from the attacker's addresses.
    let guess = |i: usize| {
        let srv = &srv;
        async move {
            let from = format!("203.0.113.{i}");
            sign_in_from(&browser(), srv, &from, "bob", "wrong").await
        }
    };
    let mut answers = futures_util::future::join_all((0..15).map(guess)).await;
    answers.extend(futures_util::future::join_all((15..30).map(guess)).await);
    let reached = answers.iter().filter(|s| **s == 401).count();
    let limited = answers.iter().filter(|s| **s == 429).count();
    assert_eq!(reached + limited, 30, "{answers:?}");
    assert!(
        reached <= 6,
        "{reached} guesses reached Keystone: {answers:?}"
    );
    // The attacker's next guess waits; bob, from where he signed in before, does not.
    assert_eq!(
        sign_in_from(&browser(), &srv, "203.0.113.77", "bob", "bob-secret").await,
        429
    );
    assert_eq!(
        sign_in_from(&browser(), &srv, "198.51.100.1", "bob", "bob-secret").await,
        200
    );
}

#[tokio::test]
async fn forwarded_addresses_are_ignored_without_a_trusted_proxy() {
    let srv = spawn(|s| s.login_failures_per_client = Some(2)).await;
    for i in 0..2 {
        let from = format!("203.0.113.{i}");
        assert_eq!(
            sign_in_from(&browser(), &srv, &from, "nobody", "x").await,
            401
        );
    }
    // Another forged address changes nothing: the peer (loopback) is the client.
    assert_eq!(
        sign_in_from(&browser(), &srv, "203.0.113.9", "alice", "x").await,
        429
    );
}

#[tokio::test]
async fn the_embedded_simulator_api_is_off_unless_configured_and_never_a_tenants() {
    let token = user_token("alice", "demo").await;
    let put = |srv: &TestServer| {
        reqwest::Client::new()
            .put(format!("{}/api/v1/simulator", srv.controller_url))
            .header("x-auth-token", token.expose())
            .body(r#"{"faults":{},"limits":{"instances":100000,"cores":100000,"ram":100000000}}"#)
            .send()
    };
    let off = spawn(|_| {}).await;
    assert_eq!(put(&off).await.unwrap().status(), 404);
    let on = spawn(|s| s.controller.controller_simulator_api = Some(true)).await;
    let r = put(&on).await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.text().await.unwrap().contains("cloud admins only"));
}
