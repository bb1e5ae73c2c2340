//! Several dashboard replicas on one PostgreSQL (`MC_TEST_POSTGRES_URL`, started by
//! scripts/test): a session made on one replica works on the other, and sign-in limits are
//! counted in the shared database, not per process.

use crate::common::*;
use reqwest::header;
use std::time::Duration;
use testkit::eventually;

fn postgres_url() -> String {
    std::env::var("MC_TEST_POSTGRES_URL").expect(
        "MC_TEST_POSTGRES_URL is not set: run the suite with scripts/test, which starts a PostgreSQL",
    )
}

/// Two replicas sharing the session database and the sealing key.
async fn two_replicas(
    tweak: impl Fn(&mut server::config::Settings) + Copy,
) -> (TestServer, TestServer) {
    let a = spawn(|s| {
        s.session_store = Some(server::SessionStoreKind::Postgres(postgres_url()));
        tweak(s);
    })
    .await;
    let key = a.data_dir.join("session.key");
    let b = spawn(|s| {
        s.session_store = Some(server::SessionStoreKind::Postgres(postgres_url()));
        s.session_key_file = Some(key.clone());
        tweak(s);
    })
    .await;
    for srv in [&a, &b] {
        wait_ready(srv).await;
    }
    (a, b)
}

async fn wait_ready(srv: &TestServer) {
    eventually(Duration::from_secs(20), "ready", || async {
        let r = browser()
            .get(format!("{}/readyz", srv.base))
            .send()
            .await
            .unwrap();
        if r.status() == 200 {
            Ok(())
        } else {
            Err(r.text().await.unwrap())
        }
    })
    .await;
}

/// Signs alice in on `srv` with `c`; returns the session cookie (name=value).
async fn sign_in_cookie(c: &reqwest::Client, srv: &TestServer) -> String {
    let r = c
        .post(format!("{}/api/login", srv.base))
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
    assert_eq!(r.status(), 200);
    r.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_session_made_on_one_replica_works_on_the_other() {
    let (a, b) = two_replicas(|_| {}).await;
    let c = browser();
    let cookie = sign_in_cookie(&c, &a).await;
    // A browser that only has the cookie, talking to the other replica.
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{}/", b.base))
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "signed in on the other replica");
    assert!(r.text().await.unwrap().contains("alice"));
    // Signing out on B ends it on A too.
    let out = reqwest::Client::new()
        .post(format!("{}/api/logout", b.base))
        .header("sec-fetch-site", "same-origin")
        .header(header::COOKIE, &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 200);
    let (status, loc, _) = page(&c, &a, "/").await;
    assert_eq!((status, loc.as_deref()), (302, Some("/login")));
}

#[tokio::test]
async fn sign_in_limits_hold_across_replicas() {
    let (a, b) = two_replicas(|s| s.login_failures_per_user = Some(3)).await;
    // A user name nobody else in the suite uses (the attempt tables are shared).
    let user = format!("ghost-{}", std::process::id());
    let try_on = |srv: &TestServer| {
        let url = format!("{}/api/login", srv.base);
        let user = user.clone();
        async move {
            browser()
                .post(url)
                .header("sec-fetch-site", "same-origin")
                .header(header::ACCEPT, "application/json")
                .form(&[
                    ("user_name", user.as_str()),
                    ("password", "wrong"),
                    ("user_domain", "demo"),
                    ("project", "demo"),
                ])
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(try_on(&a).await, 401);
    assert_eq!(try_on(&b).await, 401);
    assert_eq!(try_on(&a).await, 401);
    // The fourth guess is delayed whichever replica gets it.
    assert_eq!(try_on(&b).await, 429);
    assert_eq!(try_on(&a).await, 429);
}
