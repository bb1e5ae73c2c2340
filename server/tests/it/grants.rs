//! The pages offer what the controller's policy grants (`GET /api/v1/access`, kept in the
//! session at sign-in), not what the dashboard guesses from the roles; a Kubernikus without
//! that extension (404) leaves the default Kubernikus policy's answer.

use std::sync::{Arc, Mutex};

use crate::common::*;

/// What the test proxy answers for `GET /api/v1/access` (`None`: passed through).
type Access = Arc<Mutex<Option<(u16, &'static str)>>>;

/// A proxy in front of `upstream` answering `/api/v1/access` as `access` says.
async fn proxy(upstream: &str, access: Access) -> String {
    let hook: proxy::Hook = Arc::new(move |req: &proxy::Seen| {
        if !req.path.starts_with("/api/v1/access") {
            return None;
        }
        let a = *access.lock().unwrap();
        a.map(|(status, body)| proxy::answer(status, body))
    });
    proxy::start(upstream, hook).await
}

/// Whether the home page offers to create a kluster.
async fn offers_create(srv: &TestServer, user: &str) -> bool {
    let c = browser();
    login(&c, srv, user, "demo").await;
    let (status, _, home) = page(&c, srv, "/").await;
    assert_eq!(status, 200, "{user}: {home}");
    home.contains("href=\"/klusters/new\"")
}

#[tokio::test]
async fn the_pages_offer_what_the_controller_grants_not_what_the_roles_suggest() {
    let backing = spawn(|_| {}).await;
    let access = Access::default();
    let url = proxy(&backing.controller_url, access.clone()).await;
    let srv = spawn(|s| s.controller_url = Some(url)).await;

    // The controller's own answer: alice (kubernetes_admin) may create, bob (member) not.
    assert!(
        offers_create(&srv, "alice").await,
        "alice: the controller grants it"
    );
    assert!(
        !offers_create(&srv, "bob").await,
        "bob: the controller does not"
    );

    // A policy that lets members create (as an operator may write it): bob is offered it.
    *access.lock().unwrap() = Some((
        200,
        r#"{"project":"demo","granted":["ListClusters","ShowCluster","CreateCluster"]}"#,
    ));
    assert!(
        offers_create(&srv, "bob").await,
        "bob: granted by the policy"
    );
    // And one that does not let admins create: alice is not, whatever her roles.
    *access.lock().unwrap() = Some((200, r#"{"project":"demo","granted":["ListClusters"]}"#));
    assert!(!offers_create(&srv, "alice").await, "alice: not granted");
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let (_, _, form) = page(&c, &srv, "/klusters/new").await;
    assert!(
        form.contains("does not let you create klusters"),
        "the form says who may"
    );

    // A Kubernikus without the extension: the default policy decides what is offered.
    *access.lock().unwrap() = Some((404, r#"{"code":404,"message":"not found"}"#));
    assert!(
        offers_create(&srv, "alice").await,
        "alice: the default policy"
    );
    assert!(!offers_create(&srv, "bob").await, "bob: the default policy");
}
