//! nova-api hung (SIGSTOP on its process group: the kernel still accepts connections, no
//! answer ever comes): the controller's calls to Nova are given up after their timeout
//! (`controller_openstack_timeout_seconds`, 3 s here), its API answers meanwhile, and once
//! Nova answers again (SIGCONT) the pool reaches its new size.

use std::time::Duration;

use super::restarts::os_home;
use super::Fixture;
use crate::common::openstack::{cloud_lock, kluster, scale, until};
use controller::cloud::choice::CloudChoice;

/// Sends `signal` to the process group `pgid`.
fn signal(signal: &str, pgid: &str) {
    let ok = std::process::Command::new("kill")
        .args([signal, "--", &format!("-{pgid}")])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {signal} -{pgid}");
}

/// Continues the stopped group when dropped, so that a failing test leaves Nova answering.
struct Resume(String);

impl Drop for Resume {
    fn drop(&mut self) {
        signal("-CONT", &self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_nova_api_holds_no_call_past_its_timeout_and_the_pool_catches_up() {
    let Some(f) = Fixture::tuned("hang", |c| {
        if let CloudChoice::OpenStack(os) = &mut c.cloud {
            os.timeout = Duration::from_secs(3);
        }
    })
    .await
    else {
        return;
    };
    let Some(home) = os_home() else { return };
    // Tests of other processes on this cloud wait while Nova hangs.
    let _whole = cloud_lock(true).await;
    let name = f.name("h");
    f.create(&name, 1).await;
    f.active(&name, 1, Duration::from_secs(120)).await;
    let pgid = std::fs::read_to_string(home.join("run/nova-api.pid")).expect("nova-api's pid");
    let failed = "mc_controller_cloud_request_errors_total";
    let before = f.metric(failed, "").await;

    signal("-STOP", pgid.trim());
    let resume = Resume(pgid.trim().to_string());
    f.lap("nova-api stopped");
    scale(f.app(), &f.tok, &name, 2).await;
    // The scale-up's create (or the listing before it) hangs, and is given up.
    until(
        Duration::from_secs(60),
        "a hung Nova call given up",
        || async { (f.metric(failed, "").await > before).then_some(()) },
    )
    .await;
    f.lap("a hung call given up");
    // The API answers from the store meanwhile.
    let k = kluster(f.app(), &f.tok, &name).await;
    assert_eq!(k["spec"]["nodePools"][0]["size"], 2, "{k}");

    drop(resume);
    f.lap("nova-api continued");
    f.active(&name, 2, Duration::from_secs(180)).await;
    f.lap("2 ACTIVE");
    f.delete(&name).await;
}
