//! Benchmark (issue 32): N servers through the controller against the same N sent to Nova
//! directly, in the same run, on the real test OpenStack (`scripts/openstack.sh`). Skipped,
//! saying why, when `MC_TEST_OS_AUTH_URL` is unset.
//!
//! - Direct: the controller's own OpenStack user, scoped to project demo, POSTs N servers
//!   at once (flavor, image, network, security group, metadata, tags, config drive and user
//!   data as the controller sends them; flavor and image ids looked up before the clock
//!   starts), then DELETEs them at once.
//! - Controller: in-process, production pace (`Tuning::scaled(20 s)`: resync 1 s; calls timed
//!   out as `run` does for a real cloud) except the simulated control plane's start-up (20 s
//!   in production; nothing real happens in it, Nova alone has none): `OS_BENCH_PHASE_SECONDS`
//!   (default 0). Alice creates a kluster with one pool of N over loopback HTTP, then
//!   deletes it. The service user boots the servers (kluster users off, the default).
//!
//! Both arms are watched by one poller, every 100 ms: Nova's `servers/detail?tags=
//! kluster=<name>` while they boot, `servers?tags=…` (ids only, cheaper) while they go.
//! Create ends when N servers are ACTIVE; delete when Nova lists none (and, for the
//! controller, the kluster is gone from its API: asked every 10 ms once Nova lists none,
//! as it is local and asking costs Nova nothing). `OS_BENCH_N` (default 4, at most 4: the
//! quota is 6 instances and others share it), `OS_BENCH_ROUNDS` (default 3; arms alternate).
//!
//! `OS_BENCH_TRACE=info` prints the controller's spans (each cloud call, timed) as they close.
//!
//! Run: `source .state/keystone-test/demo.env; eval "$(OS_HOME=$PWD/.state/openstack-test
//! scripts/openstack.sh env)"; cargo bench -p controller --bench openstack_provision`.

#[path = "openstack_provision/controller.rs"]
mod controller_on_os;
#[path = "openstack_provision/nova.rs"]
mod nova;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use controller_on_os::{count, os, Api};
use futures_util::future::join_all;
use nova::{ms, sign_in, watch_create, watch_delete, Nova, Seen, ALSO_POLL, POLL, PREFIX, RETRIES};
use serde_json::{json, Value};

/// One arm's round: when its servers were seen, when all its create calls had answered,
/// and when Nova listed none of them / everything was gone.
type Round = (Seen, Duration, (Duration, Duration));

/// The direct arm: N POSTs at once, then N DELETEs at once.
async fn direct(
    nova: &Nova,
    name: &str,
    n: usize,
    create: &dyn Fn(String, &str) -> Value,
) -> Round {
    let t0 = Instant::now();
    let posts = join_all((0..n).map(|i| async move {
        let body = create(format!("{name}-{i}"), name);
        let (status, v) = nova
            .call(reqwest::Method::POST, "servers", Some(body))
            .await;
        assert_eq!(status, 202, "{v}");
        v["server"]["id"].as_str().unwrap_or_default().to_string()
    }));
    let posts = async { (posts.await, t0.elapsed()) };
    let ((ids, posted), seen) = tokio::join!(posts, watch_create(nova, name, n, t0));
    let t1 = Instant::now();
    let deletes = join_all(ids.iter().map(|id| async move {
        let path = format!("servers/{id}");
        let (status, v) = nova.call(reqwest::Method::DELETE, &path, None).await;
        assert_eq!(status, 204, "{v}");
    }));
    let (_, gone) = tokio::join!(deletes, watch_delete(nova, name, t1, || async { true }));
    (seen, posted, gone)
}

/// The controller arm: a kluster with one pool of N created, then deleted, through the API.
async fn through(api: &Api, nova: &Nova, name: &str, n: usize) -> Round {
    let body = json!({"name": name, "spec": {"nodePools": [{"name": "small", "size": n,
        "flavor": os("FLAVOR", "m1.small"), "image": os("IMAGE", "flatcar-stable"),
        "availabilityZone": "nova"}]}});
    tracing::info!(kluster = name, "bench: create sent");
    let t0 = Instant::now();
    let create = async {
        let status = api.send(reqwest::Method::POST, "", Some(body)).await;
        assert_eq!(status, 201, "create {name}");
        t0.elapsed()
    };
    let (answered, seen) = tokio::join!(create, watch_create(nova, name, n, t0));
    tracing::info!(kluster = name, "bench: {n} ACTIVE; delete sent");
    let t1 = Instant::now();
    let status = api.send(reqwest::Method::DELETE, name, None).await;
    assert!((200..300).contains(&status), "delete {name}: {status}");
    let gone = watch_delete(nova, name, t1, || async {
        api.send(reqwest::Method::GET, name, None).await == 404
    })
    .await;
    tracing::info!(kluster = name, "bench: gone");
    (seen, answered, gone)
}

