//! Projects in one pass: a project whose cloud hangs delays no other project (concurrency
//! and time budget), and a kluster whose reconciliation fails does not end the pass.

use std::time::Duration;

use crate::common::world::*;
use controller::cloud::sim::Faults;
use kluster::KlusterPhase;

/// A project whose cloud hangs (sorted before `P`, so the old sequential pass met it first).
const HUNG: &str = "project-0";

fn hanging() -> Faults {
    Faults {
        api_timeout: true,
        ..Faults::default()
    }
}

#[tokio::test]
async fn a_project_whose_cloud_hangs_does_not_hold_up_another_projects_pass() {
    let w = world("budget").await;
    // The hung project has a running kluster (it needs a server listing) and a new one
    // (it needs the metadata): both calls hang.
    w.add_to(HUNG, kluster("up", &[("a", 1)])).await;
    for _ in 0..2 {
        w.rec.pass().await.unwrap();
    }
    w.add_to(HUNG, kluster("new", &[("a", 1)])).await;
    w.set_faults_of(HUNG, hanging()).await;
    w.add(kluster("k", &[("a", 2)])).await;
    let mut rec = w.rec.clone();
    rec.call_timeout = Duration::from_secs(60);
    rec.project_budget = Duration::from_millis(300);
    let t0 = std::time::Instant::now();
    for _ in 0..2 {
        tokio::time::timeout(Duration::from_secs(5), rec.pass())
            .await
            .expect("a pass ends within the hung project's budget")
            .unwrap();
    }
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    let k = w.get("k").await.unwrap();
    assert_eq!(k.status.phase, KlusterPhase::Running);
    assert_eq!(w.servers("k").await.len(), 2, "its nodes are created");
    // The hung project's running kluster was told, within the budget, that the cloud is
    // away; its new kluster waits.
    let up = w.store.events(HUNG, "up", None).await.unwrap();
    let warning = up.iter().find(|e| e.reason == "CloudUnavailable");
    assert!(warning.is_some_and(|e| e.kind == "Warning"), "{up:?}");
    let new = w.store.get(HUNG, "new").await.unwrap().unwrap().kluster;
    assert_eq!(new.status.phase, KlusterPhase::Pending);
}

#[tokio::test]
async fn the_running_reconciler_keeps_other_projects_at_their_pace_while_one_hangs() {
    let w = world("tuning").await;
    w.add_to(HUNG, kluster("new", &[("a", 1)])).await;
    w.set_faults_of(HUNG, hanging()).await;
    let mut rec = w.rec.clone();
    // Neither the call timeout nor the budget ends the hung project's pass during the test.
    rec.call_timeout = Duration::from_secs(60);
    rec.project_budget = Duration::from_secs(60);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(rec.run(Duration::from_millis(20), async {
        let _ = stopped.await;
    }));
    w.add(kluster("k", &[("a", 2)])).await;
    let t0 = std::time::Instant::now();
    // Its nodes are created in the pass that makes it Running, and written after them.
    let is_running =
        |k: Option<kluster::Kluster>| k.is_some_and(|k| k.status.phase == KlusterPhase::Running);
    while w.servers("k").await.len() < 2 || !is_running(w.get("k").await) {
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "project {P} waited for project {HUNG}: {:?}",
            w.get("k").await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(2), running)
        .await
        .expect("the reconciler stops on shutdown, hung project or not")
        .unwrap();
}

#[tokio::test]
async fn one_klusters_store_error_is_logged_and_the_pass_goes_on() {
    let w = world("isolation").await;
    // Recording any event about kluster "bad" fails in the database (its name sorts first,
    // so a pass that stopped at the first error would never reach "good").
    let db = sqlx::SqlitePool::connect(&format!("sqlite://{}", w.path.display()))
        .await
        .unwrap();
    sqlx::raw_sql(
        "CREATE TRIGGER fail_bad BEFORE INSERT ON events WHEN NEW.kluster = 'bad'
         BEGIN SELECT RAISE(ABORT, 'injected failure'); END;",
    )
    .execute(&db)
    .await
    .unwrap();
    w.add(kluster("bad", &[("a", 1)])).await;
    w.add(kluster("good", &[("a", 1)])).await;
    let report = w.rec.pass().await.expect("the pass itself succeeds");
    assert_eq!((report.klusters, report.failed), (2, 1), "{report:?}");
    assert_eq!(
        w.get("good").await.unwrap().status.phase,
        KlusterPhase::Creating,
        "the other kluster went on"
    );
    assert_eq!(
        w.get("bad").await.unwrap().status.phase,
        KlusterPhase::Pending,
        "nothing written for the failed one"
    );
    w.pass().await;
    assert_eq!(
        w.get("good").await.unwrap().status.phase,
        KlusterPhase::Running
    );
    assert_eq!(w.servers("good").await.len(), 1);
    // Once the database accepts it again, the failed kluster catches up.
    sqlx::raw_sql("DROP TRIGGER fail_bad")
        .execute(&db)
        .await
        .unwrap();
    w.run(2, Duration::ZERO).await;
    assert_eq!(
        w.get("bad").await.unwrap().status.phase,
        KlusterPhase::Running
    );
}
