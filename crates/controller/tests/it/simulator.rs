//! The simulator API (`/api/v1/simulator*`): off unless the operator enables it; then the
//! faults and limits are for cloud admins only (any project via `?project=`), and a
//! kluster's debris for the project's own users or cloud admins. Real Keystone tokens.

use crate::common::{
    account_of, app_with, app_with_settings, assert_error, call, cloud_admin_token, token, url,
};
use controller::api::ApiSettings;
use serde_json::json;

fn limits(instances: i64) -> String {
    json!({"faults": {}, "limits": {"instances": instances, "cores": 20, "ram": 51200}}).to_string()
}

#[tokio::test]
async fn off_by_default_every_simulator_path_is_404_in_words() {
    let (app, _) = app_with_settings(&url(), ApiSettings::default()).await;
    let admin = cloud_admin_token().await;
    for (method, path, tok) in [
        ("GET", "/api/v1/simulator", Some(admin.as_str())),
        ("PUT", "/api/v1/simulator", Some(admin.as_str())),
        ("GET", "/api/v1/simulator", None),
        ("GET", "/api/v1/simulator/debris/k", Some(admin.as_str())),
        ("GET", "/api/v1/simulator/anything/else", None),
    ] {
        let (status, v) = call(&app, method, path, tok, Some(limits(100))).await;
        assert_eq!(status, 404, "{method} {path}: {v}");
        assert_error(&v, 404, "operator has not turned it on");
    }
}

#[tokio::test]
async fn a_tenant_admin_cannot_read_or_change_the_simulator() {
    let (app, _) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    let demo = account_of(&alice).await;
    let admin = cloud_admin_token().await;
    let before = format!("/api/v1/simulator?project={demo}");
    let (status, original) = call(&app, "GET", &before, Some(&admin), None).await;
    assert_eq!(status, 200, "{original}");

    let (status, v) = call(
        &app,
        "PUT",
        "/api/v1/simulator",
        Some(&alice),
        Some(limits(100_000)),
    )
    .await;
    assert_eq!(status, 403, "{v}");
    assert_error(&v, 403, "for cloud admins only");
    let (status, v) = call(&app, "GET", "/api/v1/simulator", Some(&alice), None).await;
    assert_eq!(status, 403, "{v}");
    // Naming its own project changes nothing either.
    let own = format!("/api/v1/simulator?project={demo}");
    let (status, _) = call(&app, "PUT", &own, Some(&alice), Some(limits(100_000))).await;
    assert_eq!(status, 403);

    let (_, after) = call(&app, "GET", &before, Some(&admin), None).await;
    assert_eq!(after, original, "the limits are unchanged");
    let (status, quota) = call(&app, "GET", "/api/v1/openstack/quota", Some(&alice), None).await;
    assert_eq!(status, 200, "{quota}");
    assert_eq!(quota["instances"]["limit"], json!(10), "{quota}");
}

#[tokio::test]
async fn a_cloud_admin_changes_another_projects_limits_with_effect() {
    let (app, _) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    let demo = account_of(&alice).await;
    let admin = cloud_admin_token().await;
    let path = format!("/api/v1/simulator?project={demo}");
    let (status, v) = call(&app, "PUT", &path, Some(&admin), Some(limits(3))).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["limits"]["instances"], json!(3));
    // Effective at once for the project's own users.
    let (_, quota) = call(&app, "GET", "/api/v1/openstack/quota", Some(&alice), None).await;
    assert_eq!(quota["instances"]["limit"], json!(3), "{quota}");
    let (_, v) = call(&app, "GET", &path, Some(&admin), None).await;
    assert_eq!(v["limits"]["instances"], json!(3));
    // Without ?project= the cloud admin's own project is meant: demo's stays as set.
    let (status, own) = call(&app, "GET", "/api/v1/simulator", Some(&admin), None).await;
    assert_eq!(status, 200);
    assert_eq!(own["limits"]["instances"], json!(10), "{own}");
    // A malformed project id is a 400 in words.
    let (status, v) = call(
        &app,
        "GET",
        "/api/v1/simulator?project=..%2Fetc",
        Some(&admin),
        None,
    )
    .await;
    assert_eq!(status, 400);
    assert_error(&v, 400, "project must be a project id");
    let (status, v) = call(&app, "PUT", &path, Some(&admin), Some("{".into())).await;
    assert_eq!(status, 400, "{v}");
}

#[tokio::test]
async fn debris_is_for_the_projects_users_and_cloud_admins() {
    let (app, _) = app_with(&url()).await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    let staging = token("alice", "staging").await;
    let demo = account_of(&alice).await;
    let admin = cloud_admin_token().await;
    for tok in [&alice, &bob] {
        let (status, v) = call(&app, "GET", "/api/v1/simulator/debris/k", Some(tok), None).await;
        assert_eq!((status, v), (200, json!([])));
    }
    let theirs = format!("/api/v1/simulator/debris/k?project={demo}");
    let (status, v) = call(&app, "GET", &theirs, Some(&staging), None).await;
    assert_eq!(status, 403, "another project's debris: {v}");
    assert_error(&v, 403, "for cloud admins only");
    let (status, v) = call(&app, "GET", &theirs, Some(&admin), None).await;
    assert_eq!((status, v), (200, json!([])));
    let (status, _) = call(&app, "GET", "/api/v1/simulator/debris/k", None, None).await;
    assert_eq!(status, 401);
}
