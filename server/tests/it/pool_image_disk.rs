//! A pool's image and root disk at create (issue 35, item 3) against the real controller:
//! the form offers the images the cloud's metadata lists, a disk outside the API's bounds
//! is refused naming the field (the form keeps what was typed, without JavaScript too), a
//! good choice reaches the API and shows on the kluster's page as fixed, and an update
//! cannot change the disk.

use crate::common::{app_error, browser, call, login, page, post_form, user_token, TestServer};
use serde_json::Value;

/// The create form's fields for one pool with `image` and `disk`.
fn fields<'a>(name: &'a str, image: &'a str, disk: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("form[name]", name),
        ("form[pools][0][name]", "pool"),
        ("form[pools][0][flavor]", "m1.small"),
        ("form[pools][0][availability_zone]", "az-a"),
        ("form[pools][0][size]", "0"),
        ("form[pools][0][image]", image),
        ("form[pools][0][root_disk]", disk),
    ]
}

/// The opening tag of the element whose tag contains `needle` (panics when none does).
fn tag<'a>(html: &'a str, needle: &str) -> &'a str {
    let at = html
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not on the page"));
    let start = html[..at].rfind('<').unwrap_or(0);
    let end = at + html[at..].find('>').unwrap_or(0);
    &html[start..=end]
}

/// The `<select id=…>` element's text.
fn select<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!(r#"id="{id}""#))
        .unwrap_or_else(|| panic!("no select {id}"));
    &html[at..at + html[at..].find("</select>").unwrap_or(0)]
}

/// GET or PUT of a kluster straight at the controller API, as alice.
async fn api(srv: &TestServer, name: &str, put: Option<&Value>) -> (u16, Value) {
    let token = user_token("alice", "demo").await;
    let url = format!("{}/api/v1/clusters/{name}", srv.controller_url);
    let c = reqwest::Client::new();
    let r = match put {
        Some(body) => c.put(url).body(body.to_string()),
        None => c.get(url),
    };
    let r = r
        .header("x-auth-token", token.expose())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn image_and_root_disk_are_chosen_at_create_checked_and_then_fixed() {
    let srv = crate::common::spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;

    // The cloud's images (the metadata's extension), the API's default chosen.
    let token = user_token("alice", "demo").await;
    let meta: Value = reqwest::Client::new()
        .get(format!("{}/api/v1/openstack/metadata", srv.controller_url))
        .header("x-auth-token", token.expose())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        meta["images"],
        serde_json::json!(["flatcar-stable-amd64", "ubuntu-24.04-amd64"])
    );
    let (_, _, html) = page(&c, &srv, "/klusters/new").await;
    let images = select(&html, "pool-0-image");
    assert!(images.contains(r#"value="ubuntu-24.04-amd64""#), "{images}");
    assert!(tag(images, r#"value="flatcar-stable-amd64""#).contains("selected"));
    assert!(tag(&html, r#"id="pool-0-disk""#).contains(r#"min="64""#));

    // A disk outside 64–1024 GB: 422 naming the field, with the browser's words.
    let r = call(
        &c,
        &srv,
        "create_kluster",
        &fields("big", "ubuntu-24.04-amd64", "2000"),
    )
    .await;
    assert_eq!(r.status(), 422);
    let e = app_error(&r.text().await.unwrap());
    // The words of the shared rule, as the browser's form shows them.
    let mut rule = kluster::ValidationErrors::default();
    let p = kluster::NodePool {
        custom_root_disk_size: Some(2000),
        ..Default::default()
    };
    kluster::validate::node_pool(&p, "p", &mut rule);
    let words = rule.for_field("p.customRootDiskSize").map(str::to_string);
    assert_eq!(
        e.for_field("spec.nodePools[0].customRootDiskSize"),
        words.clone()
    );
    assert_eq!(
        words.as_deref(),
        Some("A custom root disk has 64 to 1024 GB.")
    );
    assert_eq!(api(&srv, "big", None).await.0, 404, "nothing created");

    // Without JavaScript: back to the form, which names it and keeps what was typed.
    let r = post_form(
        &c,
        &srv,
        "create_kluster",
        &fields("big", "ubuntu-24.04-amd64", "2000"),
    )
    .await;
    let back = r.headers()["location"].to_str().unwrap().to_string();
    assert_eq!(back, "/klusters/new?retry=1");
    let (_, _, html) = page(&c, &srv, &back).await;
    assert!(
        html.contains("A custom root disk has 64 to 1024 GB."),
        "{html}"
    );
    assert!(tag(&html, r#"id="pool-0-disk""#).contains(r#"value="2000""#));
    let images = select(&html, "pool-0-image");
    assert!(tag(images, r#"value="ubuntu-24.04-amd64""#).contains("selected"));
    assert!(tag(&html, r#"id="name""#).contains(r#"value="big""#));

    // An image the cloud does not have: refused naming the field and the choices.
    let r = call(&c, &srv, "create_kluster", &fields("odd", "windows-95", "")).await;
    let status = r.status();
    let body = r.text().await.unwrap();
    assert_eq!(status, 400, "{body}");
    let m = app_error(&body).to_string();
    assert!(
        m.contains("spec.nodePools[0].image: \"windows-95\" is not an image"),
        "{m}"
    );
    assert!(m.contains("ubuntu-24.04-amd64"), "{m}");

    // A good choice reaches the API and shows on the page as fixed.
    let r = call(
        &c,
        &srv,
        "create_kluster",
        &fields("disk", "ubuntu-24.04-amd64", "100"),
    )
    .await;
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap_or_default());
    let (_, k) = api(&srv, "disk", None).await;
    let pool = &k["spec"]["nodePools"][0];
    assert_eq!(pool["image"], "ubuntu-24.04-amd64");
    assert_eq!(pool["customRootDiskSize"], 100);
    let (_, _, html) = page(&c, &srv, "/klusters/disk").await;
    assert!(
        html.contains(r#"data-field="image" class="break-all font-mono">ubuntu-24.04-amd64<"#),
        "{html}"
    );
    assert!(html.contains(r#"data-field="root-disk">100 GB<"#));
    assert!(html.contains("Image and root disk are fixed when the pool is created."));

    // An update cannot change the disk (the page offers no such form).
    let mut changed = k.clone();
    changed["spec"]["nodePools"][0]["customRootDiskSize"] = 200.into();
    let (status, body) = api(&srv, "disk", Some(&changed)).await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body.to_string()
            .contains("spec.nodePools[0].customRootDiskSize"),
        "{body}"
    );
    assert_eq!(
        api(&srv, "disk", None).await.1["spec"]["nodePools"][0]["customRootDiskSize"],
        100
    );
}
