//! A pool of a flavor no host can place (the seed's `mc.unplaceable` requires a trait no
//! resource provider has): Nova's scheduler answers "No valid host was found", as a full
//! zone does. The controller names Nova's reason on the timeline, asks for one server per
//! try, waits longer after each failure (3 s doubling to 12 s here), and announces nothing
//! as created. Before the fix: 68 creates in 120 s, "Successfully created node" each time.
//! And a server stopped by hand (SHUTOFF) is started once, and replaced when it stops again.

use serde_json::{json, Value};
use tokio::time::Instant;

use super::{body, Fixture};
use crate::common::openstack::{env, until};
use std::time::Duration;

/// Events of `reason` among `events`.
fn of<'a>(events: &'a [Value], reason: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["reason"] == reason).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flavor_no_host_can_place_is_named_and_tried_less_and_less() {
    let Some(f) = Fixture::new("capacity").await else {
        return;
    };
    let Some(flavor) = env("UNPLACEABLE_FLAVOR") else {
        eprintln!("skipped: the test cloud has no unplaceable flavor (seed it again)");
        return;
    };
    let name = f.name("c");
    let mut b = body(&name, 1);
    b["spec"]["nodePools"][0]["flavor"] = json!(flavor);
    f.create_with(b).await;
    let first = until(
        Duration::from_secs(120),
        "the first failure on the timeline",
        || async {
            let events = f.events(&name).await;
            (!of(&events, "FailedCreateNode").is_empty()).then(Instant::now)
        },
    )
    .await;
    f.lap("first failure");
    // Three more failures: after waits of 3, 6 and 12 s, at least 21 s (without the waits
    // a server failed every 2 s or so).
    let events = until(Duration::from_secs(180), "four failures", || async {
        let events = f.events(&name).await;
        let failed = of(&events, "FailedCreateNode");
        (failed.len() == 1 && failed[0]["count"].as_u64() >= Some(4)).then_some(events)
    })
    .await;
    let took = first.elapsed();
    let asked = of(&events, "CreatingNode").len();
    f.lap(&format!(
        "4 failures: the last three {took:.1?} after the first; {asked} servers asked for"
    ));
    assert!(
        took >= Duration::from_secs(21),
        "the pool did not wait between tries: {took:?}"
    );
    assert!((4..=5).contains(&asked), "one server per try: {asked}");
    let failed = of(&events, "FailedCreateNode")[0];
    let said = failed["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("No valid host was found"),
        "Nova's words: {said}"
    );
    assert!(
        said.contains(&format!("No host in zone nova can place flavor {flavor}")),
        "{said}"
    );
    assert_eq!(failed["detail"], "NoValidHost", "{failed}");
    assert!(
        of(&events, "SuccessfulCreateNode").is_empty(),
        "nothing came up, nothing is announced"
    );
    let k = crate::common::openstack::kluster(f.app(), &f.tok, &name).await;
    let pool = &k["status"]["nodePools"][0];
    assert_eq!(pool["running"], 0, "{pool}");
    assert!(
        pool["createRetry"]["failures"].as_u64() >= Some(4),
        "{pool}"
    );
    f.delete(&name).await;
    f.lap("deleted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stopped_by_hand_is_started_then_replaced_when_it_stops_again() {
    let Some(f) = Fixture::new("shutoff").await else {
        return;
    };
    let name = f.name("s");
    f.create(&name, 1).await;
    let first = f.active(&name, 1, Duration::from_secs(120)).await;
    let id = first[0]["id"].as_str().unwrap_or_default().to_string();
    f.lap("1 ACTIVE");
    let status = |servers: &[Value], id: &str| {
        let s = servers.iter().find(|s| s["id"] == id);
        s.map(|s| s["status"].as_str().unwrap_or_default().to_string())
    };
    f.direct.stop_server(&id).await;
    testkit::eventually(
        Duration::from_secs(60),
        "SHUTOFF seen, then started",
        || async {
            let events = f.events(&name).await;
            let said = !of(&events, "StoppedNode").is_empty();
            let now = status(&f.direct.servers(&name).await, &id);
            match (said, now.as_deref()) {
                (true, Some("ACTIVE")) => Ok(()),
                _ => Err(format!("Nova: {now:?}; events: {events:?}")),
            }
        },
    )
    .await;
    f.lap("stopped by hand, started by the controller");
    f.direct.stop_server(&id).await;
    until(Duration::from_secs(120), "replaced", || async {
        let s = f.direct.servers(&name).await;
        let new_up = s.len() == 1 && s[0]["id"] != id.as_str() && s[0]["status"] == "ACTIVE";
        new_up.then_some(())
    })
    .await;
    let events = f.events(&name).await;
    let replaced = of(&events, "DeletedBrokenNode");
    assert!(
        replaced.iter().any(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.contains("stopped again"))),
        "{events:?}"
    );
    f.lap("stopped again, replaced");
    f.delete(&name).await;
}
