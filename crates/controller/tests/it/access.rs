//! `GET /api/v1/access` answers what the policy grants the caller, and the API enforces the
//! same rules: a policy that lets members create makes both say so; the 403 is one sentence
//! naming the operation, the project and the caller's roles.

use std::time::Duration;

use crate::common::*;
use controller::auth::{Policy, KUBERNIKUS_POLICY};
use serde_json::Value;

/// The rule names `/api/v1/access` grants `tok`.
async fn granted(app: &axum::Router, tok: &str) -> Vec<String> {
    let (status, v) = call(app, "GET", "/api/v1/access", Some(tok), None).await;
    assert_eq!(status, 200, "{v}");
    v["granted"]
        .as_array()
        .expect("granted is a list")
        .iter()
        .filter_map(Value::as_str)
        .map(String::from)
        .collect()
}

#[tokio::test]
async fn access_lists_what_the_default_policy_grants_each_caller() {
    let app = app().await;
    let alice = token("alice", "demo").await;
    let bob = token("bob", "demo").await;
    let admin = granted(&app, &alice).await;
    for rule in ["CreateCluster", "TerminateCluster", "kubernetes_admin"] {
        assert!(
            admin.iter().any(|g| g == rule),
            "alice lacks {rule}: {admin:?}"
        );
    }
    assert!(!admin.iter().any(|g| g == "kubernetes_cloud_admin"));
    let member = granted(&app, &bob).await;
    assert!(member.iter().any(|g| g == "ListClusters"), "{member:?}");
    assert!(!member.iter().any(|g| g == "CreateCluster"), "{member:?}");
    let cloud = granted(&app, &cloud_admin_token().await).await;
    assert!(
        cloud.iter().any(|g| g == "kubernetes_cloud_admin"),
        "{cloud:?}"
    );
    let (status, _) = call(&app, "GET", "/api/v1/access", None, None).await;
    assert_eq!(status, 401, "no token, no answer");

    let (status, v) = create(&app, &bob, kluster("by-bob", None)).await;
    assert_eq!(status, 403);
    assert_error(
        &v,
        403,
        "You are not allowed to do CreateCluster in project demo",
    );
    assert_error(&v, 403, "(your roles: kubernetes_member");
}

#[tokio::test]
async fn a_policy_that_lets_members_create_changes_access_and_enforcement_alike() {
    let text = KUBERNIKUS_POLICY.replace(
        r#""CreateCluster": "rule:kubernetes_admin""#,
        r#""CreateCluster": "rule:kubernetes_user""#,
    );
    assert_ne!(text, KUBERNIKUS_POLICY, "the rule was rewritten");
    let policy = Policy::from_json(&text).expect("a valid policy");
    let (app, _) = app_with_policy(&url(), test_settings(), Duration::from_secs(60), policy).await;
    let bob = token("bob", "demo").await;
    assert!(granted(&app, &bob)
        .await
        .iter()
        .any(|g| g == "CreateCluster"));
    let (status, v) = create(&app, &bob, kluster("by-bob", None)).await;
    assert_eq!(status, 201, "{v}");
}
