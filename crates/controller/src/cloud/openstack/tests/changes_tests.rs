//! Asking Nova what changed since a time (`changes-since`), briefly, instead of listing
//! every server in detail.

use super::stand::Stand;
use super::{cloud, spec};
use crate::cloud::{Cloud, CHANGES_AT_MOST};

#[tokio::test]
async fn changes_since_a_time_are_asked_briefly_and_name_the_new_server() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    // The stand's newest server is 5 s old.
    let now = time::OffsetDateTime::now_utc() - time::Duration::seconds(1);
    assert_eq!(c.changed_since("p1", now).await.unwrap(), Some(vec![]));
    let made = c
        .create_server("p1", &spec("kks-k1-a-abcde"))
        .await
        .unwrap();
    assert_eq!(
        c.changed_since("p1", now).await.unwrap(),
        Some(vec![made.id])
    );
    let asked = stand.seen("/compute/v2.1/servers");
    let brief = asked
        .iter()
        .filter(|c| c.path == "/compute/v2.1/servers" && c.method == axum::http::Method::GET);
    let queries: Vec<&Vec<(String, String)>> = brief.map(|c| &c.query).collect();
    assert_eq!(queries.len(), 2);
    assert!(queries
        .iter()
        .all(|q| q.iter().any(|(k, _)| k == "changes-since")
            && q.contains(&("limit".to_string(), CHANGES_AT_MOST.to_string()))));
}
