//! A signed-in session against the real local Keystone: switching project, sign-out and
//! revocation, expiry, session id rotation, the cookie on https, cross-site posts, and one
//! Keystone validation per token however many requests a session sends at once.

mod common;

use common::*;
use reqwest::header;

#[tokio::test]
async fn switching_project_rescopes_the_session_and_logout_revokes_the_chain() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let old = keystone::TokenSecret::new(stored_tokens(&srv).await.remove(0));
    let projects: Vec<app::model::ProjectChoice> = call(&c, &srv, "list_projects", &[])
        .await
        .json()
        .await
        .unwrap();
    let names: Vec<_> = projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["demo", "staging"]);
    let staging = &projects[1].id;

    let r = call(&c, &srv, "switch_project", &[("project_id", staging)]).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r = call(&c, &srv, "current_session", &[]).await;
    let body = r.text().await.unwrap();
    let info: Option<app::model::SessionInfo> =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    let info = info.expect("still signed in");
    assert_eq!(info.project_name, "staging");
    assert_eq!(&info.project_id, staging);

    // The session now holds the rescoped token and, as chain root, the old one.
    let stored = stored_tokens(&srv).await;
    assert_eq!(stored.len(), 2, "{stored:?}");
    assert!(stored.contains(&old.expose().to_string()));
    let new = stored
        .iter()
        .find(|t| *t != old.expose())
        .expect("a new token");
    let new = keystone::TokenSecret::new(new.clone());
    let ks = keystone();
    let svc = service_token().await;
    let seen = ks.validate(&svc, &new).await.expect("rescoped token valid");
    assert_eq!(seen.project.unwrap().name, "staging");

    assert_eq!(call(&c, &srv, "logout", &[]).await.status(), 200);
    assert!(matches!(
        ks.validate(&svc, &new).await,
        Err(keystone::Error::NotFound)
    ));
    assert!(matches!(
        ks.validate(&svc, &old).await,
        Err(keystone::Error::NotFound)
    ));
}

#[tokio::test]
async fn switching_to_a_project_without_a_role_is_refused_in_words() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "bob", "demo").await;
    let r = call(
        &c,
        &srv,
        "switch_project",
        &[("project_id", "no-such-project")],
    )
    .await;
    assert_eq!(r.status(), 403);
    let msg = app_error(&r.text().await.unwrap()).to_string();
    assert!(msg.contains("no role in that project"), "{msg}");
}

#[tokio::test]
async fn logout_revokes_the_token_and_deletes_the_session() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let token = keystone::TokenSecret::new(stored_tokens(&srv).await.remove(0));
    let r = call(&c, &srv, "logout", &[]).await;
    assert_eq!(r.status(), 200);
    assert!(stored_tokens(&srv).await.is_empty(), "session row deleted");
    let (status, loc, _) = page(&c, &srv, "/").await;
    assert_eq!((status, loc.as_deref()), (302, Some("/login")));
    let check = keystone().validate(&service_token().await, &token).await;
    assert!(matches!(check, Err(keystone::Error::NotFound)), "{check:?}");
}

#[tokio::test]
async fn a_revoked_token_sends_the_user_back_to_login_with_a_message() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let token = keystone::TokenSecret::new(stored_tokens(&srv).await.remove(0));
    keystone().revoke(&token, &token).await.unwrap();
    let (status, loc, _) = page(&c, &srv, "/").await;
    assert_eq!(status, 302);
    let loc = loc.unwrap();
    assert_eq!(loc, "/login?error=session_expired");
    let (_, _, html) = page(&c, &srv, &loc).await;
    assert!(html.contains("Your session has ended"), "{html}");
    assert!(
        stored_tokens(&srv).await.is_empty(),
        "ended session removed from the store"
    );
}

#[tokio::test]
async fn sessions_end_at_their_absolute_expiry() {
    let srv = spawn(|s| s.session_max_lifetime_secs = Some(2)).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let (status, _, _) = page(&c, &srv, "/").await;
    assert_eq!(status, 200);
    srv.clock.advance(std::time::Duration::from_millis(2300));
    let (status, loc, _) = page(&c, &srv, "/").await;
    assert_eq!(
        (status, loc.as_deref()),
        (302, Some("/login?error=session_expired"))
    );
}

