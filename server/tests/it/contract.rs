//! The typed contract end to end: the embedded controller's typed errors (`reason`,
//! `fields`) reach the dashboard's server functions as field errors and sentences, without
//! any code reading the controller's words.

use crate::common::{browser, call, create_kluster, login};
use serde_json::Value;

fn create_form<'a>(name: &'a str, pod_cidr: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("form[name]", name),
        ("form[cluster_cidr]", pod_cidr),
        ("form[pools][0][name]", "pool"),
        ("form[pools][0][flavor]", "m1.small"),
        ("form[pools][0][availability_zone]", "az-a"),
        ("form[pools][0][size]", "1"),
    ]
}

/// The message the server function's `Invalid` answer has for `field`.
fn field_message(v: &Value, field: &str) -> Option<String> {
    (v["code"] == "invalid").then_some(())?;
    v["fields"]
        .as_array()?
        .iter()
        .find(|e| e["field"] == field)
        .and_then(|e| e["message"].as_str())
        .map(String::from)
}

#[tokio::test]
async fn clashes_come_back_on_their_fields_and_protection_in_words() {
    let srv = crate::common::spawn(|_| {}).await;
    let c = browser();
    login(&c, &srv, "alice", "demo").await;
    create_kluster(
        &srv,
        "alice",
        r#"{"name":"taken","spec":{"clusterCIDR":"10.50.0.0/16"}}"#,
    )
    .await;

    // The name is taken: the controller says NameTaken on field `name`.
    let r = call(
        &c,
        &srv,
        "create_kluster",
        &create_form("taken", "10.60.0.0/16"),
    )
    .await;
    assert_eq!(r.status(), 422);
    let v: Value = r.json().await.unwrap();
    let m = field_message(&v, "name").unwrap_or_else(|| panic!("no name error: {v}"));
    assert!(m.contains("already exists"), "{m}");

    // The pod range overlaps: CidrOverlap on `spec.clusterCIDR`.
    let r = call(
        &c,
        &srv,
        "create_kluster",
        &create_form("fresh", "10.50.128.0/17"),
    )
    .await;
    assert_eq!(r.status(), 422);
    let v: Value = r.json().await.unwrap();
    let m = field_message(&v, "spec.clusterCIDR")
        .unwrap_or_else(|| panic!("no clusterCIDR error: {v}"));
    assert!(
        m.contains("overlaps the clusterCIDR of kluster \"taken\""),
        "{m}"
    );

    // Termination protection (set where an operator would: in the controller's store).
    let db = sqlx::SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new().filename(srv.data_dir.join("controller.db")),
    )
    .await
    .unwrap();
    sqlx::query("UPDATE klusters SET termination_protected = 1 WHERE name = 'taken'")
        .execute(&db)
        .await
        .unwrap();
    let r = call(
        &c,
        &srv,
        "delete_kluster",
        &[("name", "taken"), ("confirm", "taken")],
    )
    .await;
    assert_eq!(r.status(), 403);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["code"], "forbidden", "{v}");
    let m = v["text"].as_str().unwrap_or_default();
    assert!(
        m.contains("termination protection: turn it off (under Delete)"),
        "{v}"
    );
}
