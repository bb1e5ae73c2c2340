//! The controller against a real OpenStack (`scripts/openstack.sh`: Nova with the fake
//! driver, Neutron, Glance, Cinder, Octavia on loopback). Skipped, saying why, when
//! `MC_TEST_OS_AUTH_URL` is unset (`eval "$(scripts/openstack.sh env)"` sets it).
//!
//! One kluster of 2 nodes in project demo → 2 ACTIVE servers in Nova with its metadata,
//! tag, flavor, image and network; scaled past the quota → a `FailedCreateNode` warning in
//! Nova's words; a server deleted by hand → replaced; the kluster deleted → none of its
//! servers left, the project's own network and router untouched. And `/readyz` names a
//! missing catalog entry or refused credentials.

use std::time::Duration;

use crate::common::openstack::{cloud_env, env, kluster, openstack, scale, start, until, Direct};
use serde_json::json;
use tokio::time::Instant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kluster_provisions_scales_heals_and_leaves_nothing_in_real_nova() {
    let Some(auth_url) = cloud_env() else { return };
    let _one = crate::common::openstack::ONE_AT_A_TIME.lock().await;
    let started = Instant::now();
    let region = env("REGION").unwrap_or_default();
    let password = std::env::var("KS_SERVICE_PASSWORD").unwrap_or("mission-control-secret".into());
    let running = start(&auth_url, openstack(&auth_url, &password, &region), "flow").await;
    let app = running.router.clone();
    let tok = crate::common::demo_token(&auth_url, "alice", "demo").await;
    let tok = tok.expose().to_string();
    let direct = Direct {
        http: reqwest::Client::new(),
        token: tok.clone(),
        compute: env("COMPUTE_URL").expect("MC_TEST_OS_COMPUTE_URL"),
        network: env("NETWORK_URL").expect("MC_TEST_OS_NETWORK_URL"),
    };
    let (flavor, image) = (
        env("FLAVOR").unwrap_or("m1.small".into()),
        env("IMAGE").unwrap_or("flatcar-stable".into()),
    );
    let name = format!("os{}", std::process::id() % 100_000);
    // The metadata lists the real external network, the load balancers' floating choice.
    let (status, meta) =
        crate::common::call(&app, "GET", "/api/v1/openstack/metadata", Some(&tok), None).await;
    assert_eq!(status, 200, "{meta}");
    let external: Vec<&str> = meta["externalNetworks"]
        .as_array()
        .map(|a| a.iter().filter_map(|n| n["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(external.contains(&"FloatingIP-external"), "{meta}");
    // A flavor and a zone the real cloud does not have: 422 naming each field and the
    // cloud's own choices, nothing created.
    let bad = json!({"name": name, "spec": {"nodePools": [
        {"name": "small", "size": 1, "flavor": "m1.huge", "image": image, "availabilityZone": "az-nowhere"}
    ]}});
    let (status, v) = crate::common::create(&app, &tok, bad.to_string()).await;
    assert_eq!(status, 422, "{v}");
    let said = v.to_string();
    for must in [
        "spec.nodePools[0].flavor",
        "m1.huge",
        "m1.small",
        "availabilityZone",
        "nova",
    ] {
        assert!(said.contains(must), "{must:?} not in {said}");
    }
    assert!(
        direct.servers(&name).await.is_empty(),
        "a refused create left servers"
    );
    let body = json!({"name": name, "spec": {"nodePools": [
        {"name": "small", "size": 2, "flavor": flavor, "image": image, "availabilityZone": "nova"}
    ]}});
    let (status, v) = crate::common::create(&app, &tok, body.to_string()).await;
    assert_eq!(status, 201, "{v}");

    // 2 ACTIVE servers with the kluster's metadata, tag, flavor, image and network.
    let servers = until(Duration::from_secs(90), "2 ACTIVE servers", || async {
        let s = direct.servers(&name).await;
        (s.len() == 2 && s.iter().all(|s| s["status"] == "ACTIVE")).then_some(s)
    })
    .await;
    let network = env("DEMO_NETWORK_ID").expect("MC_TEST_OS_DEMO_NETWORK_ID");
    for s in &servers {
        assert_eq!(s["metadata"]["kluster"], json!(name), "{s}");
        assert_eq!(s["flavor"]["original_name"], json!(flavor), "{s}");
        assert_eq!(
            s["image"]["id"],
            json!(env("IMAGE_ID").unwrap_or_default()),
            "{s}"
        );
        let id = s["id"].as_str().unwrap_or_default();
        let (_, ports) = direct
            .get(format!("{}/v2.0/ports?device_id={id}", direct.network))
            .await;
        assert_eq!(ports["ports"][0]["network_id"], json!(network), "{ports}");
    }
    // Node health is unknown, never claimed.
    let k = kluster(&app, &tok, &name).await;
    assert_eq!(
        k["status"]["nodePools"][0]["healthUnknown"],
        json!(true),
        "{k}"
    );
    eprintln!("2 ACTIVE after {:.1?}", started.elapsed());

    // Past the quota (instances=6): Nova's 403 becomes FailedCreateNode in its words.
    scale(&app, &tok, &name, 7).await;
    let events_path = format!("/api/v1/clusters/{name}/events");
    until(
        Duration::from_secs(90),
        "a FailedCreateNode quota warning",
        || async {
            let (_, events) =
                crate::common::call(&app, "GET", &events_path, Some(&tok), None).await;
            events.as_array()?.iter().find(|e| {
                e["reason"] == "FailedCreateNode"
                    && e["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("Quota exceeded"))
            })?;
            Some(())
        },
    )
    .await;
    scale(&app, &tok, &name, 2).await;
    let servers = until(Duration::from_secs(90), "back to 2 servers", || async {
        let s = direct.servers(&name).await;
        (s.len() == 2).then_some(s)
    })
    .await;
    eprintln!(
        "quota warning and back to 2 after {:.1?}",
        started.elapsed()
    );

    // A server deleted by hand is replaced.
    let gone = servers[0]["id"].as_str().unwrap_or_default().to_string();
    direct.delete_server(&gone).await;
    until(Duration::from_secs(90), "a replacement", || async {
        let s = direct.servers(&name).await;
        let fresh = s.iter().all(|s| s["id"] != json!(gone));
        (s.len() == 2 && fresh && s.iter().all(|s| s["status"] == "ACTIVE")).then_some(())
    })
    .await;
    eprintln!("replaced after {:.1?}", started.elapsed());

    // Deleted: no server of it left, the project's network and router still there.
    let path = format!("/api/v1/clusters/{name}");
    let (status, v) = crate::common::call(&app, "DELETE", &path, Some(&tok), None).await;
    assert!(
        status == 202 || status == 200 || status == 204,
        "{status} {v}"
    );
    until(
        Duration::from_secs(90),
        "no server of the kluster",
        || async {
            let (status, v) = direct
                .get(format!(
                    "{}/servers/detail?tags=kluster={name}",
                    direct.compute
                ))
                .await;
            (status == 200 && v["servers"].as_array().is_some_and(|a| a.is_empty())).then_some(())
        },
    )
    .await;
    let router = env("DEMO_ROUTER_ID").unwrap_or_default();
    for path in [format!("networks/{network}"), format!("routers/{router}")] {
        let (status, v) = direct.get(format!("{}/v2.0/{path}", direct.network)).await;
        assert_eq!(status, 200, "{path}: {v}");
    }
    eprintln!("deleted, nothing left, after {:.1?}", started.elapsed());
}

#[tokio::test]
async fn readyz_names_a_missing_catalog_entry_or_the_refused_keys() {
    let Some(auth_url) = cloud_env() else { return };
    let _one = crate::common::openstack::ONE_AT_A_TIME.lock().await;
    let password = std::env::var("KS_SERVICE_PASSWORD").unwrap_or("mission-control-secret".into());
    let cases = [
        (
            openstack(&auth_url, &password, "Nowhere"),
            "region Nowhere",
            "service type compute",
        ),
        (
            openstack(&auth_url, "wrong", ""),
            "controller_openstack_password",
            "Signing in",
        ),
    ];
    for (i, (cloud, a, b)) in cases.into_iter().enumerate() {
        let running = start(&auth_url, cloud, &format!("ready{i}")).await;
        let (status, v) = crate::common::call(&running.router, "GET", "/readyz", None, None).await;
        let line = v.as_str().unwrap_or_default().to_string();
        assert_eq!(status, 503, "{line}");
        assert!(
            line.contains(a) && line.contains(b) && !line.contains('\n'),
            "{line}"
        );
        assert!(!line.contains(&password) || password.is_empty(), "{line}");
    }
}
