//! Pod ranges never overlap on one real router: a static route the project put on its
//! router (to an appliance, here a port of its own) keeps its destination from every new
//! kluster's pod range, said in words; a range beside it is fine.

use serde_json::json;

use super::project::MARK;
use super::{body, Fixture};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_on_the_real_router_keeps_its_range_from_pod_ranges() {
    let Some(f) = Fixture::new("ranges").await else {
        return;
    };
    let p = &f.project;
    let (_, appliance) = p.port(&format!("{MARK}-ranges-appliance")).await;
    let taken = "10.199.64.0/18";
    p.route(true, taken, &appliance).await;

    let name = f.name("rng");
    let with_range = |range: &str| {
        let mut b = body(&name, 0);
        b["spec"]["clusterCIDR"] = json!(range);
        b.to_string()
    };
    let (status, v) = common_create(&f, with_range("10.199.80.0/20")).await;
    let message = v["message"].as_str().unwrap_or_default();
    assert_eq!(status, 409, "{v}");
    assert!(
        message.contains(&format!(
            "overlaps the route to {taken} (next hop {appliance})"
        )),
        "{message}"
    );
    // Beside it: created.
    let (status, v) = common_create(&f, with_range("10.199.128.0/20")).await;
    assert_eq!(status, 201, "{v}");
    f.delete(&name).await;
    p.route(false, taken, &appliance).await;
}

/// `POST /api/v1/clusters` as alice.
async fn common_create(f: &Fixture, body: String) -> (u16, serde_json::Value) {
    crate::common::create(f.app(), &f.tok, body).await
}
