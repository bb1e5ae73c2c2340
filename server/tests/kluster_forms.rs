//! The detail page's change forms against the real controller: they carry the kluster's
//! resource version the page showed, so a change made meanwhile by someone else is not
//! undone (412 → the page explains and shows the fresh state), with and without JavaScript.

mod common;

use common::{browser, call, create_kluster, login, page, post_form, user_token, TestServer};
use serde_json::Value;

/// The kluster as the controller has it now.
async fn kluster(srv: &TestServer, name: &str) -> Value {
    let token = user_token("alice", "demo").await;
    reqwest::Client::new()
        .get(format!("{}/api/v1/clusters/{name}", srv.controller_url))
        .header("x-auth-token", token.expose())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Another admin's scale straight through the API, as a Kubernikus client (no If-Match).
async fn scale_elsewhere(srv: &TestServer, name: &str, size: i64) {
    let mut k = kluster(srv, name).await;
    k["spec"]["nodePools"][0]["size"] = size.into();
    let token = user_token("alice", "demo").await;
    let r = reqwest::Client::new()
        .put(format!("{}/api/v1/clusters/{name}", srv.controller_url))
        .header("x-auth-token", token.expose())
        .body(k.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
}

#[tokio::test]
async fn a_change_over_someone_elses_is_refused_in_words_and_the_page_shows_the_fresh_state() {
    let srv = common::spawn(|_| {}).await;
    create_kluster(&srv, "alice", r#"{"name":"occ","spec":{"nodePools":[{"name":"p","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let (s, _, html) = page(&c, &srv, "/klusters/occ").await;
    assert_eq!(s, 200);
    assert!(
        html.contains(r#"name="version" value="1""#),
        "the forms carry the version shown"
    );

    // Someone else scales to 2 meanwhile; the page's scale to 3 (from version 1) is refused.
    scale_elsewhere(&srv, "occ", 2).await;
    let stale = [
        ("name", "occ"),
        ("pool", "p"),
        ("size", "3"),
        ("version", "1"),
    ];
    let r = call(&c, &srv, "scale_pool", &stale).await;
    assert_eq!(r.status(), 412, "{}", r.text().await.unwrap_or_default());
    assert_eq!(
        kluster(&srv, "occ").await["spec"]["nodePools"][0]["size"],
        2
    );
    let edit = [
        ("name", "occ"),
        ("edit[op]", "remove_pool"),
        ("edit[pool]", "p"),
        ("version", "1"),
    ];
    let r = call(&c, &srv, "edit_kluster", &edit).await;
    assert_eq!(r.status(), 412, "edits are guarded alike");

    // Without JavaScript: back to the page, which says what happened and shows size 2.
    let r = post_form(&c, &srv, "scale_pool", &stale).await;
    let back = r.headers()["location"].to_str().unwrap().to_string();
    assert_eq!(back, "/klusters/occ?error=stale");
    let (_, _, html) = page(&c, &srv, &back).await;
    assert!(
        html.contains("Someone else changed this kluster since the page showed it"),
        "{html}"
    );
    assert!(html.contains(r#"name="version" value="2""#));

    // From the fresh version the change goes through; a form without a version (an older
    // page) writes as before.
    let fresh = [
        ("name", "occ"),
        ("pool", "p"),
        ("size", "3"),
        ("version", "2"),
    ];
    let r = call(&c, &srv, "scale_pool", &fresh).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let k = kluster(&srv, "occ").await;
    assert_eq!(k["spec"]["nodePools"][0]["size"], 3);
    assert_eq!(k["metadata"]["resourceVersion"], "3");
    let r = call(
        &c,
        &srv,
        "scale_pool",
        &[("name", "occ"), ("pool", "p"), ("size", "4")],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(
        kluster(&srv, "occ").await["spec"]["nodePools"][0]["size"],
        4
    );

    // A tampered version is refused in words, nothing sent.
    let bad = [
        ("name", "occ"),
        ("pool", "p"),
        ("size", "1"),
        ("version", "1\"x"),
    ];
    let r = call(&c, &srv, "scale_pool", &bad).await;
    assert_eq!(r.status(), 400);
    assert_eq!(
        kluster(&srv, "occ").await["spec"]["nodePools"][0]["size"],
        4
    );
}
