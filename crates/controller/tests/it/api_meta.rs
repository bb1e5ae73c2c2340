//! The Kubernikus API's metadata and plumbing through the real router: `/info`, `/`,
//! `/docs`, OpenStack metadata, request ids, CORS and a Keystone outage.

use crate::common::*;
use axum::{body::Body, http::Request};
use controller::api::ApiSettings;
use serde_json::json;
use tower::ServiceExt;

#[tokio::test]
async fn metadata_is_public_and_keystone_outage_fails_closed() {
    let app = app().await;
    let (s, info) = call(&app, "GET", "/info", None, None).await;
    assert_eq!(
        (s, info["defaultClusterVersion"].as_str()),
        (200, Some("1.32.4"))
    );
    let (s, v) = call(&app, "GET", "/api", None, None).await;
    assert_eq!((s, v), (200, json!({"versions": ["v1"]})));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (down, _) = app_with(&format!("http://127.0.0.1:{port}/v3")).await;
    let (s, e) = call(&down, "GET", "/api/v1/clusters", Some("anything"), None).await;
    assert_eq!(s, 503);
    assert_error(&e, 503, "Keystone unreachable");
}

#[tokio::test]
async fn every_response_has_a_request_id_and_cors_follows_kubernikus() {
    let settings = ApiSettings {
        cors_origins: vec!["https://dash.example".into()],
        ..Default::default()
    };
    let (app, _) = app_with_settings(&url(), settings).await;
    let res = app
        .clone()
        .oneshot(Request::get("/api").body(Body::empty()).unwrap())
        .await
        .unwrap();
    let id = res.headers()["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(id.len(), 32);
    let res = app
        .clone()
        .oneshot(
            Request::get("/api/v1/clusters")
                .header("x-request-id", "trace-me-42")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(
        res.headers()["x-request-id"],
        "trace-me-42",
        "the client's id is kept, errors included"
    );

    let preflight = Request::builder()
        .method("OPTIONS")
        .uri("/api/v1/clusters")
        .header("origin", "https://dash.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "x-auth-token,content-type",
        )
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(preflight).await.unwrap();
    assert_eq!(
        res.headers()["access-control-allow-origin"],
        "https://dash.example"
    );
    let allowed = res.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(
        allowed.contains("x-auth-token")
            && allowed.contains("content-type")
            && allowed.contains("accept")
    );
    let other = Request::get("/info")
        .header("origin", "https://evil.example")
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(other).await.unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn root_lists_paths_and_docs_serve_the_openapi_document() {
    let app = app().await;
    let (s, v) = call(&app, "GET", "/", None, None).await;
    assert_eq!(s, 200);
    let paths: Vec<&str> = v["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    for p in [
        "/info",
        "/api",
        "/api/v1/clusters",
        "/api/v1/clusters/{name}",
        "/api/v1/clusters/{name}/credentials",
    ] {
        assert!(paths.contains(&p), "{p} missing from {paths:?}");
    }
    let res = app
        .clone()
        .oneshot(Request::get("/docs").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&body).starts_with("consumes:"));
    let res = app
        .clone()
        .oneshot(
            Request::get("/")
                .header("accept", "text/html")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            res.status().as_u16(),
            res.headers()["location"].to_str().unwrap()
        ),
        (303, "/docs")
    );
    let (s, e) = call(&app, "GET", "/nope", None, None).await;
    assert_eq!(s, 404);
    assert_error(&e, 404, "No such API path");
}

#[tokio::test]
async fn openstack_metadata_is_for_admins_and_describes_the_simulated_region() {
    let app = app().await;
    let (s, m) = call(
        &app,
        "GET",
        "/api/v1/openstack/metadata",
        Some(&token("alice", "demo").await),
        None,
    )
    .await;
    assert_eq!(s, 200, "{m}");
    let flavor = m["flavors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "m1.small")
        .unwrap();
    assert_eq!(
        (flavor["vcpus"].as_i64(), flavor["ram"].as_i64()),
        (Some(2), Some(4096))
    );
    assert_eq!(m["availabilityZones"][0]["name"], "az-a");
    assert_eq!(
        m["routers"][0]["networks"][0]["subnets"][0]["CIDR"],
        "10.180.0.0/24"
    );
    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/openstack/metadata",
        Some(&token("bob", "demo").await),
        None,
    )
    .await;
    assert_eq!(s, 403);
    assert_error(&e, 403, "GetOpenstackMetadata");
}

#[tokio::test]
async fn the_setup_command_uses_the_public_url_and_binaries_are_listed_when_configured() {
    let settings = controller::api::ApiSettings {
        public_url: "https://kubernikus.example.com".into(),
        binaries_url: "https://dl.example.com/kubernikusctl/".into(),
        ..test_settings()
    };
    let (app, _) = app_with_settings(&url(), settings).await;
    let alice = token("alice", "demo").await;
    create(&app, &alice, kluster("pub", None)).await;
    let (s, info) = call(&app, "GET", "/api/v1/clusters/pub/info", Some(&alice), None).await;
    assert_eq!(s, 200, "{info}");
    let cmd = info["setupCommand"].as_str().unwrap();
    assert!(
        cmd.contains(" --url https://kubernikus.example.com --name pub"),
        "{cmd}"
    );
    assert_eq!(info["binaries"][0]["name"], "kubernikusctl");
    let links: Vec<&str> = info["binaries"][0]["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["link"].as_str().unwrap())
        .collect();
    assert_eq!(
        links,
        [
            "https://dl.example.com/kubernikusctl/linux/amd64/kubernikusctl",
            "https://dl.example.com/kubernikusctl/darwin/amd64/kubernikusctl",
            "https://dl.example.com/kubernikusctl/windows/amd64/kubernikusctl.exe",
        ]
    );
    // Not configured: no binaries.
    let (app, _) = app_with(&url()).await;
    create(&app, &alice, kluster("plain", None)).await;
    let (_, info) = call(
        &app,
        "GET",
        "/api/v1/clusters/plain/info",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(info["binaries"], serde_json::json!([]));
}
