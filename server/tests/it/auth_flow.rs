//! Sign-in against the real local Keystone, through the real router on a real socket with
//! the SQLite session store: the cookie, where the token never goes, wrong passwords, rate
//! limits, an unreachable Keystone and readiness. Sessions after sign-in are in
//! `auth_session.rs`.

use crate::common::*;
use app::error::AppError;
use reqwest::header;

#[tokio::test]
async fn login_sets_a_hardened_cookie_and_renders_user_project_and_roles() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    let r = call(
        &c,
        &srv,
        "login",
        &[
            ("user_name", "alice"),
            ("password", "alice-secret"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ],
    )
    .await;
    assert_eq!(r.status(), 200);
    let cookie = r.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_string();
    assert!(cookie.starts_with("mc_session="), "{cookie}");
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="] {
        assert!(cookie.contains(flag), "cookie lacks {flag}: {cookie}");
    }
    assert!(
        !cookie.contains("Secure"),
        "plain-http origin must not set Secure: {cookie}"
    );

    let (status, _, html) = page(&c, &srv, "/").await;
    assert_eq!(status, 200);
    assert!(
        html.contains("alice") && html.contains("@") && html.contains("demo"),
        "{html}"
    );
    assert!(html.contains("kubernetes_admin"), "roles missing: {html}");
    assert!(
        html.contains("staging"),
        "project switcher lacks alice's second project"
    );
}

#[tokio::test]
async fn the_token_never_reaches_html_or_server_function_answers() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let tokens = stored_tokens(&srv).await;
    assert_eq!(tokens.len(), 1, "exactly one token in the session store");
    let token = &tokens[0];
    // Prove it is the live Keystone token, so the absence checks below mean something.
    let secret = keystone::TokenSecret::new(token.clone());
    let seen = keystone()
        .validate(&secret, &secret)
        .await
        .expect("stored token is valid");
    assert_eq!(seen.user.name, "alice");

    let (_, _, html) = page(&c, &srv, "/").await;
    assert!(html.contains("alice"));
    assert!(!html.contains(token.as_str()), "token leaked into the HTML");
    for f in ["current_session", "list_projects"] {
        let body = call(&c, &srv, f, &[]).await.text().await.unwrap();
        assert!(!body.contains(token.as_str()), "token leaked from {f}");
        assert!(!body.contains("gAAAAA"), "a fernet token leaked from {f}");
    }
}

#[tokio::test]
async fn wrong_password_is_401_with_a_message_and_a_plain_form_keeps_all_but_the_password() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    let r = call(
        &c,
        &srv,
        "login",
        &[
            ("user_name", "alice"),
            ("password", "nope"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ],
    )
    .await;
    assert_eq!(r.status(), 401);
    assert!(
        r.headers().get(header::SET_COOKIE).is_none(),
        "no session for a failed login"
    );
    let err = app_error(&r.text().await.unwrap());
    assert_eq!(err.to_string(), "Invalid user name or password");

    let r = post_form(
        &c,
        &srv,
        "login",
        &[
            ("user_name", "alice"),
            ("password", "nope"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ],
    )
    .await;
    assert_eq!(r.status(), 302);
    let loc = r.headers()[header::LOCATION].to_str().unwrap().to_string();
    assert!(loc.starts_with("/login?error=invalid_credentials"), "{loc}");
    assert!(
        loc.contains("user=alice") && loc.contains("domain=demo") && loc.contains("project=demo")
    );
    assert!(
        !loc.contains("nope"),
        "the password must not be kept: {loc}"
    );

    let (status, _, html) = page(&c, &srv, &loc).await;
    assert_eq!(status, 200);
    assert!(html.contains("Invalid user name or password"));
    assert!(html.contains(r#"value="alice""#), "user name kept");
    assert!(!html.contains("nope"));
}

#[tokio::test]
async fn repeated_failures_are_rate_limited_per_user_name_without_asking_keystone() {
    let srv = spawn(|s| s.login_failures_per_user = Some(2)).await;
    let c = browser();
    let bad = [
        ("user_name", "bob"),
        ("password", "wrong"),
        ("user_domain", "demo"),
        ("project", "demo"),
    ];
    for _ in 0..2 {
        assert_eq!(call(&c, &srv, "login", &bad).await.status(), 401);
    }
    let r = call(&c, &srv, "login", &bad).await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key(header::RETRY_AFTER));
    assert!(matches!(
        app_error(&r.text().await.unwrap()),
        AppError::RateLimited { .. }
    ));
    // Even the right password is refused while the name is blocked ...
    let good = [
        ("user_name", "bob"),
        ("password", "bob-secret"),
        ("user_domain", "demo"),
        ("project", "demo"),
    ];
    assert_eq!(call(&c, &srv, "login", &good).await.status(), 429);
    // ... but other users are not affected.
    login(&c, &srv, "alice", "demo").await;
}

#[tokio::test]
async fn unreachable_keystone_gives_503_with_a_clear_message_and_not_ready() {
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}/v3", l.local_addr().unwrap().port())
    };
    let srv = spawn(|s| s.keystone_url = Some(dead)).await;
    // (the embedded controller starts anyway; it fails closed while Keystone is away)
    let c = browser();
    let r = call(
        &c,
        &srv,
        "login",
        &[
            ("user_name", "alice"),
            ("password", "alice-secret"),
            ("user_domain", "demo"),
            ("project", "demo"),
        ],
    )
    .await;
    assert_eq!(r.status(), 503);
    let msg = app_error(&r.text().await.unwrap()).to_string();
    assert!(
        msg.contains("Keystone") && msg.contains("cannot be reached"),
        "{msg}"
    );
    let r = c.get(format!("{}/readyz", srv.base)).send().await.unwrap();
    assert_eq!(r.status(), 503);
    let r = c.get(format!("{}/healthz", srv.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn readyz_is_ok_when_keystone_answers() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    testkit::eventually(std::time::Duration::from_secs(5), "readyz 200", || async {
        let status = c
            .get(format!("{}/readyz", srv.base))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
        if status == 200 {
            Ok(())
        } else {
            Err(status)
        }
    })
    .await;
}
