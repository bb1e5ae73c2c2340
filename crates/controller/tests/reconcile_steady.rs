//! The reconcile loop passes a settled project (every kluster Running with its pools at
//! size, nothing to do) only every `STEADY_RESYNCS` resyncs, and at once again when it
//! changes or is touched (a simulator setting); a project with work left is passed on every
//! resync, and one that the cloud refuses (over quota) with a growing delay.

mod common;

use std::time::Duration;

use common::world::*;
use controller::reconcile::STEADY_RESYNCS;
use testkit::eventually;

/// Project passes counted so far (the pass-duration histogram's count).
fn passes(w: &World) -> u64 {
    let text = w.rec.metrics.render();
    text.lines()
        .filter(|l| l.starts_with("mc_controller_reconcile_pass_duration_seconds_count"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
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
    let full = every * STEADY_RESYNCS; // 600 ms between the passes of a settled project
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(w.rec.clone().run(every, async {
        let _ = stopped.await;
    }));

    // Settled: over 30 resyncs, only the full ones pass it (about 2, not 30).
    // An upper bound over a number of resyncs: the window is the reconcile loop's own timer
    // (30 × `every`). Nothing outside the reconcile loop counts its resyncs, so the window
    // is that time, not a condition; it is the assertion's subject, not a guess at how
    // long something takes.
    let before = passes(&w);
    tokio::time::sleep(every * 30).await;
    let settled = passes(&w) - before;
    assert!(
        (1..=30 / u64::from(STEADY_RESYNCS) + 2).contains(&settled),
        "a settled project passed {settled} times in 30 resyncs"
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
    // At least 8 passes within 15 resyncs' time: waited for, not slept through.
    let before = passes(&w);
    passes_reach(
        &w,
        before + 8,
        every * 15,
        "a project with work left passed 8 times in 15 resyncs",
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

    // Refused again and again: asked after 2, 4, 8, then every 15 resyncs, not every one:
    // within 30 resyncs about 5 passes (and the full resyncs' 2), not 30.
    // Upper bounds over 30 resyncs: the window is the reconcile loop's own timer (see above).
    let (before, asked) = (passes(&w), refused().await);
    tokio::time::sleep(every * 30).await;
    let (stalled, asks) = (passes(&w) - before, refused().await - asked);
    assert!(
        stalled <= 9,
        "a project whose every pass is refused passed {stalled} times in 30 resyncs"
    );
    assert!(asks <= 9, "the refused server was asked for {asks} times");
    assert!(
        stalled >= 2,
        "it is still retried ({stalled} passes in 30 resyncs)"
    );
    assert_eq!(w.servers("full").await.len(), 6);

    // A quota raised through the simulator touches the project: passed at once.
    let n = passes(&w);
    w.store.project_touched(P).await;
    passes_reach(&w, n + 1, every * 3, "after a touch").await;

    let _ = stop.send(());
    running.await.unwrap();
}
