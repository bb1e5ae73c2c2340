//! The Kubernikus API through the real router, with a real SQLite store and the real local
//! Keystone (`MC_TEST_KEYSTONE_URL`, started by scripts/test).

mod common;

use axum::{body::Body, http::Request};
use common::*;
use controller::api::ApiSettings;
use serde_json::{json, Value};
use tower::ServiceExt;

#[tokio::test]
async fn admin_creates_with_defaults_and_member_reads_only() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let (s, k) = create(&app, &alice, kluster("prod", None)).await;
    assert_eq!(s, 201, "{k}");
    assert_eq!(k["spec"]["serviceCIDR"], "198.18.128.0/17");
    assert_eq!(k["spec"]["clusterCIDR"], "100.100.0.0/16");
    assert_eq!(k["spec"]["dnsAddress"], "198.18.128.2");
    assert_eq!(k["spec"]["version"], "1.32.4");
    assert_eq!(k["spec"]["nodePools"][0]["image"], "flatcar-stable-amd64");
    assert_eq!(
        k["spec"]["nodePools"][0]["config"],
        json!({"allowReboot": true, "allowReplace": true})
    );
    assert_eq!(k["status"]["phase"], "Pending");

    let bob = token("bob", "demo").await;
    let (s, list) = call(&app, "GET", "/api/v1/clusters", Some(&bob), None).await;
    assert_eq!((s, list.as_array().map(Vec::len)), (200, Some(1)));
    let (s, one) = call(&app, "GET", "/api/v1/clusters/prod", Some(&bob), None).await;
    assert_eq!((s, one["name"].as_str()), (200, Some("prod")));
    let (s, e) = create(&app, &bob, kluster("mine", Some("10.9.0.0/16"))).await;
    assert_eq!(s, 403);
    assert_error(&e, 403, "not allowed to do CreateCluster");
    let (s, e) = call(&app, "DELETE", "/api/v1/clusters/prod", Some(&bob), None).await;
    assert_eq!(s, 403);
    assert_error(&e, 403, "TerminateCluster");
}

#[tokio::test]
async fn name_and_cidr_clashes_are_409_and_reserved_ranges_are_refused() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    assert_eq!(create(&app, &alice, kluster("a", None)).await.0, 201);
    let (s, e) = create(&app, &alice, kluster("a", Some("10.1.0.0/16"))).await;
    assert_eq!(s, 409);
    assert_error(&e, 409, "already exists");
    let (s, e) = create(&app, &alice, kluster("b", Some("100.100.128.0/17"))).await;
    assert_eq!(s, 409);
    assert_error(&e, 409, "overlaps the clusterCIDR of kluster \"a\"");
    assert_eq!(
        create(&app, &alice, kluster("b", Some("10.2.0.0/16")))
            .await
            .0,
        201
    );
    let (s, e) = create(&app, &alice, kluster("c", Some("198.19.4.0/24"))).await;
    assert_eq!(s, 409);
    assert_error(&e, 409, "control plane");
    // Without a pod range, a kluster gets the next free default one instead of a clash.
    let (s, d) = create(&app, &alice, kluster("d", None)).await;
    assert_eq!(s, 201, "{d}");
    assert_eq!(d["spec"]["clusterCIDR"], "100.101.0.0/16");
}

