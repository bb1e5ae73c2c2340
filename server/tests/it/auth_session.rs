//! A signed-in session against the real local Keystone: switching project, sign-out and
//! revocation, expiry, session id rotation, the cookie on https, cross-site posts. (How often
//! the dashboard asks Keystone: `keystone_calls.rs`.)

use crate::common::*;
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