/// The median of `v` (sorts it).
fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Count and mean per label set of the histogram `metric` in Prometheus text `metrics`.
fn means(metrics: &str, metric: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in metrics
        .lines()
        .filter(|l| l.starts_with(&format!("{metric}_sum")))
    {
        let (labels, sum) = line.rsplit_once(' ').unwrap_or_default();
        let labels = labels.trim_start_matches(&format!("{metric}_sum"));
        let count_line = format!("{metric}_count{labels} ");
        let count = metrics
            .lines()
            .find_map(|l| l.strip_prefix(&count_line))
            .and_then(|c| c.parse::<f64>().ok())
            .unwrap_or(0.0);
        let sum: f64 = sum.parse().unwrap_or(0.0);
        if count > 0.0 {
            out.push(format!(
                "{labels}: {count} calls, mean {:.0} ms",
                sum / count * 1e3
            ));
        }
    }
    out
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
    // `OS_BENCH_TRACE=info`: the controller's spans (each cloud call) as they close, timed.
    if let Ok(filter) = std::env::var("OS_BENCH_TRACE") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .init();
    }
    let n = count("OS_BENCH_N", 4).clamp(1, 4) as usize;
    let rounds = count("OS_BENCH_ROUNDS", 3).max(1) as usize;
    let phase = Duration::from_secs(count("OS_BENCH_PHASE_SECONDS", 0));
    let service_password = controller_on_os::service_password();
    let project = os("DEMO_PROJECT_ID", "");
    let http = reqwest::Client::new();
    let demo = keystone::ProjectRef::Id(&project);
    let nova = Nova {
        http: http.clone(),
        token: sign_in(
            &auth_url,
            "mission-control",
            &service_password,
            "Default",
            demo,
        )
        .await,
        compute: os("COMPUTE_URL", "http://127.0.0.1:8774/v2.1"),
        project: project.clone(),
    };
    nova.clean_up().await;
    let flavor_name = os("FLAVOR", "m1.small");
    let flavor = nova.flavor(&flavor_name).await;
    let (image, network) = (os("IMAGE_ID", ""), os("DEMO_NETWORK_ID", ""));
    let create = |server: String, kluster: &str| {
        nova::create_body(&server, kluster, &flavor["id"], &image, &network)
    };

    let dir = std::env::temp_dir().join(format!("mc-bench-os-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut tuning = controller::run::Tuning::scaled(Duration::from_secs(20));
    tuning.timing.create = phase;
    let config = controller_on_os::config(&auth_url, &dir, tuning);
    let running = controller::run::start(config, std::future::pending())
        .await
        .expect("controller starts");
    let demo = keystone::ProjectRef::Name {
        name: "demo",
        domain: "demo",
    };
    let api = Api {
        http: http.clone(),
        base: format!("http://{}", running.addr),
        token: sign_in(&auth_url, "alice", "alice-secret", "demo", demo).await,
    };
    println!(
        "N={n} servers of {flavor_name}, {rounds} rounds; poll {} ms (the controller's API, \
         once Nova is empty: {} ms); controller resync {} ms, control-plane phase {} s \
         (production: 20 s)",
        ms(POLL),
        ms(ALSO_POLL),
        ms(tuning.reconcile_every),
        phase.as_secs()
    );

    let (mut dc, mut dd, mut cc, mut cd) = (vec![], vec![], vec![], vec![]);
    for r in 0..rounds {
        let tag = format!("{PREFIX}{}-{r}", std::process::id() % 100_000);
        for arm in if r % 2 == 0 {
            ["direct", "controller"]
        } else {
            ["controller", "direct"]
        } {
            nova.wait_for_room(n, &flavor, arm).await;
            let retries = RETRIES.swap(0, Ordering::Relaxed);
            let (seen, answered, (empty, gone)) = if arm == "direct" {
                direct(&nova, &format!("{tag}-d"), n, &create).await
            } else {
                through(&api, &nova, &format!("{tag}-c"), n).await
            };
            let disturbed = match RETRIES.swap(0, Ordering::Relaxed) + retries {
                0 => String::new(),
                k => format!(" DISTURBED: Nova away, {k} calls sent again"),
            };
            println!(
                "round {r} {arm:>10}: create {} ms (answered {} ms, first listed {}, all {n} \
                 listed {}), delete {} ms (Nova empty at {}){disturbed}",
                ms(seen.active),
                ms(answered),
                ms(seen.first),
                ms(seen.listed),
                ms(gone),
                ms(empty)
            );
            let (c, d) = match arm {
                "direct" => (&mut dc, &mut dd),
                _ => (&mut cc, &mut cd),
            };
            c.push(seen.active);
            d.push(gone);
        }
    }
    let [dc, dd, cc, cd] = [&mut dc, &mut dd, &mut cc, &mut cd].map(|v| median(v));
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "median create: controller {} ms, direct {} ms: {:.2}× (goal ≤ 1.2×)",
        ms(cc),
        ms(dc),
        ratio(cc, dc)
    );
    println!(
        "median delete: controller {} ms, direct {} ms: {:.2}× (goal ≤ 1.2×)",
        ms(cd),
        ms(dd),
        ratio(cd, dd)
    );
    let metrics = http
        .get(format!("{}/metrics", api.base))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .unwrap_or_default();
    for family in [
        "cloud_request",
        "reconcile",
        "reconcile_pass",
        "http_request",
    ] {
        println!("controller's {family} durations over the run:");
        for line in means(
            &metrics,
            &format!("mc_controller_{family}_duration_seconds"),
        ) {
            println!("  {line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