#[tokio::test]
async fn bad_input_is_always_a_4xx_with_the_error_body() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let cases: Vec<(String, u16, &str)> = vec![
        ("{not json".into(), 422, "Invalid kluster JSON"),
        (r#"{"name": 5}"#.into(), 422, "invalid type"),
        (r#"{"name": "x", "colour": "red"}"#.into(), 422, "unknown field"),
        (kluster("Bad_Name", None), 422, "name: Use lower-case"),
        (r#"{"name":"x","spec":{"nodePools":[{"name":"p","size":500,"flavor":"f","availabilityZone":"a"}]}}"#.into(), 422, "between 0 and 127"),
        (format!(r#"{{"name":"x","spec":{{"sshPublicKey":"{}"}}}}"#, "a".repeat(2 << 20)), 413, ""),
    ];
    for (body, code, needle) in cases {
        let (s, e) = call(&app, "POST", "/api/v1/clusters", Some(&alice), Some(body)).await;
        assert_eq!(s, code, "{e}");
        assert_error(&e, code, needle);
    }
    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/clusters/NOT..valid",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 404);
    assert_error(&e, 404, "not found");
    let (s, e) = call(&app, "GET", "/api/v1/clusters", None, None).await;
    assert_eq!(s, 401);
    assert_error(&e, 401, "X-Auth-Token");
    let (s, e) = call(&app, "GET", "/api/v1/clusters", Some("gAAAAAbogus"), None).await;
    assert_eq!(s, 401);
    assert_error(&e, 401, "invalid or expired");
}

#[tokio::test]
async fn updates_follow_the_kubernikus_rules() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let (_, mut k) = create(&app, &alice, kluster("upd", None)).await;
    k["spec"]["nodePools"][0]["size"] = json!(5);
    let (s, out) = call(
        &app,
        "PUT",
        "/api/v1/clusters/upd",
        Some(&alice),
        Some(k.to_string()),
    )
    .await;
    assert_eq!(s, 200, "{out}");
    assert_eq!(out["spec"]["nodePools"][0]["size"], 5);
    let mut bad = out.clone();
    bad["spec"]["nodePools"][0]["flavor"] = json!("m1.huge");
    let (s, e) = call(
        &app,
        "PUT",
        "/api/v1/clusters/upd",
        Some(&alice),
        Some(bad.to_string()),
    )
    .await;
    assert_eq!(s, 422);
    assert_error(&e, 422, "flavor of an existing pool cannot change");
    let mut v = out.clone();
    v["spec"]["version"] = json!("1.33.0");
    let (s, e) = call(
        &app,
        "PUT",
        "/api/v1/clusters/upd",
        Some(&alice),
        Some(v.to_string()),
    )
    .await;
    assert_eq!(s, 422);
    assert_error(&e, 422, "only while the kluster is Running");
    let (_, shown) = call(&app, "GET", "/api/v1/clusters/upd", Some(&alice), None).await;
    assert_eq!(
        shown["spec"]["nodePools"][0]["size"], 5,
        "a refused update changes nothing"
    );
}

#[tokio::test]
async fn delete_is_202_terminating_unless_protected() {
    let (app, store) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    create(&app, &alice, kluster("gone", None)).await;
    create(&app, &alice, kluster("kept", Some("10.3.0.0/16"))).await;
    let (s, _) = call(&app, "DELETE", "/api/v1/clusters/gone", Some(&alice), None).await;
    assert_eq!(s, 202);
    let (_, k) = call(&app, "GET", "/api/v1/clusters/gone", Some(&alice), None).await;
    assert_eq!(k["status"]["phase"], "Terminating");
    let (_, k) = call(&app, "GET", "/api/v1/clusters/kept", Some(&alice), None).await;
    let account = account_of(&alice).await;
    assert!(store
        .set_termination_protection(&account, "kept", true)
        .await
        .unwrap());
    let (s, e) = call(&app, "DELETE", "/api/v1/clusters/kept", Some(&alice), None).await;
    assert_eq!(s, 403);
    assert_error(&e, 403, "Termination protection enabled");
    assert_eq!(k["status"]["phase"], "Pending");
}

#[tokio::test]
async fn another_projects_klusters_are_invisible_and_untouchable() {
    let app = app().await;
    let demo = token("alice", "demo").await;
    let staging = token("alice", "staging").await;
    let (_, k) = create(&app, &demo, kluster("secret", None)).await;
    let (s, list) = call(&app, "GET", "/api/v1/clusters", Some(&staging), None).await;
    assert_eq!((s, list), (200, json!([])));
    for (method, body) in [
        ("GET", None),
        ("PUT", Some(k.to_string())),
        ("DELETE", None),
    ] {
        let (s, e) = call(
            &app,
            method,
            "/api/v1/clusters/secret",
            Some(&staging),
            body,
        )
        .await;
        assert_eq!(s, 404, "{method}: {e}");
    }
    // The same name is free in the other project.
    assert_eq!(create(&app, &staging, kluster("secret", None)).await.0, 201);
    let (_, k) = call(&app, "GET", "/api/v1/clusters/secret", Some(&demo), None).await;
    assert_eq!(
        k["status"]["phase"], "Pending",
        "the demo kluster is untouched"
    );
}

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
async fn events_info_and_oidc_of_a_kluster() {
    let (app, store) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    create(&app, &alice, kluster("ev", None)).await;
    let (s, ev) = call(&app, "GET", "/api/v1/clusters/ev/events", Some(&bob), None).await;
    assert_eq!((s, ev), (200, json!([])));
    let account = account_of(&alice).await;
    store
        .record_event(
            &account,
            "ev",
            kluster::EventType::Warning,
            &kluster::EventReason::FailedCreateNode,
            "Quota exceeded for instances",
        )
        .await
        .unwrap();
    store
        .record_event(
            &account,
            "ev",
            kluster::EventType::Warning,
            &kluster::EventReason::FailedCreateNode,
            "Quota exceeded for instances",
        )
        .await
        .unwrap();
    let (_, ev) = call(&app, "GET", "/api/v1/clusters/ev/events", Some(&bob), None).await;
    assert_eq!(ev[0]["reason"], "FailedCreateNode");
    assert_eq!(ev[0]["type"], "Warning");
    assert_eq!(ev[0]["count"], 2);
    assert!(ev[0]["firstTimestamp"].as_str().unwrap().ends_with('Z'));

    let (s, info) = call(&app, "GET", "/api/v1/clusters/ev/info", Some(&bob), None).await;
    assert_eq!(s, 200);
    let cmd = info["setupCommand"].as_str().unwrap();
    assert!(
        cmd.starts_with(
            "kubernikusctl auth init --username bob --user-domain-name demo --project-id "
        ),
        "{cmd}"
    );
    assert!(cmd.ends_with("--name ev"), "{cmd}");

    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/clusters/ev/credentials/oidc",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 404);
    assert_error(&e, 404, "OIDC is not configured");
    let (s, _) = call(
        &app,
        "GET",
        "/api/v1/clusters/none/events",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn credentials_give_a_kubeconfig_signed_by_the_klusters_ca_that_kubectl_reads() {
    use base64::Engine;
    use x509_cert::der::DecodePem;
    let app = app().await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    let (s, k) = create(&app, &alice, kluster("creds", None)).await;
    assert_eq!(s, 201, "{k}");
    let apiserver = k["status"]["apiserver"].as_str().unwrap().to_string();
    assert!(apiserver.starts_with("https://creds-"), "{apiserver}");

    let (s, c) = call(
        &app,
        "GET",
        "/api/v1/clusters/creds/credentials",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 200, "{c}");
    let kubeconfig = c["kubeconfig"].as_str().unwrap().to_string();
    let field = |name: &str| -> Vec<u8> {
        let line = kubeconfig
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        let b64 = line.split_once(": ").unwrap().1.trim();
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap()
    };
    let ca = x509_cert::Certificate::from_pem(field("certificate-authority-data")).unwrap();
    let cert = x509_cert::Certificate::from_pem(field("client-certificate-data")).unwrap();
    assert_eq!(
        cert.tbs_certificate.issuer, ca.tbs_certificate.subject,
        "issued by the kluster's CA"
    );
    let subject = cert.tbs_certificate.subject.to_string();
    assert!(
        subject.contains("CN=bob@demo") && subject.contains("O=os:kubernetes_member"),
        "{subject}"
    );
    let v = &cert.tbs_certificate.validity;
    assert_eq!(
        v.not_after.to_unix_duration().as_secs() - v.not_before.to_unix_duration().as_secs(),
        86_400
    );
    // Verify the signature with the CA's public key.
    {
        use p256::ecdsa::{signature::Verifier, DerSignature, VerifyingKey};
        use p256::pkcs8::DecodePublicKey;
        use x509_cert::der::Encode;
        let spki = ca.tbs_certificate.subject_public_key_info.to_der().unwrap();
        let vk = VerifyingKey::from_public_key_der(&spki).unwrap();
        let sig = DerSignature::from_bytes(cert.signature.raw_bytes()).unwrap();
        vk.verify(&cert.tbs_certificate.to_der().unwrap(), &sig)
            .expect("client cert signed by the CA");
    }
    // Every call mints a new certificate.
    let (_, again) = call(
        &app,
        "GET",
        "/api/v1/clusters/creds/credentials",
        Some(&bob),
        None,
    )
    .await;
    assert_ne!(again["kubeconfig"], c["kubeconfig"]);

    // kubectl (Debian's kubernetes-client) reads it.
    let path = std::env::temp_dir().join(format!("mc-kubeconfig-{}", std::process::id()));
    std::fs::write(&path, &kubeconfig).unwrap();
    let out = std::process::Command::new("kubectl")
        .args(["config", "view", "--raw", "-o", "json", "--kubeconfig"])
        .arg(&path)
        .output()
        .expect("kubectl must be installed (scripts/setup installs kubernetes-client)");
    assert!(
        out.status.success(),
        "kubectl: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(view["current-context"], "creds");
    assert_eq!(view["clusters"][0]["name"], "creds");
    assert_eq!(view["clusters"][0]["cluster"]["server"], apiserver.as_str());
    assert_eq!(view["contexts"][0]["context"]["user"], "bob@demo");
    let _ = std::fs::remove_file(path);

    // Another project's kluster gives nothing.
    let staging = token("alice", "staging").await;
    assert_eq!(
        call(
            &app,
            "GET",
            "/api/v1/clusters/creds/credentials",
            Some(&staging),
            None
        )
        .await
        .0,
        404
    );
}

#[tokio::test]
async fn bootstrap_config_for_admins_kubeadm_secret_only_for_seed_kubeadm_klusters() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    create(&app, &alice, kluster("nodes", None)).await;
    let (s, b) = call(
        &app,
        "GET",
        "/api/v1/clusters/nodes/bootstrap",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert!(b["kubeletClientsCA"]
        .as_str()
        .unwrap()
        .starts_with("-----BEGIN CERTIFICATE-----"));
    assert_eq!(
        b["kubeletClientsCAFile"],
        "/etc/kubernetes/certs/kubelet-clients-ca.pem"
    );
    let config = b["config"].as_str().unwrap();
    assert!(
        config.contains("clusterDNS:\n- 198.18.128.2")
            && config.contains("clusterDomain: cluster.local"),
        "{config}"
    );
    assert!(b["kubeconfig"]
        .as_str()
        .unwrap()
        .contains("system:bootstrap:nodes"));
    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/clusters/nodes/bootstrap",
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(s, 403, "members may not bootstrap nodes: {e}");

    let (s, e) = call(
        &app,
        "GET",
        "/api/v1/clusters/nodes/kubeadmsecret",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 404);
    assert_error(&e, 404, "not a seedKubeadm kluster");
    let mut k: Value = serde_json::from_str(&kluster("kadm", Some("10.7.0.0/16"))).unwrap();
    k["spec"]["seedKubeadm"] = json!(true);
    assert_eq!(create(&app, &alice, k.to_string()).await.0, 201);
    let (s, sec) = call(
        &app,
        "GET",
        "/api/v1/clusters/kadm/kubeadmsecret",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 200);
    let secret = sec["secret"].as_str().unwrap();
    assert!(secret.contains("BEGIN CERTIFICATE") && secret.contains("BEGIN PRIVATE KEY"));
    assert_eq!(
        call(
            &app,
            "GET",
            "/api/v1/clusters/kadm/kubeadmsecret",
            Some(&bob),
            None
        )
        .await
        .0,
        403
    );
}

#[tokio::test]
async fn chart_values_are_for_cloud_admins_across_projects() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    create(&app, &alice, kluster("vals", None)).await;
    let account = account_of(&alice).await;
    let path = format!("/api/v1/{account}/clusters/vals/values");
    let (s, e) = call(&app, "GET", &path, Some(&alice), None).await;
    assert_eq!(s, 403, "a project admin is no cloud admin: {e}");
    let cloud_admin = cloud_admin_token().await;
    let (s, v) = call(&app, "GET", &path, Some(&cloud_admin), None).await;
    assert_eq!(s, 200, "{v}");
    let values = v["values"].as_str().unwrap();
    assert!(values.starts_with("name: \"vals\"\n"), "{values}");
    assert!(
        values.contains("serviceCIDR: \"198.18.128.0/17\"") && values.contains("- name: \"small\""),
        "{values}"
    );
    assert!(!values.contains("PRIVATE KEY"));
    let (s, _) = call(
        &app,
        "GET",
        &format!("/api/v1/{account}/clusters/none/values"),
        Some(&cloud_admin),
        None,
    )
    .await;
    assert_eq!(s, 404);
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
