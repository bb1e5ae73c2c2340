//! The Kubernikus API's kluster operations through the real router, with a real SQLite
//! store and the real local Keystone (`MC_TEST_KEYSTONE_URL`, started by scripts/test):
//! create, update, delete, bad input and project separation.

use crate::common::*;
use serde_json::json;

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
async fn a_kluster_created_again_under_an_old_name_has_no_history() {
    let (app, store) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    let account = account_of(&alice).await;
    let (_, first) = create(&app, &alice, kluster("again", None)).await;
    let old_uid = first["metadata"]["uid"].as_str().unwrap().to_string();
    assert_eq!(old_uid.len(), 36, "{first}");
    assert_eq!(
        call(&app, "DELETE", "/api/v1/clusters/again", Some(&alice), None)
            .await
            .0,
        202
    );
    let (_, events) = call(
        &app,
        "GET",
        "/api/v1/clusters/again/events",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(events[0]["reason"], "Terminating", "{events}");
    assert!(
        store.delete(&account, "again").await.unwrap(),
        "deorbit's removal"
    );
    let (s, second) = create(&app, &alice, kluster("again", None)).await;
    assert_eq!(s, 201, "{second}");
    assert_ne!(second["metadata"]["uid"].as_str(), Some(old_uid.as_str()));
    let (_, shown) = call(&app, "GET", "/api/v1/clusters/again", Some(&alice), None).await;
    assert_eq!(shown["metadata"], second["metadata"], "stable identity");
    let (s, events) = call(
        &app,
        "GET",
        "/api/v1/clusters/again/events",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!((s, events), (200, json!([])), "no inherited history");
    // The old history stays in the project's timeline, with the kluster's name.
    let (_, timeline) = call(
        &app,
        "GET",
        "/api/v1/events?kluster=again",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(timeline[0]["reason"], "Terminating", "{timeline}");
    assert_eq!(timeline[0]["kluster"], "again");
}

#[tokio::test]
async fn project_admins_switch_termination_protection_and_members_cannot() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    create(&app, &alice, kluster("guarded", None)).await;
    let path = "/api/v1/clusters/guarded/termination-protection";
    let on = Some(r#"{"enabled": true}"#.to_string());
    let (s, e) = call(&app, "PUT", path, Some(&bob), on.clone()).await;
    assert_eq!(s, 403, "a member may not: {e}");
    let (s, h, k) = call_with(&app, "PUT", path, Some(&alice), &[], on.clone()).await;
    assert_eq!(s, 200, "{k}");
    assert_eq!(k["metadata"]["terminationProtection"], true);
    assert_eq!(h["etag"], "\"2\"", "the change grows the version");
    let (s, e) = call(
        &app,
        "DELETE",
        "/api/v1/clusters/guarded",
        Some(&alice),
        None,
    )
    .await;
    assert_error(
        &e,
        403,
        "Termination protection enabled: a kubernetes_admin turns it off",
    );
    assert_eq!(s, 403);
    let (s, e) = call(
        &app,
        "PUT",
        path,
        Some(&alice),
        Some("{\"enabled\": 1}".into()),
    )
    .await;
    assert_eq!(s, 422, "{e}");
    let off = Some(r#"{"enabled": false}"#.to_string());
    let (s, k) = call(&app, "PUT", path, Some(&alice), off).await;
    assert_eq!(s, 200);
    assert!(k["metadata"].get("terminationProtection").is_none(), "{k}");
    let (s, _) = call(
        &app,
        "DELETE",
        "/api/v1/clusters/guarded",
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(s, 202);
    let (s, _) = call(
        &app,
        "PUT",
        "/api/v1/clusters/nope/termination-protection",
        Some(&alice),
        on,
    )
    .await;
    assert_eq!(s, 404);
}
