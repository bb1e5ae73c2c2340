//! Event-driven reconciling: a change to a kluster is acted on at once, not at the next
//! timer pass (the timer stays as the resync).

use std::time::{Duration, Instant};

use controller::store::{CaRecord, Store, StoredKluster};
use kluster::{Kluster, KlusterPhase, NodePool};
use testkit::eventually;

#[tokio::test]
async fn a_scale_up_is_acted_on_at_once_not_at_the_next_timer_pass() {
    let dir = std::env::temp_dir().join(format!("mc-watch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // A Running kluster with an empty pool, already in the store.
    let project = std::env::var("KS_DEMO_PROJECT_ID").expect("KS_DEMO_PROJECT_ID (demo env)");
    {
        let store = Store::open(&dir.join("controller.db")).await.unwrap();
        let mut k = Kluster {
            name: "watched".into(),
            ..Default::default()
        };
        kluster::defaults::fill(&mut k, "1.32.4");
        k.spec.node_pools = vec![NodePool {
            name: "p".into(),
            size: 0,
            flavor: "m1.small".into(),
            image: "flatcar-stable-amd64".into(),
            availability_zone: "az-a".into(),
            ..Default::default()
        }];
        k.status.phase = KlusterPhase::Running;
        k.status.version = "1.32.4".into();
        let stored = StoredKluster {
            kluster: k,
            creator: "alice/demo".into(),
            termination_protected: false,
        };
        let ca = CaRecord {
            cert_pem: String::new(),
            key_sealed: Vec::new(),
        };
        store.insert(&project, &stored, &ca).await.unwrap();
    }
    // The timer would pass only once a minute.
    let mut config =
        crate::common::fast_controller(&crate::common::url(), &dir, Duration::from_millis(400));
    config.tuning.reconcile_every = Duration::from_secs(60);
    let running = controller::run::start(config, std::future::pending())
        .await
        .unwrap();
    let base = format!("http://{}", running.addr);
    let token = crate::common::token("alice", "demo").await;
    let http = reqwest::Client::new();
    // The start-up pass is over (the timer would not pass the project again for a minute).
    eventually(Duration::from_secs(10), "the start-up pass", || async {
        crate::common::reconcile_passes(&base).await >= 1
    })
    .await;
    let mut k: serde_json::Value = http
        .get(format!("{base}/api/v1/clusters/watched"))
        .header("x-auth-token", &token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    k["spec"]["nodePools"][0]["size"] = 2.into();
    let scaled = Instant::now();
    let r = http
        .put(format!("{base}/api/v1/clusters/watched"))
        .header("x-auth-token", &token)
        .json(&k)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    eventually(
        Duration::from_secs(5),
        "a node created within 5 s of the change",
        || async {
            let events = http
                .get(format!("{base}/api/v1/clusters/watched/events"))
                .header("x-auth-token", &token)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            // Asked for at once (it is announced as created once it is up).
            if events.contains("CreatingNode") {
                Ok(())
            } else {
                Err(events)
            }
        },
    )
    .await;
    println!("scale-up → first node asked for: {:?}", scaled.elapsed());
    let _ = std::fs::remove_dir_all(dir);
}
