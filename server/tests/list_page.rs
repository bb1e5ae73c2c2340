//! The kluster list page with many klusters: search, phase filter, sort and pages from the
//! URL, rendered by the server (what a browser without JavaScript gets), against the
//! embedded controller (which applies the list query) and against a controller that
//! answers every kluster and ignores the query, as a real Kubernikus does (the dashboard
//! then searches, sorts and pages itself).

mod common;

use common::*;

/// The klusters' names in the order the page shows them.
fn rows(html: &str) -> Vec<&str> {
    html.split("data-kluster=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect()
}

fn body(name: &str, i: usize) -> String {
    serde_json::json!({
        "name": name,
        "spec": {
            "clusterCIDR": format!("10.{i}.0.0/16"),
            "nodePools": [{"name": "a", "size": i % 4, "flavor": "m1.small", "availabilityZone": "az-a"}]
        }
    })
    .to_string()
}

/// Checks the page at `srv` (alice signed in) with klusters k00…k54.
async fn check_pages(srv: &TestServer) {
    let c = browser();
    login(&c, srv, "alice", "demo").await;
    let get = |path: &'static str| {
        let c = c.clone();
        async move {
            let (s, _, html) = page(&c, srv, path).await;
            assert_eq!(s, 200, "{path}");
            html
        }
    };

    let first = get("/").await;
    assert!(first.contains("Page 1 of 2 · 55 klusters"), "{first}");
    let names = rows(&first);
    assert_eq!((names.len(), names[0], names[49]), (50, "k00", "k49"));

    let second = get("/?page=2").await;
    assert_eq!(rows(&second), ["k50", "k51", "k52", "k53", "k54"]);
    assert!(second.contains("Page 2 of 2 · 55 klusters"));
    // Past the last page: the last page.
    assert_eq!(rows(&get("/?page=9").await), rows(&second));

    let search = get("/?q=K5&sort=-name").await;
    assert_eq!(rows(&search), ["k54", "k53", "k52", "k51", "k50"]);
    assert!(search.contains("Page 1 of 1 · 5 klusters"));
    assert!(
        search.contains("value=\"K5\""),
        "the search box keeps the text"
    );

    // Nodes: the pools' sizes (i % 4), then names.
    let by_nodes = get("/?sort=-nodes&q=k1").await;
    assert_eq!(&rows(&by_nodes)[..3], ["k19", "k15", "k11"]);

    let none = get("/?phase=Upgrading").await;
    assert!(rows(&none).is_empty());
    assert!(none.contains("No kluster matches this search."));

    // A bad parameter: 400 and the page says what is wrong.
    let (s, _, bad) = page(&c, srv, "/?sort=size").await;
    assert_eq!(s, 400);
    assert!(bad.contains("Unknown sort"), "{bad}");
}

#[tokio::test]
async fn the_controller_searches_sorts_and_pages() {
    let srv = spawn(|_| {}).await;
    for i in 0..55 {
        create_kluster(&srv, "alice", &body(&format!("k{i:02}"), i)).await;
    }
    check_pages(&srv).await;

    // The server function for the hydrated page: the same query as a form.
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let r = call(
        &c,
        &srv,
        "list_klusters",
        &[("params[q]", "k5"), ("params[page]", "1")],
    )
    .await;
    assert_eq!(r.status(), 200);
    let page: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        (page["total"].as_u64(), page["pages"].as_u64()),
        (Some(5), Some(1))
    );
}

/// A controller that answers `GET /api/v1/clusters` with k00…k54 whatever the query, and
/// without `X-Total-Count`.
async fn kubernikus_without_extension() -> String {
    let all: Vec<kluster::Kluster> = (0..55)
        .map(|i| serde_json::from_str(&body(&format!("k{i:02}"), i)).expect("kluster json"))
        .collect();
    let app = axum::Router::new().route(
        "/api/v1/clusters",
        axum::routing::get(move || {
            let all = all.clone();
            async move { axum::Json(all) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test]
async fn the_dashboard_pages_what_a_plain_kubernikus_answers() {
    let url = kubernikus_without_extension().await;
    let srv = spawn(|s| s.controller_url = Some(url)).await;
    check_pages(&srv).await;
}
