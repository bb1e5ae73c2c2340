//! How often the dashboard asks the real local Keystone (through a counting proxy): once per
//! token and re-check interval however many requests a session sends at once, and the
//! project switcher's list once a minute per token, not on every page.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;

use crate::common::*;

/// What the proxy counted.
#[derive(Default)]
struct Counts {
    /// The dashboard's validations of a user's token (`GET /v3/auth/tokens`).
    validations: AtomicUsize,
    /// Project listings (`GET /v3/auth/projects`).
    project_lists: AtomicUsize,
}

/// A proxy in front of the real Keystone that counts the dashboard's token validations and
/// project listings.
async fn counting_keystone() -> (String, Arc<Counts>) {
    let count = Arc::new(Counts::default());
    let counted = count.clone();
    let hook: proxy::Hook = Arc::new(move |req: &proxy::Seen| {
        let get = req.method == axum::http::Method::GET;
        let path = req.path.split('?').next().unwrap_or_default();
        // The dashboard validates a user's token with that token itself; the controller uses
        // its service token. Count the dashboard's.
        let own = req.header("x-auth-token") == req.header("x-subject-token");
        if get && path.ends_with("/auth/tokens") && own {
            counted.validations.fetch_add(1, SeqCst);
        }
        if get && path.ends_with("/auth/projects") {
            counted.project_lists.fetch_add(1, SeqCst);
        }
        None
    });
    let base = keystone_url().trim_end_matches("/v3").to_string();
    (format!("{}/v3", proxy::start(&base, hook).await), count)
}

#[tokio::test]
async fn concurrent_requests_of_a_session_ask_keystone_about_its_token_once() {
    let (ks, counts) = counting_keystone().await;
    let srv = spawn(|s| {
        s.keystone_url = Some(ks.clone());
        s.token_recheck_secs = Some(1);
    })
    .await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    srv.clock.advance(std::time::Duration::from_millis(1100)); // a re-check is due
    let before = counts.validations.load(SeqCst);
    // What a hydrated page does: several server functions at once.
    let (a, b, d, e) = tokio::join!(
        call(&c, &srv, "current_session", &[]),
        call(&c, &srv, "list_projects", &[]),
        call(&c, &srv, "list_klusters", &[]),
        page(&c, &srv, "/"),
    );
    assert!(a.status().is_success() && b.status().is_success() && d.status().is_success());
    assert_eq!(e.0, 200);
    let asked = counts.validations.load(SeqCst) - before;
    assert_eq!(asked, 1, "one Keystone check for all of them");
}

#[tokio::test]
async fn the_project_list_is_asked_once_a_minute_not_on_every_page() {
    let (ks, counts) = counting_keystone().await;
    let srv = spawn(|s| s.keystone_url = Some(ks.clone())).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let before = counts.project_lists.load(SeqCst);
    for _ in 0..3 {
        let (status, _, html) = page(&c, &srv, "/").await;
        assert_eq!(status, 200);
        assert!(html.contains("staging"), "the switcher lists the projects");
    }
    let names: Vec<app::model::ProjectChoice> = call(&c, &srv, "list_projects", &[])
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_eq!(
        counts.project_lists.load(SeqCst) - before,
        1,
        "three pages and a call: one listing"
    );
    // A minute later the list is asked for again (a role granted meanwhile shows).
    srv.clock.advance(std::time::Duration::from_secs(61));
    let (status, _, _) = page(&c, &srv, "/").await;
    assert_eq!(status, 200);
    assert_eq!(counts.project_lists.load(SeqCst) - before, 2);
}
