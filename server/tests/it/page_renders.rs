//! Each signed-in page answers once its data is in: every resource is fetched once per
//! render (no call to the controller after the page was sent), and the page's policy carries
//! the nonce of its inline scripts. A page that made its resources inside the frame's
//! `<Transition>` fetched them up to three times and could answer before the last fetch
//! ended (issue 33: `/klusters/new` fetched `/info`, the metadata and the quota three times,
//! the last 168 ms after the page was sent).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::common::{browser, create_kluster, login, proxy};

/// Controller calls per dashboard request id: (method and path without the query) → count.
type Calls = Arc<Mutex<HashMap<String, HashMap<String, usize>>>>;

/// A proxy in front of `upstream` that counts the calls of each request id.
async fn counting(upstream: &str) -> (String, Calls) {
    let calls: Calls = Arc::default();
    let seen = calls.clone();
    let hook: proxy::Hook = Arc::new(move |req: &proxy::Seen| {
        let id = req.header("x-request-id").to_owned();
        let path = req.path.split('?').next().unwrap_or_default();
        let mut calls = seen.lock().unwrap();
        *calls
            .entry(id)
            .or_default()
            .entry(format!("{} {path}", req.method))
            .or_default() += 1;
        None
    });
    (proxy::start(upstream, hook).await, calls)
}

/// The nonce of a page policy, checked against every inline script of `html`.
fn checked_nonce(path: &str, csp: &str, html: &str) -> String {
    let nonce = csp
        .split("'nonce-")
        .nth(1)
        .and_then(|s| s.split('\'').next())
        .unwrap_or_else(|| panic!("{path}: no nonce in its policy {csp:?}"))
        .to_owned();
    let mut inline = 0;
    for s in html.split("<script").skip(1) {
        let tag = s.split('>').next().unwrap_or_default();
        if !tag.contains("src=") {
            inline += 1;
            assert!(
                tag.contains(&format!("nonce=\"{nonce}\"")),
                "{path}: an inline script without the policy's nonce: <script{tag}>"
            );
        }
    }
    assert!(inline > 0, "{path}: no inline script (no hydration?)");
    nonce
}

#[tokio::test]
async fn every_page_fetches_each_resource_once_and_answers_after_it() {
    // The controller of one dashboard, called by a second one through a counting proxy.
    let backing = crate::common::spawn(|s| s.controller.controller_phase_seconds = Some(1.0)).await;
    let (upstream, calls) = counting(&backing.controller_url).await;
    let srv = crate::common::spawn(|s| s.controller_url = Some(upstream.clone())).await;
    create_kluster(
        &backing,
        "alice",
        r#"{"name":"rendered","spec":{"nodePools":[{"name":"p","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#,
    )
    .await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let pages = [
        "/",
        "/klusters/new",
        "/klusters/rendered",
        "/timeline",
        "/audit",
    ];
    let mut answered: Vec<(String, String, HashMap<String, usize>)> = Vec::new();
    for round in 0..3 {
        for path in pages {
            let id = format!("render-{round}-{}", path.replace('/', "_"));
            let r = c
                .get(format!("{}{path}", srv.base))
                .header("accept", "text/html")
                .header("x-request-id", &id)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{path}");
            let csp = r.headers()["content-security-policy"]
                .to_str()
                .unwrap()
                .to_owned();
            let html = r.text().await.unwrap();
            checked_nonce(path, &csp, &html);
            assert!(html.contains("</html>"), "{path}: a whole page");
            if path == "/klusters/rendered" {
                // The embedded controller runs no control plane: the page says so.
                assert!(
                    html.contains("data-simulated-control-plane")
                        && html.contains("kubectl reaches nothing"),
                    "{path}: no word that the control plane is simulated"
                );
            }
            let now = calls.lock().unwrap().get(&id).cloned().unwrap_or_default();
            assert!(!now.is_empty(), "{path}: the page called the controller");
            for (call, n) in &now {
                assert_eq!(*n, 1, "{path}: {call} fetched {n} times in one render");
            }
            answered.push((path.to_owned(), id, now));
        }
    }
    // Every call of a page was made before it was answered: none came later (the pages
    // after it have been answered meanwhile, each after calls of its own).
    let all = calls.lock().unwrap().clone();
    for (path, id, at_answer) in answered {
        assert_eq!(
            all.get(&id).cloned().unwrap_or_default(),
            at_answer,
            "{path}: controller calls after the page was answered"
        );
    }
}

/// Pages and the site's static files loaded at once, as a browser does (each page asks for
/// the favicon): a static file never carries a page's headers, and every page carries the
/// policy of its own nonce. Leptos's static-file handler took the response options of
/// whatever page render its worker thread had last run: the favicon left with the page's
/// policy, and the page went out without one (issue 33).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn static_files_never_take_a_pages_headers() {
    let site = std::env::temp_dir().join(format!("mc-site-{}", std::process::id()));
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("favicon.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    )
    .unwrap();
    let srv = crate::common::spawn(|s| s.site_root = Some(site.clone())).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let mut tasks = Vec::new();
    for worker in 0..6 {
        let (c, base) = (c.clone(), srv.base.clone());
        tasks.push(tokio::spawn(async move {
            let mut problems = Vec::new();
            for i in 0..60 {
                let path = match (worker + i) % 3 {
                    0 => "/favicon.svg",
                    1 => "/",
                    _ => "/timeline",
                };
                let r = c.get(format!("{base}{path}")).send().await.unwrap();
                let csp = r
                    .headers()
                    .get("content-security-policy")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                let location = r.headers().get("location").is_some();
                let body = r.text().await.unwrap();
                if path == "/favicon.svg" {
                    if csp.contains("nonce") || location || !body.starts_with("<svg") {
                        problems.push(format!("favicon with a page's headers: {csp}"));
                    }
                } else {
                    let nonce = csp
                        .split("'nonce-")
                        .nth(1)
                        .and_then(|s| s.split('\'').next());
                    match nonce {
                        Some(n) if body.contains(&format!("nonce=\"{n}\"")) => {}
                        _ => problems.push(format!("{path} with the policy {csp:?}")),
                    }
                }
            }
            problems
        }));
    }
    let mut problems = Vec::new();
    for t in tasks {
        problems.extend(t.await.unwrap());
    }
    let _ = std::fs::remove_dir_all(&site);
    assert!(
        problems.is_empty(),
        "{} of 360 answers: {:#?}",
        problems.len(),
        &problems[..problems.len().min(5)]
    );
}
