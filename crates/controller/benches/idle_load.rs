//! Benchmark (issue 49, item 4): what idle klusters cost the cloud, and how fast a server
//! deleted behind the controller's back is replaced, in three modes in the same run, on the
//! real test OpenStack (`scripts/openstack.sh`). Skipped, saying why, when
//! `MC_TEST_OS_AUTH_URL` is unset.
//!
//! - Shapes, both at once, in projects `load0`.. that `scripts/openstack.sh seed-load`
//!   makes (each like demo: network, router, quota for 12 small servers; user `loader`):
//!   `OS_BENCH_PROJECTS` (default 10) projects of one 1-node kluster each, and one project
//!   of `OS_BENCH_KLUSTERS` (default 10) 1-node klusters.
//! - Modes, one after the other on the same klusters and store: every look lists the
//!   servers in full (`controller_full_listing_seconds = 0`, the baseline: what every
//!   look cost before), the default (a look asks Nova only what changed since the last
//!   full listing, listing in full at least every 300 s), and Nova's notifications read
//!   from the test cloud's RabbitMQ (`MC_TEST_OS_NOTIFICATIONS_URL`; a look asks nothing
//!   between full listings while the bus is heard). The controller runs at
//!   production pace (`Tuning::scaled(20 s)`).
//! - Per mode, once its controller runs (and its bus reader is connected): the first lone
//!   kluster's server is deleted by hand and the times until Nova lists its replacement
//!   (the reaction) and lists it ACTIVE are taken; then, after the klusters settled
//!   (`OS_BENCH_SETTLE_SECONDS`, default 100: a change is followed by full listings for a
//!   minute, `reconcile::listings::CLOCK_MARGIN`), the services' own request logs are
//!   counted over `OS_BENCH_WINDOW_SECONDS` (default 120), lines naming each project (so
//!   Neutron's answers to Nova on behalf of the controller's listings count, and so does
//!   nova-compute's periodic healing of a server's network info, one server a minute
//!   per host).
//!
//! Run: `scripts/services up; source .state/test-services.env; cargo bench -p controller
//! --bench idle_load` (as root: the projects are made by `scripts/openstack.sh`).

#[path = "openstack_provision/controller.rs"]
mod controller_on_os;
#[allow(dead_code)]
#[path = "openstack_provision/nova.rs"]
mod nova;

#[path = "idle_load/logs.rs"]
mod logs;
#[path = "idle_load/projects.rs"]
mod projects;

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

/// One project of the benchmark: its id, Nova as the controller's user, the owner's token
/// for the API, and its klusters' names.
struct Project {
    id: String,
    nova: Nova,
    token: String,
    names: Vec<String>,
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
    let singles = count("OS_BENCH_PROJECTS", 10).clamp(1, 20) as usize;
    let many = count("OS_BENCH_KLUSTERS", 10).clamp(1, 12) as usize;
    let settle = Duration::from_secs(count("OS_BENCH_SETTLE_SECONDS", 100));
    let window = Duration::from_secs(count("OS_BENCH_WINDOW_SECONDS", 120).max(30));
    let password = service_password();
    let http = reqwest::Client::new();
    let tag = format!("{PREFIX}i{}", std::process::id() % 100_000);
    let mut projects = Vec::new();
    for (i, (_, id)) in projects::seed(singles + 1).into_iter().enumerate() {
        let scope = keystone::ProjectRef::Id(&id);
        let nova = Nova {
            http: http.clone(),
            token: sign_in(&auth_url, "mission-control", &password, "Default", scope).await,
            compute: os("COMPUTE_URL", "http://127.0.0.1:8774/v2.1"),
            project: id.clone(),
        };
        nova.clean_up().await;
        let (user, secret, domain) = projects::USER;
        let names = match i < singles {
            true => vec![format!("{tag}-p{i}")],
            false => (0..many).map(|j| format!("{tag}-k{j}")).collect(),
        };
        projects.push(Project {
            token: sign_in(
                &auth_url,
                user,
                secret,
                domain,
                keystone::ProjectRef::Id(&id),
            )
            .await,
            id,
            nova,
            names,
        });
    }
    let dir = std::env::temp_dir().join(format!("mc-bench-idle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    println!(
        "{singles} projects of 1 kluster, 1 project of {many} klusters (1 node each); settle {} s, \
         count {} s per mode; looks at every kluster every {} s (production pace)",
        settle.as_secs(),
        window.as_secs(),
        controller::run::Tuning::scaled(Duration::from_secs(20))
            .resync_every
            .as_secs()
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
    let ids: Vec<&str> = projects.iter().map(|p| p.id.as_str()).collect();
    let mut rows = Vec::new();
    for (i, (mode, full, bus)) in modes.into_iter().enumerate() {
        let bus_mode = bus.is_some();
        let (running, stop) = controller(&dir, full, bus).await;
        let base = format!("http://{}", running.addr);
        let api = |p: &Project| Api {
            http: http.clone(),
            base: base.clone(),
            token: p.token.clone(),
        };
        if i == 0 {
            for p in &projects {
                for name in &p.names {
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
        for p in &projects {
            for name in &p.names {
                active(&p.nova, name, 1, Duration::from_secs(300)).await;
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
        // A lone kluster's server deleted by hand, and replaced (a bus reader hears its
        // first notifications here), before the klusters settle.
        let fresh = replace(&projects[0].nova, &projects[0].names[0]).await;
        tokio::time::sleep(settle).await;
        let before = logs::Marks::now(&log_dir);
        tokio::time::sleep(window).await;
        let counted = before.count(&ids);
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
    for p in &projects {
        let api = Api {
            http: http.clone(),
            base: base.clone(),
            token: p.token.clone(),
        };
        for name in &p.names {
            api.send(reqwest::Method::DELETE, name, None).await;
        }
        for name in &p.names {
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
        let shapes = [
            (
                format!("{singles} projects × 1 kluster"),
                &counted[..singles],
                singles,
            ),
            (
                format!("1 project × {many} klusters"),
                &counted[singles..],
                many,
            ),
        ];
        for (shape, counts, klusters) in shapes {
            let sum = logs::Counted::sum(counts);
            let n = klusters as f64;
            println!(
                "  {mode:<42} {shape:<24}: {:.2} ({})",
                sum.total() as f64 / n / minutes,
                sum.per_service(n * minutes)
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
