//! A cloud that answers what no OpenStack service would: an HTML page (a portal, a proxy's
//! error page), truncated JSON, a 200 without the list. Each is an error in words, never
//! a panic and never an empty listing (which would read as every node gone).

use super::cloud;
use super::stand::Stand;
use crate::cloud::Cloud;

const PORTAL: &str = "<!DOCTYPE html>\n<html><head>\n<title>\n  Sign in to the\n guest network</title></head><body>Password: hunter2</body></html>";
const BAD_GATEWAY: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

/// The servers listing's error when Nova's `servers/detail` answers `status` with `body`
/// (`kind`: its content type) as many times as the provider asks.
async fn listing_error(status: u16, kind: &'static str, body: &str) -> String {
    let stand = Stand::start().await;
    for _ in 0..8 {
        let answer = ("servers/detail".to_string(), status, kind, body.to_string());
        stand.state().raw.push(answer);
    }
    let e = cloud(&stand).servers("p1").await.unwrap_err();
    assert!(!e.message.contains('\n'), "one line: {}", e.message);
    e.message
}

#[tokio::test]
async fn an_html_page_is_named_by_its_title_not_dumped() {
    let e = listing_error(200, "text/html", PORTAL).await;
    assert_eq!(
        e,
        "Nova answered an HTML page (\"Sign in to the guest network\", HTTP 200), not JSON: is its catalog endpoint right?"
    );
    let e = listing_error(502, "text/html", BAD_GATEWAY).await;
    assert_eq!(e, "502 Bad Gateway (HTTP 502)");
}

#[tokio::test]
async fn truncated_json_says_what_is_wrong() {
    let e = listing_error(
        200,
        "application/json",
        "{\"servers\": [{\"id\": \"s1\", \"na",
    )
    .await;
    assert!(
        e.starts_with("Nova sent a response this provider cannot read (29 bytes, HTTP 200): EOF while parsing"),
        "{e}"
    );
}

#[tokio::test]
async fn a_listing_without_its_list_is_no_empty_listing() {
    for body in ["{}", "{\"server\": []}", "[]", "{\"servers\": null}"] {
        let e = listing_error(200, "application/json", body).await;
        assert_eq!(e, "Nova answered a listing without servers", "{body}");
    }
    let e = listing_error(200, "application/json", "{\"servers\": {\"id\": 1}}").await;
    assert!(
        e.starts_with("Nova sent servers this provider cannot read"),
        "{e}"
    );
}
