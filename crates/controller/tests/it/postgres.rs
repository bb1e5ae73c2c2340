//! The controller on PostgreSQL (`MC_TEST_POSTGRES_URL`, started by scripts/test), each test
//! in a schema of its own: two replicas share klusters, events and the simulated cloud;
//! event sequence numbers stay unique and in commit order across writers; exactly one
//! replica reconciles; a database migrated by a newer controller is refused; the audit trail and
//! the list query answer as on SQLite.

use std::time::{Duration, Instant};

use crate::common::pg::fresh_database;
use controller::store::{Database, Store};
use futures_util::StreamExt;
use kluster::{EventReason, EventType};

#[tokio::test]
async fn event_sequence_numbers_stay_unique_and_in_commit_order_across_replicas() {
    let db = fresh_database("seq").await;
    let (a, b) = (
        Store::connect(&db).await.unwrap(),
        Store::connect(&db).await.unwrap(),
    );
    let reader = Store::connect(&db).await.unwrap();
    // A reader following the sequence as streams do, while two replicas write at once.
    let follow = tokio::spawn(async move {
        let (mut after, mut seen) = (0i64, Vec::new());
        let deadline = Instant::now() + Duration::from_secs(30);
        while seen.len() < 200 && Instant::now() < deadline {
            for e in reader.events_since("p", None, after, 500).await.unwrap() {
                after = e.seq;
                seen.push(e.seq);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        seen
    });
    let write = |s: Store, who: &'static str| {
        tokio::spawn(async move {
            for i in 0..100 {
                let msg = format!("{who} {i}");
                s.record_event(
                    "p",
                    who,
                    EventType::Normal,
                    &EventReason::Other("X".into()),
                    &msg,
                )
                .await
                .unwrap();
            }
        })
    };
    let (wa, wb) = (write(a, "a"), write(b, "b"));
    wa.await.unwrap();
    wb.await.unwrap();
    let seen = follow.await.unwrap();
    assert_eq!(seen.len(), 200, "the follower saw every event once");
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 200, "unique sequence numbers");
    assert_eq!(sorted, seen, "seen in increasing order");
}

#[tokio::test]
async fn two_replicas_share_klusters_the_cloud_and_each_others_events() {
    let db = fresh_database("share").await;
    let dir = std::env::temp_dir().join(format!("mc-pg-share-{}", std::process::id()));
    let config = |db: &Database| {
        let mut c =
            crate::common::fast_controller(&crate::common::url(), &dir, Duration::from_millis(600));
        c.database = db.clone();
        c.tuning.lease_ttl = Duration::from_secs(2);
        c
    };
    let a = controller::run::start(config(&db), std::future::pending())
        .await
        .unwrap();
    let b = controller::run::start(config(&db), std::future::pending())
        .await
        .unwrap();
    let token = crate::common::token("alice", "demo").await;
    let http = reqwest::Client::new();
    let (ua, ub) = (format!("http://{}", a.addr), format!("http://{}", b.addr));
    // B's event stream (the typed client's, read with the one SSE parser), opened before
    // anything happens.
    let b_api = kubernikus_client::Client::new(&ub).unwrap();
    let mut stream = b_api
        .event_stream(&keystone::TokenSecret::new(token.as_str()), None)
        .await
        .unwrap();
    let created = http
        .post(format!("{ua}/api/v1/clusters"))
        .header("x-auth-token", &token)
        .body(r#"{"name":"shared","spec":{"nodePools":[{"name":"p","size":2,"flavor":"m1.small","availabilityZone":"az-a"}]}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let listed: Vec<serde_json::Value> = http
        .get(format!("{ub}/api/v1/clusters"))
        .header("x-auth-token", &token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed.len(), 1, "B sees what A stored");
    // Whichever replica reconciles, B's stream carries the events (NOTIFY wakes it).
    let (mut running, mut created_nodes, mut seen) = (false, 0, Vec::new());
    let deadline = Instant::now() + Duration::from_secs(20);
    while !(running && created_nodes >= 2) {
        let left = deadline.saturating_duration_since(Instant::now());
        let next = tokio::time::timeout(left, stream.next())
            .await
            .unwrap_or_else(|_| panic!("B's stream stalled: {seen:?}"))
            .expect("B's stream goes on")
            .unwrap();
        if let kubernikus_client::StreamEvent::Event(e) = &next {
            match e.event.event_reason() {
                EventReason::Running => running = true,
                EventReason::SuccessfulCreateNode => created_nodes += 1,
                _ => {}
            }
        }
        seen.push(next);
    }
    // The simulated cloud is one: both replicas' quota views count the same two servers.
    for base in [&ua, &ub] {
        let q: serde_json::Value = http
            .get(format!("{base}/api/v1/openstack/quota"))
            .header("x-auth-token", &token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(q["instances"]["used"], 2, "{base}: {q}");
    }
    // Exactly one replica holds the reconcile lease.
    let store = Store::connect(&db).await.unwrap();
    let other = store
        .try_lease(
            controller::reconcile::lease::NAME,
            "a-stranger",
            Duration::from_secs(2),
        )
        .await
        .unwrap();
    assert!(!other, "the lease is held by a replica");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_database_migrated_by_a_newer_controller_is_refused_in_words() {
    let db = fresh_database("newer").await;
    drop(Store::connect(&db).await.unwrap());
    let Database::Postgres(url) = &db else {
        unreachable!()
    };
    let pool = sqlx::PgPool::connect(url).await.unwrap();
    sqlx::query("UPDATE mc_schema SET version = 999")
        .execute(&pool)
        .await
        .unwrap();
    let e = Store::connect(&db).await.unwrap_err();
    assert!(e.is_fatal());
    assert!(
        e.to_string()
            .contains("schema version 999, newer than this controller's"),
        "{e}"
    );
}

#[tokio::test]
async fn wrong_credentials_are_an_error_not_a_wait() {
    let Database::Postgres(url) = fresh_database("creds").await else {
        unreachable!()
    };
    let mut wrong = url::Url::parse(&url).unwrap();
    wrong.set_password(Some("not-the-password")).unwrap();
    let e = Store::connect(&Database::Postgres(wrong.to_string()))
        .await
        .unwrap_err();
    assert!(e.is_fatal(), "{e}");
    assert!(!e.to_string().contains("not-the-password"), "{e}");
}

#[tokio::test]
async fn the_audit_trail_is_scoped_filtered_and_paged_on_postgres() {
    let db = fresh_database("audit").await;
    let store = Store::connect(&db).await.unwrap();
    controller::store::audit_checks::audit_trail_filters_and_scopes(&store).await;
}

#[tokio::test]
async fn the_list_query_searches_sorts_and_pages_in_sql_on_postgres() {
    let db = fresh_database("listing").await;
    let store = Store::connect(&db).await.unwrap();
    controller::store::listing_checks::list_queries_follow_writes(&store).await;
}
