//! The kluster list page with many klusters: search, phase filter, sort and pages from the
//! URL, rendered by the server (what a browser without JavaScript gets), against the
//! embedded controller (which applies the list query) and against a controller that
//! answers every kluster and ignores the query, as a real Kubernikus does (the dashboard
//! then searches, sorts and pages itself).

use crate::common::*;

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

    // The server function for the hydrated page: the same query as a form, the page's
    // klusters as summaries (passed on from our controller, decoded from a plain one).
    let call_page = |form: &'static [(&'static str, &'static str)]| {
        let c = c.clone();
        async move {
            let r = call(&c, srv, "list_klusters", form).await;
            assert_eq!(r.status(), 200, "{form:?}");
            let page: serde_json::Value = r.json().await.unwrap();
            let names: Vec<String> = page["items"]
                .as_array()
                .expect("items")
                .iter()
                .map(|k| k["name"].as_str().unwrap_or_default().to_string())
                .collect();
            (page, names)
        }
    };
    let (found, names) = call_page(&[("params[q]", "k5"), ("params[sort]", "-name")]).await;
    assert_eq!(names, ["k54", "k53", "k52", "k51", "k50"]);
    assert_eq!(
        (found["total"].as_u64(), found["pages"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(found["items"][0]["spec"]["nodePools"][0]["size"], 2);
    let (last, names) = call_page(&[("params[page]", "9")]).await;
    assert_eq!(names, ["k50", "k51", "k52", "k53", "k54"]);
    assert_eq!(
        (last["page"].as_u64(), last["total"].as_u64()),
        (Some(2), Some(55))
    );
}

#[tokio::test]
async fn the_controller_searches_sorts_and_pages() {
    let srv = spawn(|_| {}).await;
    for i in 0..55 {
        create_kluster(&srv, "alice", &body(&format!("k{i:02}"), i)).await;
    }
    check_pages(&srv).await;
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
    serve_router(app).await
}

#[tokio::test]
async fn the_dashboard_pages_what_a_plain_kubernikus_answers() {
    let url = kubernikus_without_extension().await;
    let srv = spawn(|s| s.controller_url = Some(url)).await;
    check_pages(&srv).await;
}

/// A controller that pages (it sends `X-Total-Count`) and answers one kluster with a field
/// no row shows, spaced its own way.
async fn kubernikus_paging_its_own_way() -> String {
    let app = axum::Router::new().route(
        "/api/v1/clusters",
        axum::routing::get(|| async {
            (
                [(kluster::listing::TOTAL_HEADER, "1")],
                r#"[ {"name": "k00", "later": {"kept": true}} ]"#,
            )
        }),
    );
    serve_router(app).await
}

#[tokio::test]
async fn the_server_function_passes_a_paged_answer_on_as_sent() {
    let url = kubernikus_paging_its_own_way().await;
    let srv = spawn(|s| s.controller_url = Some(url)).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    let r = call(&c, &srv, "list_klusters", &[]).await;
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(
        text.starts_with(r#"{"items":[ {"name": "k00", "later": {"kept": true}} ],"total":1,"#),
        "{text}"
    );
    // The page itself decodes the same answer into its row.
    let (s, _, html) = page(&c, &srv, "/").await;
    assert_eq!((s, rows(&html)), (200, vec!["k00"]));
}
