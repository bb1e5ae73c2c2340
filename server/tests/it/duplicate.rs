//! "Create a kluster like this one" (issue 35, item 6) against the real controller, as a
//! browser without JavaScript sees it: the kluster's page links to `/klusters/new?from=…`
//! for those who may create, and that form comes back filled from the kluster (pools with
//! their image, root disk, labels, taints and policy, version, SSH key) with a new name and without its pod
//! range; a source that does not exist leaves the form empty with a sentence.

use crate::common::{browser, create_kluster, login, page, TestServer};

const SOURCE: &str = r#"{"name":"src","spec":{
    "sshPublicKey":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDupl dup@test",
    "clusterCIDR":"10.77.0.0/16",
    "nodePools":[
      {"name":"gpu","size":2,"flavor":"m1.large","availabilityZone":"az-b",
       "image":"ubuntu-24.04-amd64","customRootDiskSize":128,
       "labels":["team=ml","tier=batch"],"taints":["gpu=yes:NoSchedule"],
       "config":{"allowReboot":false,"allowReplace":true}},
      {"name":"web","size":1,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#;

/// The opening tag of the element whose tag contains `needle` (panics when none does).
fn tag<'a>(html: &'a str, needle: &str) -> &'a str {
    let at = html
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not on the page"));
    let start = html[..at].rfind('<').unwrap_or(0);
    let end = at + html[at..].find('>').unwrap_or(0);
    &html[start..=end]
}

/// The option chosen in the select with id `id` (its value).
fn chosen<'a>(html: &'a str, id: &str) -> Option<&'a str> {
    let at = html.find(&format!(r#"id="{id}""#))?;
    let select = &html[at..at + html[at..].find("</select>")?];
    let option = select
        .split("<option")
        .find(|o| o[..o.find('>').unwrap_or(0)].contains("selected"))?;
    let value = option.split(r#"value=""#).nth(1)?;
    value.split('"').next()
}

/// The create form `/klusters/new?from=<from>` as alice sees it.
async fn copy_form(srv: &TestServer, c: &reqwest::Client, from: &str) -> String {
    let (status, _, html) = page(c, srv, &format!("/klusters/new?from={from}")).await;
    assert_eq!(status, 200, "{html}");
    html
}

#[tokio::test]
async fn the_create_form_comes_filled_from_a_kluster_with_a_new_name_and_no_pod_range() {
    let srv = crate::common::spawn(|_| {}).await;
    create_kluster(&srv, "alice", SOURCE).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;

    // The kluster's page offers the copy to those who may create.
    let (_, _, detail) = page(&c, &srv, "/klusters/src").await;
    assert!(
        detail.contains(r#"href="/klusters/new?from=src""#),
        "{detail}"
    );
    assert!(detail.contains("Create a kluster like this one"));

    let html = copy_form(&srv, &c, "src").await;
    assert!(html.contains(r#"id="copy-notice""#), "{html}");
    assert!(html.contains("Copied from kluster src"), "{html}");
    assert!(tag(&html, r#"id="name""#).contains(r#"value="src-copy""#));
    // Both pools, with name, size, flavor, zone, labels, taints and update policy.
    assert!(tag(&html, r#"id="pool-0-name""#).contains(r#"value="gpu""#));
    assert!(tag(&html, r#"id="pool-0-size""#).contains(r#"value="2""#));
    assert_eq!(chosen(&html, "pool-0-flavor"), Some("m1.large"));
    assert_eq!(chosen(&html, "pool-0-zone"), Some("az-b"));
    assert_eq!(chosen(&html, "pool-0-image"), Some("ubuntu-24.04-amd64"));
    assert!(tag(&html, r#"id="pool-0-disk""#).contains(r#"value="128""#));
    assert!(tag(&html, r#"id="pool-1-disk""#).contains(r#"value="""#));
    assert!(tag(&html, r#"id="pool-1-name""#).contains(r#"value="web""#));
    assert_eq!(chosen(&html, "pool-1-flavor"), Some("m1.small"));
    assert!(html.contains("team=ml\ntier=batch</textarea>"), "{html}");
    assert!(html.contains("gpu=yes:NoSchedule</textarea>"));
    let reboot = tag(&html, r#"name="form[pools][0][allow_reboot]""#);
    let replace = tag(&html, r#"name="form[pools][0][allow_replace]""#);
    assert!(!reboot.contains("checked") && replace.contains("checked"));
    assert!(tag(&html, r#"name="form[pools][1][allow_reboot]""#).contains("checked"));
    // The key and the network are copied; the pod range is not (anywhere on the page).
    assert!(html.contains("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDupl dup@test</textarea>"));
    assert!(
        !html.contains("10.77.0.0/16"),
        "the pod range is not copied"
    );
    assert!(tag(&html, r#"id="cluster_cidr""#).contains(r#"value="""#));

    // Once src-copy exists, the name is left to the user.
    create_kluster(
        &srv,
        "alice",
        &SOURCE
            .replace(r#""name":"src""#, r#""name":"src-copy""#)
            .replace("10.77.", "10.78."),
    )
    .await;
    let html = copy_form(&srv, &c, "src").await;
    assert!(tag(&html, r#"id="name""#).contains(r#"value="""#), "{html}");
    assert!(html.contains("Choose a name for the new kluster."));
    assert!(tag(&html, r#"id="pool-0-name""#).contains(r#"value="gpu""#));
}

#[tokio::test]
async fn a_source_that_is_not_there_leaves_the_form_empty_with_a_sentence() {
    let srv = crate::common::spawn(|_| {}).await;
    create_kluster(&srv, "alice", SOURCE).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;

    let html = copy_form(&srv, &c, "ghost").await;
    assert!(
        html.contains("There is no kluster ghost to copy in this project. The form starts empty."),
        "{html}"
    );
    assert!(tag(&html, r#"id="name""#).contains(r#"value="""#));
    assert!(
        tag(&html, r#"id="pool-0-name""#).contains(r#"value="pool""#),
        "the default pool"
    );
    assert!(
        html.contains("Create kluster"),
        "the form is there and usable"
    );

    // A name that is no kluster name is not repeated on the page.
    let html = copy_form(&srv, &c, "%3Cb%3Ehi%3C%2Fb%3E").await;
    assert!(
        html.contains("There is no kluster by that name to copy"),
        "{html}"
    );
    assert!(!html.contains("&lt;b&gt;hi") && !html.contains("<b>hi"));

    // Another project's kluster is not found from this one.
    let s = browser();
    login(&s, &srv, "alice", "staging").await;
    let html = copy_form(&srv, &s, "src").await;
    assert!(html.contains("There is no kluster src to copy"), "{html}");

    // A member sees no link and no form.
    let m = browser();
    login(&m, &srv, "bob", "demo").await;
    let (_, _, detail) = page(&m, &srv, "/klusters/src").await;
    assert!(detail.contains("gpu"), "{detail}");
    assert!(!detail.contains("Create a kluster like this one"));
    let (_, _, html) = page(&m, &srv, "/klusters/new?from=src").await;
    assert!(html.contains("does not let you create klusters"), "{html}");
    assert!(!html.contains(r#"id="pool-0-name""#), "no form");
}
