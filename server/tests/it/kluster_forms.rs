//! The detail page's change forms against the real controller: they carry the kluster's
//! resource version the page showed, so a change made meanwhile by someone else is not
//! undone (412 → the page explains and shows the fresh state), with and without JavaScript.

use crate::common::{
    browser, call, create_kluster, login, page, post_form, user_token, TestServer,
};
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

/// The kluster's resource version once the controller has moved it past Pending (and so
/// resolved its network, a change of its spec).
async fn settled_version(srv: &TestServer, name: &str) -> u64 {
    let k = testkit::eventually(
        std::time::Duration::from_secs(20),
        "past Pending",
        || async {
            let k = kluster(srv, name).await;
            if k["status"]["phase"] != "Pending" {
                Ok(k)
            } else {
                Err(format!("still Pending: {k}"))
            }
        },
    )
    .await;
    k["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
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
    let srv = crate::common::spawn(|_| {}).await;
    create_kluster(&srv, "alice", r#"{"name":"occ","spec":{"nodePools":[{"name":"p","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#).await;
    // The controller resolves the kluster's network once (a spec change): wait for it.
    let v0 = settled_version(&srv, "occ").await;
    let (v1, v2) = ((v0 + 1).to_string(), (v0 + 2).to_string());
    let v0 = v0.to_string();
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let (s, _, html) = page(&c, &srv, "/klusters/occ").await;
    assert_eq!(s, 200);
    assert!(
        html.contains(&format!(r#"name="version" value="{v0}""#)),
        "the forms carry the version shown"
    );

    // Someone else scales to 2 meanwhile; the page's scale to 3 (from the version shown) is refused.
    scale_elsewhere(&srv, "occ", 2).await;
    let stale = [
        ("name", "occ"),
        ("pool", "p"),
        ("size", "3"),
        ("version", v0.as_str()),
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
        ("version", v0.as_str()),
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
    assert!(html.contains(&format!(r#"name="version" value="{v1}""#)));

    // From the fresh version the change goes through; a form without a version (an older
    // page) writes as before.
    let fresh = [
        ("name", "occ"),
        ("pool", "p"),
        ("size", "3"),
        ("version", v1.as_str()),
    ];
    let r = call(&c, &srv, "scale_pool", &fresh).await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let k = kluster(&srv, "occ").await;
    assert_eq!(k["spec"]["nodePools"][0]["size"], 3);
    assert_eq!(k["metadata"]["resourceVersion"], v2.as_str());
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

#[tokio::test]
async fn the_setup_command_points_at_the_public_url_and_offers_the_binaries() {
    let srv = crate::common::spawn(|s| {
        s.controller.controller_public_url = Some("https://kubernikus.example.com/".into());
        s.controller.controller_binaries_url = Some("https://dl.example.com/k".into());
    })
    .await;
    create_kluster(&srv, "alice", r#"{"name":"setup","spec":{"nodePools":[{"name":"p","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let (s, _, html) = page(&c, &srv, "/klusters/setup").await;
    assert_eq!(s, 200);
    assert!(
        html.contains("--url https://kubernikus.example.com --name setup"),
        "{html}"
    );
    assert!(!html.contains(&format!("--url {} ", srv.controller_url)));
    assert!(html.contains(r#"href="https://dl.example.com/k/linux/amd64/kubernikusctl""#));
    assert!(html.contains("Download kubernikusctl:"));
}

#[tokio::test]
async fn admins_switch_termination_protection_without_javascript() {
    let srv = crate::common::spawn(|_| {}).await;
    create_kluster(&srv, "alice", r#"{"name":"tp","spec":{"nodePools":[{"name":"p","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let (_, _, html) = page(&c, &srv, "/klusters/tp").await;
    assert!(html.contains("Turn on termination protection"), "{html}");
    let r = post_form(
        &c,
        &srv,
        "set_termination_protection",
        &[("name", "tp"), ("enabled", "true")],
    )
    .await;
    assert_eq!(r.headers()["location"], "/klusters/tp");
    assert_eq!(
        kluster(&srv, "tp").await["metadata"]["terminationProtection"],
        true
    );
    let (_, _, html) = page(&c, &srv, "/klusters/tp").await;
    assert!(html.contains("Termination protection is on"), "{html}");
    assert!(html.contains("Turn off termination protection"));
    // Deleting is refused and explained.
    let r = call(
        &c,
        &srv,
        "delete_kluster",
        &[("name", "tp"), ("confirm", "tp")],
    )
    .await;
    assert_eq!(r.status(), 403);
    let text = r.text().await.unwrap();
    assert!(text.contains("turn it off (under Delete)"), "{text}");
    // A member has no such form and the server refuses the call.
    let m = browser();
    login(&m, &srv, "bob", "demo").await;
    let (_, _, html) = page(&m, &srv, "/klusters/tp").await;
    assert!(
        !html.contains("termination protection"),
        "no form for members"
    );
    let r = call(
        &m,
        &srv,
        "set_termination_protection",
        &[("name", "tp"), ("enabled", "false")],
    )
    .await;
    assert_eq!(r.status(), 403);
    // Off again: deleting works.
    let r = call(
        &c,
        &srv,
        "set_termination_protection",
        &[("name", "tp"), ("enabled", "false")],
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let r = call(
        &c,
        &srv,
        "delete_kluster",
        &[("name", "tp"), ("confirm", "tp")],
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let bad = [("name", "tp"), ("enabled", "maybe")];
    assert_eq!(
        call(&c, &srv, "set_termination_protection", &bad)
            .await
            .status(),
        400
    );
}
