//! Event recording on SQLite: aggregation, projects kept apart, typed details, sequence.

use super::super::test_util::*;
use super::*;

#[tokio::test]
async fn identical_events_aggregate_and_stay_in_their_project() {
    let s = Store::open(&db_path("events")).await.unwrap();
    let a = s
        .record_event(
            "p1",
            "k",
            EventType::Warning,
            &EventReason::FailedCreateNode,
            "quota",
        )
        .await
        .unwrap();
    let b = s
        .record_event(
            "p1",
            "k",
            EventType::Warning,
            &EventReason::FailedCreateNode,
            "quota",
        )
        .await
        .unwrap();
    let c = s
        .record_event("p1", "k", EventType::Normal, &EventReason::Running, "up")
        .await
        .unwrap();
    assert_eq!(a, b);
    assert!(c > a, "ids grow");
    let ev = s.events("p1", "k", None).await.unwrap();
    assert_eq!(ev.len(), 2);
    assert_eq!(
        (ev[0].reason.as_str(), ev[0].count),
        ("FailedCreateNode", 2)
    );
    assert_eq!(ev[0].detail, None);
    assert!(s.events("p2", "k", None).await.unwrap().is_empty());
    // A typed detail is kept with the event and read back.
    s.record_event_counted(NewEvent {
        project: "p1",
        kluster: "q",
        uid: None,
        kind: EventType::Warning,
        reason: &EventReason::FailedCreateNode,
        detail: Some(&EventDetail::QuotaExceeded),
        message: "Quota exceeded for instances",
    })
    .await
    .unwrap();
    let ev = s.events("p1", "q", None).await.unwrap();
    assert_eq!(ev[0].detail, Some(EventDetail::QuotaExceeded));
    let since = s.events_since("p1", Some("q"), 0, 10).await.unwrap();
    assert_eq!(since[0].event.detail, Some(EventDetail::QuotaExceeded));
}

#[tokio::test]
async fn every_change_gets_the_next_sequence_number_and_wakes_readers() {
    let s = Store::open(&db_path("seq")).await.unwrap();
    let mut latest = s.latest_seq();
    let a = s
        .record_event(
            "p1",
            "k",
            EventType::Warning,
            &EventReason::Other("X".into()),
            "m",
        )
        .await
        .unwrap();
    s.record_event(
        "p1",
        "j",
        EventType::Normal,
        &EventReason::Other("Y".into()),
        "n",
    )
    .await
    .unwrap();
    assert!(latest.has_changed().unwrap());
    let after: i64 = *latest.borrow_and_update();
    assert_eq!(after, 2);
    // Aggregating an old event moves it to the end of the sequence.
    s.record_event(
        "p1",
        "k",
        EventType::Warning,
        &EventReason::Other("X".into()),
        "m",
    )
    .await
    .unwrap();
    let since = s.events_since("p1", None, after, 100).await.unwrap();
    assert_eq!(since.len(), 1);
    assert_eq!((since[0].id, since[0].seq, since[0].event.count), (a, 3, 2));
    let all = s.events_since("p1", None, 0, 100).await.unwrap();
    assert_eq!(
        all.iter().map(|e| e.kluster.as_str()).collect::<Vec<_>>(),
        ["j", "k"]
    );
    assert_eq!(
        s.events_since("p1", Some("j"), 0, 100).await.unwrap().len(),
        1
    );
    assert!(s.events_since("p2", None, 0, 100).await.unwrap().is_empty());
    assert_eq!(
        s.events_since("p1", None, 0, 1).await.unwrap().len(),
        1,
        "limit"
    );
    let newest = s.events_latest("p1", None, 1).await.unwrap();
    assert_eq!((newest[0].kluster.as_str(), newest[0].seq), ("k", 3));
}
