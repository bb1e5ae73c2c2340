//! Benchmark (issue 49, item 4): what idle klusters cost the cloud, and how fast a server
//! deleted behind the controller's back is replaced, in two modes in the same run, on the
//! real test OpenStack (`scripts/openstack.sh`). Skipped, saying why, when
//! `MC_TEST_OS_AUTH_URL` is unset.
//!
//! - Klusters: `OS_BENCH_KLUSTERS` (default 3) of one node in project demo (one project,
//!   many klusters) and one of one node in project staging (a project with a lone kluster:
//!   M such projects cost M times as much).
//! - Modes, one after the other on the same klusters and store: every look lists the
//!   servers in full (`controller_full_listing_seconds = 0`, the baseline: what every
//!   look cost before), the default (a look asks Nova only what changed since the last
//!   full listing, listing in full at least every 300 s), and Nova's notifications read
//!   from the test cloud's RabbitMQ (`MC_TEST_OS_NOTIFICATIONS_URL`; a look asks nothing
//!   between full listings while the bus is heard). The controller runs at
//!   production pace (`Tuning::scaled(20 s)`: a look at every kluster every 30 s).
//! - Per mode, once its controller runs (and its bus reader is connected): the lone
//!   kluster's server is deleted by hand and the times until Nova lists its replacement
//!   (the reaction) and lists it ACTIVE are taken; then, after the klusters settled
//!   (`OS_BENCH_SETTLE_SECONDS`, default 100: a change is followed by full listings for a
//!   minute, `reconcile::listings::CLOCK_MARGIN`), the services' own request logs are
//!   counted over `OS_BENCH_WINDOW_SECONDS` (default 120), lines naming each project (so
//!   Neutron's answers to Nova on behalf of the controller's listings count, Nova's own
//!   periodic work does not).
//!
//! Run: `source .state/keystone-test/demo.env; eval "$(OS_HOME=$PWD/.state/openstack-test
//! scripts/openstack.sh env)"; cargo bench -p controller --bench idle_load`.

#[path = "openstack_provision/controller.rs"]
mod controller_on_os;
#[allow(dead_code)]
#[path = "openstack_provision/nova.rs"]
mod nova;

#[path = "idle_load/logs.rs"]
mod logs;

use std::time::{Duration, Instant};

use controller::cloud::choice::CloudChoice;
use controller::notices::{NoticeConfig, DEFAULT_TOPIC};
use controller_on_os::{count, os, service_password, Api};
use nova::{sign_in, Nova, PREFIX};
use serde_json::json;

/// A controller on the real cloud with its store in `dir`, listing in full at least every
/// `full` (zero: at every look), reading Nova's notifications at `bus`; stopped when the
/// sender is dropped.
async fn controller(
    dir: &std::path::Path,
    full: Duration,
    bus: Option<String>,
) -> (controller::run::Running, tokio::sync::oneshot::Sender<()>) {
    let mut tuning = controller::run::Tuning::scaled(Duration::from_secs(20));
    tuning.timing.create = Duration::ZERO;
    tuning.full_listing_every = full;
    let mut config = controller_on_os::config(&os("AUTH_URL", ""), dir, tuning);
    if let (Some(url), CloudChoice::OpenStack(c)) = (bus, &mut config.cloud) {
        c.notifications = Some(NoticeConfig {
            url,
            topic: DEFAULT_TOPIC.into(),
            ca_file: None,
        });
    }
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = controller::run::start(config, async move {
        let _ = stopped.await;
    })
    .await
    .expect("controller starts");
    (running, stop)
}

