//! Nova's notifications over the test cloud's RabbitMQ (`scripts/openstack.sh` turns on
//! `messagingv2`, versioned, and makes a reader-only user): with the periodic look all but
//! off (every 10 minutes), a server deleted by hand is still replaced at once, because its
//! `instance.delete.end` wakes the kluster's project.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::Fixture;
use crate::common::openstack::{env, until};
use controller::cloud::choice::CloudChoice;
use controller::notices::{NoticeConfig, DEFAULT_TOPIC};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_deleted_by_hand_is_replaced_on_novas_word_not_the_next_look() {
    let Some(url) = env("NOTIFICATIONS_URL") else {
        eprintln!(
            "skipped: MC_TEST_OS_NOTIFICATIONS_URL is unset (an older scripts/openstack.sh state)"
        );
        return;
    };
    let Some(f) = Fixture::tuned("notices", |c| {
        // Looks at idle klusters every 10 minutes only: a replacement within the test's
        // limit can only come from the bus.
        c.tuning.resync_every = Duration::from_secs(600);
        c.tuning.full_listing_every = Duration::from_secs(600);
        if let CloudChoice::OpenStack(os) = &mut c.cloud {
            os.notifications = Some(NoticeConfig {
                url,
                topic: DEFAULT_TOPIC.into(),
                ca_file: None,
            });
        }
    })
    .await
    else {
        return;
    };
    let name = f.name("q");
    f.create(&name, 1).await;
    let servers = f.active(&name, 1, Duration::from_secs(120)).await;
    // Its first try may have come before Nova first declared its exchange: it tries again.
    until(
        Duration::from_secs(90),
        "the notification reader connected",
        || async {
            let up = f.metric("mc_controller_notifications_connected", "").await == 1.0;
            up.then_some(())
        },
    )
    .await;
    f.lap("reading notifications");
    let woke = f.metric("mc_controller_notifications_total", "woke").await;

    let gone = servers[0]["id"].as_str().unwrap_or_default().to_string();
    let deleted = Instant::now();
    f.direct.delete_server(&gone).await;
    let took = until(
        Duration::from_secs(60),
        "a replacement asked for",
        || async {
            let s = f.direct.servers(&name).await;
            s.iter()
                .any(|s| s["id"] != json!(gone))
                .then(|| deleted.elapsed())
        },
    )
    .await;
    eprintln!("a replacement was asked for {took:.1?} after the delete (the next look: 10 min)");
    let woke_now = f.metric("mc_controller_notifications_total", "woke").await;
    assert!(
        woke_now > woke,
        "the delete's notification woke the project ({woke} → {woke_now})"
    );
    f.active(&name, 1, Duration::from_secs(120)).await;
    f.delete(&name).await;
}
