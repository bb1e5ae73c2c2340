//! The reconcile loop passes a settled kluster (Running with its pools at size, nothing to
//! do) only on the full resyncs (every `FULL_RESYNC_POLLS` poll intervals), and at once
//! again when it changes or its project is touched (a simulator setting); a kluster with
//! work in progress every poll interval; one that the cloud refuses (over quota) with a
//! growing delay; and a Creating kluster at the end of its phase, not on a later tick.

use std::time::Duration;

use crate::common::world::*;
use controller::reconcile::FULL_RESYNC_POLLS;
use testkit::eventually;

/// Project passes counted so far (the pass-duration histogram's count).
fn passes(w: &World) -> u64 {
    let text = w.rec.metrics.render();
    text.lines()
        .filter(|l| l.starts_with("mc_controller_reconcile_pass_duration_seconds_count"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Full resyncs counted so far.
fn resyncs(w: &World) -> u64 {
    let text = w.rec.metrics.render();
    text.lines()
        .filter(|l| l.starts_with("mc_controller_reconcile_resyncs_total"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Waits until `resyncs(w)` reaches `n` (at most `within`).
async fn resyncs_reach(w: &World, n: u64, within: Duration) {
    eventually(within, "full resyncs", || async {
        let now = resyncs(w);
        if now >= n {
            Ok(())
        } else {
            Err(format!("{now} full resyncs"))
        }
    })
    .await;
}

/// Waits until `passes(w)` reaches `n` (at most `within`).
async fn passes_reach(w: &World, n: u64, within: Duration, what: &str) {
    eventually(within, what, || async {
        let now = passes(w);
        if now >= n {
            Ok(())
        } else {
            Err(format!("{now} passes"))
        }
    })
    .await;
}

#[tokio::test]
async fn a_settled_project_is_passed_seldom_and_at_once_when_it_changes() {
    let w = world("steady").await;
    w.up("settled", &[("a", 1)]).await;
    let every = Duration::from_millis(40);
    let full = every * FULL_RESYNC_POLLS; // 600 ms between the passes of a settled project
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(w.rec.clone().run(every, async {
        let _ = stopped.await;
    }));

    // Settled: between two full resyncs and the next two, only those pass it (2, not 30).
    resyncs_reach(&w, 1, full).await;
    let (r, before) = (resyncs(&w), passes(&w));
    resyncs_reach(&w, r + 2, full * 4).await;
    let settled = passes(&w) - before;
    assert!(
        (1..=3).contains(&settled),
        "a settled project passed {settled} times in 2 full resyncs (30 poll intervals)"
    );

    // Touched (as a simulator setting does): passed at once, not a full resync later.
    // Right after a full resync's pass, so the next one is a whole interval away.
    let n = passes(&w);
    passes_reach(&w, n + 1, full * 2, "a full resync").await;
    let n = passes(&w);
    w.store.project_touched(P).await;
    passes_reach(&w, n + 1, full / 2, "after a touch").await;

    // Scaled up: the new node cannot boot (the simulated clock stands still), so the
    // project has work left and is passed on every resync again.
    w.resize("settled", 0, 2).await;
    passes_reach(&w, passes(&w) + 1, full / 2, "after a change").await;
    // At least 8 passes within 15 poll intervals: waited for, not slept through.
    let before = passes(&w);
    passes_reach(
        &w,
        before + 8,
        every * 15,
        "a project with work left passed 8 times in 15 poll intervals",
    )
    .await;
    assert_eq!(
        w.servers("settled").await.len(),
        2,
        "the new node was asked for"
    );

    let _ = stop.send(());
    running.await.unwrap();
}

#[tokio::test]
async fn full_resyncs_come_at_the_interval_set_not_the_polls() {
    let w = world("resync").await;
    w.up("idle", &[("a", 1)]).await;
    let every = Duration::from_millis(40);
    let set = every * 3; // 120 ms; by the polls it would be 600 ms
    let mut rec = w.rec.clone();
    rec.resync_every = Some(set);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(rec.run(every, async {
        let _ = stopped.await;
    }));
    resyncs_reach(&w, 1, set * 5).await;
    // 5 more within 1.5 s: at 120 ms apart (0.6 s), not 600 ms (3 s).
    let r = resyncs(&w);
    resyncs_reach(&w, r + 5, Duration::from_millis(1500)).await;
    let _ = stop.send(());
    running.await.unwrap();
}

#[tokio::test]
async fn a_project_the_cloud_refuses_is_passed_with_a_growing_delay_and_at_once_when_touched() {
    let w = world("stalled").await;
    w.up("full", &[("a", 6)]).await; // the project may have 6 servers: it is at its quota
    let every = Duration::from_millis(40);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(w.rec.clone().run(every, async {
        let _ = stopped.await;
    }));
    let refused = || async {
        w.events("full")
            .await
            .into_iter()
            .filter(|e| e.reason == "FailedCreateNode")
            .map(|e| e.count)
            .sum::<i64>()
    };

    // One node more than the quota: the change is acted on at once, and refused.
    let n = passes(&w);
    w.resize("full", 0, 7).await;
    passes_reach(&w, n + 1, every * 5, "after the scale").await;
    eventually(every * 10, "the create was tried", || async {
        refused().await > 0
    })
    .await;

    // Refused again and again: asked after 2, 4, 8, then every 15 poll intervals, not every
    // one: within 2 full resyncs (30 intervals) about 4 passes (and the full resyncs' 2).
    let r = resyncs(&w);
    resyncs_reach(&w, r + 1, every * 20).await;
    let (r, before, asked) = (resyncs(&w), passes(&w), refused().await);
    resyncs_reach(&w, r + 2, every * 40).await;
    let (stalled, asks) = (passes(&w) - before, refused().await - asked);
    assert!(
        stalled <= 9,
        "a project whose every pass is refused passed {stalled} times in 30 poll intervals"
    );
    assert!(asks <= 9, "the refused server was asked for {asks} times");
    assert!(
        stalled >= 2,
        "it is still retried ({stalled} passes in 30 poll intervals)"
    );
    assert_eq!(w.servers("full").await.len(), 6);

    // A quota raised through the simulator touches the project: passed at once.
    let n = passes(&w);
    w.store.project_touched(P).await;
    passes_reach(&w, n + 1, every * 3, "after a touch").await;

    let _ = stop.send(());
    running.await.unwrap();
}

#[tokio::test]
async fn a_creating_kluster_is_passed_at_the_end_of_its_phase_not_on_a_later_tick() {
    let mut w = world("deadline").await;
    w.rec.timing.create = Duration::from_millis(300);
    // A poll interval of 5 s: the next full resync is 75 s away.
    let every = Duration::from_secs(5);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(w.rec.clone().run(every, async {
        let _ = stopped.await;
    }));
    resyncs_reach(&w, 1, every).await;
    w.add(kluster("soon", &[("a", 1)])).await;
    eventually(Duration::from_secs(3), "Running", || async {
        match w.get("soon").await.map(|k| k.status.phase) {
            Some(kluster::KlusterPhase::Running) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert_eq!(resyncs(&w), 1, "no full resync came in between");
    let _ = stop.send(());
    running.await.unwrap();
}