/// Waits until Nova lists `n` ACTIVE servers tagged `kluster=<name>` (none going); their ids.
async fn active(nova: &Nova, name: &str, n: usize, limit: Duration) -> Vec<String> {
    let t0 = Instant::now();
    loop {
        let list = nova.tagged(name, true).await;
        let up: Vec<String> = list
            .iter()
            .filter(|s| s["status"] == "ACTIVE" && s["OS-EXT-STS:task_state"].is_null())
            .filter_map(|s| s["id"].as_str().map(str::to_string))
            .collect();
        if up.len() == n && list.len() == n {
            return up;
        }
        assert!(
            t0.elapsed() < limit,
            "{n} ACTIVE servers of {name} within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Deletes kluster `lone`'s server by hand; the times until Nova lists its replacement,
/// and lists it ACTIVE.
async fn replace(nova: &Nova, lone: &str) -> (Duration, Duration) {
    let gone = active(nova, lone, 1, Duration::from_secs(60)).await;
    let t0 = Instant::now();
    let path = format!("servers/{}", gone[0]);
    let (status, v) = nova.call(reqwest::Method::DELETE, &path, None).await;
    assert_eq!(status, 204, "{v}");
    let mut asked = None;
    loop {
        let list = nova.tagged(lone, true).await;
        let new: Vec<_> = list.iter().filter(|s| s["id"] != json!(gone[0])).collect();
        if !new.is_empty() {
            asked.get_or_insert(t0.elapsed());
        }
        if new.iter().any(|s| s["status"] == "ACTIVE") {
            return (asked.unwrap_or_default(), t0.elapsed());
        }
        assert!(
            t0.elapsed() < Duration::from_secs(180),
            "replaced within 180 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The controller's `/metrics` text at `base`.
async fn metrics(http: &reqwest::Client, base: &str) -> String {
    match http.get(format!("{base}/metrics")).send().await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(auth_url) = std::env::var("MC_TEST_OS_AUTH_URL") else {
        println!(
            "skipped: MC_TEST_OS_AUTH_URL is unset (start the test OpenStack with \
             scripts/openstack.sh start, then eval \"$(scripts/openstack.sh env)\")"
        );
        return;
    };
    let Some(log_dir) = logs::dir() else {
        println!("skipped: no test OpenStack logs to count in (set MC_TEST_OS_HOME)");
        return;
    };
    let k = count("OS_BENCH_KLUSTERS", 3).clamp(1, 4) as usize;
    let settle = Duration::from_secs(count("OS_BENCH_SETTLE_SECONDS", 100));
    let window = Duration::from_secs(count("OS_BENCH_WINDOW_SECONDS", 120).max(30));
    let password = service_password();
    let http = reqwest::Client::new();
    let projects = [
        ("demo", os("DEMO_PROJECT_ID", "")),
        ("staging", os("STAGING_PROJECT_ID", "")),
    ];
    let mut novas = Vec::new();
    let mut apis = Vec::new();
    for (name, id) in &projects {
        let nova = Nova {
            http: http.clone(),
            token: sign_in(
                &auth_url,
                "mission-control",
                &password,
                "Default",
                keystone::ProjectRef::Id(id),
            )
            .await,
            compute: os("COMPUTE_URL", "http://127.0.0.1:8774/v2.1"),
            project: id.clone(),
        };
        nova.clean_up().await;
        novas.push(nova);
        let scope = keystone::ProjectRef::Name {
            name,
            domain: "demo",
        };
        apis.push(sign_in(&auth_url, "alice", "alice-secret", "demo", scope).await);
    }
    let dir = std::env::temp_dir().join(format!("mc-bench-idle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let tag = format!("{PREFIX}idle{}", std::process::id() % 100_000);
    let names: Vec<Vec<String>> = vec![
        (0..k).map(|i| format!("{tag}-d{i}")).collect(),
        vec![format!("{tag}-s0")],
    ];
    println!(
        "{k} klusters of 1 node in demo, 1 in staging; settle {} s, count {} s per mode; \
         looks at every kluster every 30 s (production pace)",
        settle.as_secs(),
        window.as_secs()
    );

    let every = controller::reconcile::listings::FULL_AT_LEAST;
    let bus = std::env::var("MC_TEST_OS_NOTIFICATIONS_URL").ok();
    let mut modes = vec![
        ("every look lists in full (baseline)", Duration::ZERO, None),
        ("changes only, full at least every 300 s", every, None),
    ];
    match bus {
        Some(url) => modes.push(("Nova's notifications, full every 300 s", every, Some(url))),
        None => println!("no MC_TEST_OS_NOTIFICATIONS_URL: the notifications mode is left out"),
    }
    let mut rows = Vec::new();
    for (i, (mode, full, bus)) in modes.into_iter().enumerate() {
        let bus_mode = bus.is_some();
        let (running, stop) = controller(&dir, full, bus).await;
        let base = format!("http://{}", running.addr);
        let api = |p: usize| Api {
            http: http.clone(),
            base: base.clone(),
            token: apis[p].clone(),
        };
        if i == 0 {
            for (p, ks) in names.iter().enumerate() {
                for name in ks {
                    let body = json!({"name": name, "spec": {"nodePools": [{"name": "small", "size": 1,
                        "flavor": os("FLAVOR", "m1.small"), "image": os("IMAGE", "flatcar-stable"),
                        "availabilityZone": "nova"}]}});
                    assert_eq!(
                        api(p).send(reqwest::Method::POST, "", Some(body)).await,
                        201,
                        "create {name}"
                    );
                }
            }
        }
        for (p, ks) in names.iter().enumerate() {
            for name in ks {
                active(&novas[p], name, 1, Duration::from_secs(180)).await;
            }
        }
        if bus_mode {
            let t0 = Instant::now();
            while !metrics(&http, &base)
                .await
                .contains("mc_controller_notifications_connected 1")
            {
                assert!(
                    t0.elapsed() < Duration::from_secs(90),
                    "the reader connected"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
        // The lone kluster's server deleted by hand, and replaced (a bus reader hears its
        // first notifications here), before the klusters settle.
        let fresh = replace(&novas[1], &names[1][0]).await;
        tokio::time::sleep(settle).await;
        let before = logs::Marks::now(&log_dir);
        tokio::time::sleep(window).await;
        let counted = before.count(&[&projects[0].1, &projects[1].1]);
        if bus_mode {
            let m = metrics(&http, &base).await;
            let heard: Vec<&str> = m
                .lines()
                .filter(|l| l.starts_with("mc_controller_notifications_total"))
                .collect();
            println!("  notifications read: {}", heard.join(", "));
        }
        rows.push((mode, counted, fresh));
        // The next controller starts on the same store once this one stopped.
        drop(stop);
        let _ = running.task.await;
    }
    // Everything goes, through a controller of the last mode.
    let (running, stop) = controller(&dir, Duration::ZERO, None).await;
    let base = format!("http://{}", running.addr);
    for (p, ks) in names.iter().enumerate() {
        let api = Api {
            http: http.clone(),
            base: base.clone(),
            token: apis[p].clone(),
        };
        for name in ks {
            api.send(reqwest::Method::DELETE, name, None).await;
        }
        for name in ks {
            let t0 = Instant::now();
            while api.send(reqwest::Method::GET, name, None).await != 404 {
                assert!(t0.elapsed() < Duration::from_secs(180), "{name} deleted");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    drop(stop);

    let minutes = window.as_secs_f64() / 60.0;
    println!("requests per kluster per minute, from the services' logs (Nova, Neutron, Glance, Cinder, Octavia):");
    for (mode, counted, fresh) in &rows {
        for (p, (project, _)) in projects.iter().enumerate() {
            let n = names[p].len() as f64;
            let c = &counted[p];
            println!(
                "  {mode:<42} {project:<8} ({} kluster{}): {:.1} ({})",
                names[p].len(),
                if names[p].len() == 1 { "" } else { "s" },
                c.total() as f64 / n / minutes,
                c.per_service(n * minutes)
            );
        }
        println!(
            "  {mode:<42} a server deleted by hand: replacement asked for after {:.1} s, ACTIVE after {:.1} s",
            fresh.0.as_secs_f64(),
            fresh.1.as_secs_f64()
        );
    }
    println!(
        "goal: ≤ 2 requests per idle kluster per minute; a replacement within 60 s \
         (within 5 s with notifications)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
