//! The colour scheme a visitor picks sticks: `POST /theme` (a plain form) sets a cookie and
//! goes back, every page is then rendered with it on `<html>` (no script needed), a choice
//! that is not one is 400 in words, the way back never leaves the site, and a cross-site
//! post is refused like any other.

use crate::common::*;

/// The `<html …>` tag and the `color-scheme` meta of `path` as `c` gets it.
async fn html_tag(c: &reqwest::Client, srv: &TestServer, path: &str) -> (String, String) {
    let page = c
        .get(format!("{}{path}", srv.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let tag = |open: &str| {
        let start = page
            .find(open)
            .unwrap_or_else(|| panic!("{open} in {page}"));
        let end = start + page[start..].find('>').unwrap();
        page[start..=end].to_string()
    };
    (tag("<html"), tag("<meta name=\"color-scheme\""))
}

/// Posts the form as a page of the site would.
async fn post(c: &reqwest::Client, srv: &TestServer, form: &[(&str, &str)]) -> reqwest::Response {
    c.post(format!("{}/theme", srv.base))
        .header("sec-fetch-site", "same-origin")
        .form(form)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_chosen_scheme_sticks_and_renders_without_script() {
    let srv = spawn(|_| {}).await;
    let c = browser();
    let (html, meta) = html_tag(&c, &srv, "/login").await;
    assert!(
        html.contains("class=\"system\""),
        "the system's by default: {html}"
    );
    assert!(meta.contains("content=\"light dark\""), "{meta}");

    let r = post(&c, &srv, &[("theme", "dark"), ("back", "/login?x=1")]).await;
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/login?x=1");
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.starts_with("mc-theme=dark;") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    let (html, meta) = html_tag(&c, &srv, "/login").await;
    assert!(html.contains("class=\"dark\""), "{html}");
    assert!(meta.contains("content=\"dark\""), "{meta}");

    post(&c, &srv, &[("theme", "light"), ("back", "/")]).await;
    let (html, _) = html_tag(&c, &srv, "/login").await;
    assert!(html.contains("class=\"light\""), "{html}");

    // Not a scheme: 400 in words, the choice kept.
    let r = post(&c, &srv, &[("theme", "purple"), ("back", "/")]).await;
    assert_eq!(r.status(), 400);
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("choose light, dark or system"));
    let (html, _) = html_tag(&c, &srv, "/login").await;
    assert!(html.contains("class=\"light\""), "{html}");

    // The way back stays on the site.
    let r = post(
        &c,
        &srv,
        &[("theme", "system"), ("back", "//evil.example/")],
    )
    .await;
    assert_eq!(r.headers()["location"], "/");

    // Another site cannot set it.
    let r = c
        .post(format!("{}/theme", srv.base))
        .header("sec-fetch-site", "cross-site")
        .form(&[("theme", "dark")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}
