//! Failure tests with real processes: PostgreSQL, two controller replicas, two dashboard
//! replicas and nginx in front (`deploy/nginx/mission-control.conf`), killed with SIGKILL
//! (the scenarios are in `common/scenarios.rs`; `cargo bench -p server --bench failover`
//! prints their figures).

use crate::common::scenarios;

#[tokio::test]
async fn the_reconciling_controller_dies_mid_creation_and_the_other_finishes_the_kluster() {
    let t = scenarios::reconciler_dies().await;
    assert_eq!(t.servers, 3);
    assert!(t.lease < std::time::Duration::from_secs(10), "{t:?}");
}

#[tokio::test]
async fn a_dashboard_dies_under_streaming_browsers_and_they_resume_on_the_other_exactly_once() {
    let r = scenarios::dashboard_dies().await;
    assert_eq!(r.lost_or_doubled, 0, "every event exactly once: {r:?}");
}

#[tokio::test]
async fn postgresql_restarts_and_both_tiers_recover_without_losing_acknowledged_writes() {
    let r = scenarios::postgres_restarts().await;
    assert!(r.acknowledged >= 4, "{r:?}");
}

#[tokio::test]
async fn both_tiers_start_without_postgresql_and_become_ready_when_it_comes() {
    let took = scenarios::postgres_late_at_start().await;
    assert!(took < std::time::Duration::from_secs(40));
}