#[tokio::test]
async fn the_session_id_changes_on_every_sign_in() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    let mut ids = Vec::new();
    for _ in 0..2 {
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
        ids.push(
            r.headers()[header::SET_COOKIE]
                .to_str()
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .to_string(),
        );
    }
    assert_ne!(ids[0], ids[1]);
}

#[tokio::test]
async fn an_https_origin_gives_a_secure_host_prefixed_cookie() {
    let srv = spawn(|s| s.public_origin = Some("https://mc.example".into())).await;
    let r = browser()
        .post(format!("{}/api/login", srv.base))
        .header(header::ORIGIN, "https://mc.example")
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
    assert_eq!(r.status(), 200);
    let cookie = r.headers()[header::SET_COOKIE].to_str().unwrap();
    assert!(cookie.starts_with("__Host-mc_session="), "{cookie}");
    assert!(cookie.contains("Secure") && cookie.contains("Path=/") && !cookie.contains("Domain="));
}

#[tokio::test]
async fn cross_site_posts_are_rejected() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    let form = [
        ("user_name", "alice"),
        ("password", "alice-secret"),
        ("user_domain", "demo"),
        ("project", "demo"),
    ];
    let r = c
        .post(format!("{}/api/login", srv.base))
        .header("sec-fetch-site", "cross-site")
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    assert!(r.headers().get(header::SET_COOKIE).is_none());
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("Cross-site request rejected"));
    let r = c
        .post(format!("{}/api/logout", srv.base))
        .header(header::ORIGIN, "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

/// A proxy in front of the real Keystone that counts the dashboard's token validations.
async fn counting_keystone() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use axum::{body::Body, extract::State, http::Request, response::IntoResponse};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    type St = (reqwest::Client, String, Arc<AtomicUsize>);
    async fn forward(
        State((http, upstream, count)): State<St>,
        req: Request<Body>,
    ) -> axum::response::Response {
        let path = req
            .uri()
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        // The dashboard validates a user's token with that token itself; the controller uses
        // its service token. Count the dashboard's.
        let own = req.headers().get("x-auth-token") == req.headers().get("x-subject-token");
        if req.method() == axum::http::Method::GET
            && req.uri().path().ends_with("/auth/tokens")
            && own
        {
            count.fetch_add(1, Ordering::SeqCst);
        }
        let base = upstream.trim_end_matches("/v3");
        let mut out = http.request(req.method().clone(), format!("{base}{path}"));
        for (name, value) in req.headers() {
            if name != "host" && name != "content-length" {
                out = out.header(name.clone(), value.clone());
            }
        }
        let body = axum::body::to_bytes(req.into_body(), 1 << 20)
            .await
            .unwrap_or_default();
        let r = out.body(body).send().await.unwrap();
        let status = axum::http::StatusCode::from_u16(r.status().as_u16()).unwrap();
        let mut headers = axum::http::HeaderMap::new();
        for (name, value) in r.headers() {
            if name == "x-subject-token" || name == "content-type" {
                headers.insert(name.clone(), value.clone());
            }
        }
        (status, headers, r.bytes().await.unwrap_or_default()).into_response()
    }
    let count = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new().fallback(forward).with_state((
        reqwest::Client::new(),
        keystone_url(),
        count.clone(),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v3"), count)
}

#[tokio::test]
async fn concurrent_requests_of_a_session_ask_keystone_about_its_token_once() {
    let (ks, validations) = counting_keystone().await;
    let srv = spawn(|s| {
        s.keystone_url = Some(ks.clone());
        s.token_recheck_secs = Some(1);
    })
    .await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    srv.clock.advance(std::time::Duration::from_millis(1100)); // a re-check is due
    let before = validations.load(std::sync::atomic::Ordering::SeqCst);
    // What a hydrated page does: several server functions at once.
    let (a, b, d, e) = tokio::join!(
        call(&c, &srv, "current_session", &[]),
        call(&c, &srv, "list_projects", &[]),
        call(&c, &srv, "list_klusters", &[]),
        page(&c, &srv, "/"),
    );
    assert!(a.status().is_success() && b.status().is_success() && d.status().is_success());
    assert_eq!(e.0, 200);
    let asked = validations.load(std::sync::atomic::Ordering::SeqCst) - before;
    assert_eq!(asked, 1, "one Keystone check for all of them");
}
