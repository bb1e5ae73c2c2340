//! A kluster's identity, on both engines (SQLite and PostgreSQL at `MC_TEST_POSTGRES_URL`):
//! events are keyed by the kluster's uid, so a kluster created again under a deleted one's
//! name starts without the old history (which stays in the project's timeline under the
//! name), and events past their retention are pruned.

use std::time::Duration;

use crate::common::pg::fresh_database;
use controller::store::{CaRecord, Database, NewEvent, Store, StoredKluster};
use kluster::{EventReason, EventType, Kluster};

/// A fresh SQLite database file.
fn sqlite(tag: &str) -> Database {
    let path = std::env::temp_dir().join(format!("mc-id-{tag}-{}.db", std::process::id()));
    for s in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", path.display()));
    }
    Database::Sqlite(path)
}

/// A second connection to `db`, for what the store offers no call for (ageing rows).
async fn raw(db: &Database) -> sqlx::AnyPool {
    let url = match db {
        Database::Sqlite(p) => format!("sqlite://{}", p.display()),
        Database::Postgres(u) => u.clone(),
    };
    sqlx::AnyPool::connect(&url).await.unwrap()
}

fn stored(name: &str) -> StoredKluster {
    StoredKluster {
        kluster: Kluster {
            name: name.into(),
            ..Default::default()
        },
        creator: "alice/demo".into(),
        termination_protected: false,
    }
}

fn ca() -> CaRecord {
    CaRecord {
        cert_pem: "pem".into(),
        key_sealed: vec![1],
    }
}

async fn uid(s: &Store, name: &str) -> String {
    let k = s.get("p", name).await.unwrap().unwrap().kluster;
    k.metadata.expect("our store answers metadata").uid
}

async fn a_kluster_created_again_starts_without_the_old_history(db: Database) {
    let s = Store::connect(&db).await.unwrap();
    s.insert("p", &stored("k"), &ca()).await.unwrap();
    let old = uid(&s, "k").await;
    assert_eq!(old.len(), 36, "a UUID: {old}");
    let running = EventReason::Running;
    for _ in 0..2 {
        s.record_event(
            "p",
            "k",
            EventType::Normal,
            &running,
            "Kluster k is running",
        )
        .await
        .unwrap();
    }
    let node = EventReason::SuccessfulCreateNode;
    s.record_event("p", "k", EventType::Normal, &node, "Created kks-k-a-aaaaa")
        .await
        .unwrap();
    assert!(s.delete("p", "k").await.unwrap());
    s.insert("p", &stored("k"), &ca()).await.unwrap();
    let new = uid(&s, "k").await;
    assert_ne!(new, old, "a new kluster, a new uid");
    assert!(
        s.events("p", "k", Some(&new)).await.unwrap().is_empty(),
        "the new kluster starts without history"
    );
    let (_, count) = s
        .record_event_counted(NewEvent {
            project: "p",
            kluster: "k",
            uid: Some(&new),
            kind: EventType::Normal,
            reason: &running,
            detail: None,
            message: "Kluster k is running",
        })
        .await
        .unwrap();
    assert_eq!(count, 1, "not aggregated into the old kluster's event");
    // Without a uid, an event goes to the kluster that has the name now.
    s.record_event("p", "k", EventType::Normal, &node, "Created kks-k-a-bbbbb")
        .await
        .unwrap();
    let mine = s.events("p", "k", Some(&new)).await.unwrap();
    assert_eq!(mine.len(), 2, "{mine:?}");
    let theirs = s.events("p", "k", Some(&old)).await.unwrap();
    assert_eq!(
        theirs.iter().map(|e| e.count).collect::<Vec<_>>(),
        [2, 1],
        "{theirs:?}"
    );
    // The project's timeline keeps both histories, under the name.
    let timeline = s.events_since("p", Some("k"), 0, 100).await.unwrap();
    assert_eq!(timeline.len(), 4);
    assert!(timeline.iter().all(|e| e.kluster == "k"));
}

#[tokio::test]
async fn a_kluster_created_again_starts_without_the_old_history_on_sqlite() {
    a_kluster_created_again_starts_without_the_old_history(sqlite("again")).await;
}

#[tokio::test]
async fn a_kluster_created_again_starts_without_the_old_history_on_postgres() {
    a_kluster_created_again_starts_without_the_old_history(fresh_database("again").await).await;
}

async fn events_past_their_retention_are_pruned(db: Database) {
    let s = Store::connect(&db).await.unwrap();
    s.insert("p", &stored("k"), &ca()).await.unwrap();
    let reason = EventReason::Other("X".into());
    let old = s
        .record_event("p", "k", EventType::Normal, &reason, "old")
        .await
        .unwrap();
    s.record_event("p", "gone", EventType::Normal, &reason, "recent")
        .await
        .unwrap();
    let eight_days_ago = (time::OffsetDateTime::now_utc() - time::Duration::days(8))
        .replace_nanosecond(0)
        .unwrap()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    sqlx::query("UPDATE events SET last_timestamp = $1, first_timestamp = $1 WHERE id = $2")
        .bind(eight_days_ago)
        .bind(old)
        .execute(&raw(&db).await)
        .await
        .unwrap();
    let week = Duration::from_secs(7 * 24 * 3600);
    assert_eq!(s.prune_events(week).await.unwrap(), 1);
    let left = s.events_since("p", None, 0, 100).await.unwrap();
    assert_eq!(
        left.iter()
            .map(|e| e.event.message.as_str())
            .collect::<Vec<_>>(),
        ["recent"]
    );
    assert_eq!(
        s.prune_events(week).await.unwrap(),
        0,
        "nothing else is old"
    );
}

#[tokio::test]
async fn events_past_their_retention_are_pruned_on_sqlite() {
    events_past_their_retention_are_pruned(sqlite("prune")).await;
}

#[tokio::test]
async fn events_past_their_retention_are_pruned_on_postgres() {
    events_past_their_retention_are_pruned(fresh_database("prune").await).await;
}
