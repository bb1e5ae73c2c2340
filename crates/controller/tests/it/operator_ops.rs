//! The cloud admins' cross-project views (`/api/v1/ops/*` and the all-projects event
//! stream) against the real local Keystone: project users get a 403 in words and nothing
//! of any project; cloud admins see every project.

use crate::common::*;
use serde_json::json;

#[tokio::test]
async fn ops_views_answer_cloud_admins_only_and_show_every_project() {
    let (app, store) = app_with_settings(
        &url(),
        controller::api::ApiSettings {
            stuck_after: std::time::Duration::ZERO,
            ..test_settings()
        },
    )
    .await;
    let alice = token("alice", "demo").await;
    let staging = token("alice", "staging").await;
    let admin = cloud_admin_token().await;
    let demo = account_of(&alice).await;
    let stg = account_of(&staging).await;
    assert_eq!(create(&app, &alice, kluster("stuck", None)).await.0, 201);
    assert_eq!(create(&app, &alice, kluster("short", None)).await.0, 201);
    assert_eq!(create(&app, &staging, kluster("noisy", None)).await.0, 201);
    store
        .modify(&demo, "stuck", |k| {
            k.status.phase = kluster::KlusterPhase::Creating;
            Ok::<(), ()>(())
        })
        .await
        .unwrap();
    store
        .modify(&demo, "short", |k| {
            k.status.phase = kluster::KlusterPhase::Running;
            k.status.node_pools = vec![kluster::NodePoolInfo {
                name: "small".into(),
                size: 2,
                running: 1,
                healthy: 1,
                schedulable: 1,
                ..Default::default()
            }];
            Ok::<(), ()>(())
        })
        .await
        .unwrap();
    for _ in 0..3 {
        store
            .record_event(
                &stg,
                "noisy",
                kluster::EventType::Warning,
                &kluster::EventReason::FailedCreateNode,
                "Quota exceeded for cores",
            )
            .await
            .unwrap();
    }

    for path in [
        "/api/v1/ops/events",
        "/api/v1/ops/attention",
        "/api/v1/ops/quotas",
        "/api/v1/events/stream?all_projects=true",
    ] {
        let (s, v) = call(&app, "GET", path, Some(&alice), None).await;
        assert_eq!(s, 403, "{path}: {v}");
        assert_error(&v, 403, "for cloud admins only");
        let text = v.to_string();
        assert!(
            !text.contains(&stg) && !text.contains(&demo) && !text.contains("noisy"),
            "{path} leaks project data: {text}"
        );
    }

    let (s, v) = call(&app, "GET", "/api/v1/ops/events", Some(&admin), None).await;
    assert_eq!(s, 200, "{v}");
    let evs = v.as_array().unwrap();
    let noisy = evs
        .iter()
        .find(|e| e["kluster"] == json!("noisy"))
        .expect("staging's event");
    assert_eq!(noisy["projectId"], json!(stg));
    assert_eq!(noisy["projectName"], json!("staging"));
    assert_eq!(noisy["count"], json!(3));
    let (_, v) = call(
        &app,
        "GET",
        &format!("/api/v1/ops/events?project={demo}&last=10"),
        Some(&admin),
        None,
    )
    .await;
    assert!(v
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["projectId"] == json!(demo)));
    // By name too (any case), as an operator knows a project.
    let (_, v) = call(
        &app,
        "GET",
        "/api/v1/ops/events?project=STAGING&last=10",
        Some(&admin),
        None,
    )
    .await;
    let by_name = v.as_array().unwrap();
    assert!(!by_name.is_empty(), "staging's events by its name: {v}");
    assert!(by_name.iter().all(|e| e["projectId"] == json!(stg)), "{v}");

    let (s, v) = call(&app, "GET", "/api/v1/ops/attention", Some(&admin), None).await;
    assert_eq!(s, 200, "{v}");
    let problems: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["kluster"].as_str().unwrap().to_string(),
                a["problem"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        ("stuck", "stuck"),
        ("short", "pool_below_size"),
        ("noisy", "repeated_warnings"),
    ] {
        assert!(
            problems.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} in {problems:?}"
        );
    }
    assert_eq!(problems.len(), 3, "nothing else: {problems:?}");

    let (s, v) = call(&app, "GET", "/api/v1/ops/quotas", Some(&admin), None).await;
    assert_eq!(s, 200, "{v}");
    let rows = v.as_array().unwrap();
    let d = rows
        .iter()
        .find(|r| r["projectId"] == json!(demo))
        .expect("demo's quota");
    assert_eq!(d["klusters"], json!(2));
    assert_eq!(d["projectName"], json!("demo"));
    assert!(d["quota"]["cores"]["limit"].as_i64().unwrap() > 0, "{d}");
    assert!(rows.iter().any(|r| r["projectId"] == json!(stg)));
}
