//! Creating servers through the provider against the stand-in: what reaches Nova (ids,
//! network, group, metadata, tags, user data, the microversion) and what fails first.

use serde_json::json;

use super::stand::Stand;
use super::{cloud, spec, UID};
use crate::cloud::openstack::Placement;
use crate::cloud::{Cloud, CloudErrorKind, ServerSpec, ServerStatus};

#[tokio::test]
async fn create_sends_ids_network_group_metadata_tags_and_the_microversion() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    let s = c
        .create_server("p1", &spec("kks-k1-a-abcde"))
        .await
        .unwrap();
    assert_eq!(
        (s.kluster.as_str(), s.status, s.node),
        ("k1", ServerStatus::Build, None)
    );
    let post = stand
        .seen("/compute/v2.1/servers")
        .into_iter()
        .find(|c| c.method == axum::http::Method::POST)
        .unwrap();
    assert_eq!(post.headers["openstack-api-version"], "compute 2.67");
    assert_eq!(post.headers["x-openstack-nova-api-version"], "2.67");
    let body = post.body.unwrap();
    let expected = json!({ "server": {
        "name": "kks-k1-a-abcde", "flavorRef": "f2", "imageRef": "i2",
        "networks": [{ "uuid": "net1" }], "security_groups": [{ "name": "default" }],
        "metadata": { "kluster": "k1", "kluster_uid": UID },
        "tags": ["kubernikus", "kluster=k1", format!("kluster_uid={UID}")],
        "availability_zone": "az-a", "config_drive": true,
    }});
    assert_eq!(
        body, expected,
        "the newest image of that name, the only network"
    );
    // The new server is listed as the kluster's, with its uid, and the admin password
    // went nowhere.
    let listed = c.servers("p1").await.unwrap();
    assert!(listed
        .iter()
        .any(|x| x.id == s.id && x.uid.as_deref() == Some(UID)));
    assert!(!format!("{s:?}").contains("AdminPassSecret1"));
}

#[tokio::test]
async fn create_needs_a_network_when_the_project_has_several() {
    let stand = Stand::start().await;
    stand.state().two_networks = true;
    let c = cloud(&stand);
    let e = c
        .create_server("p1", &spec("kks-k1-a-abcde"))
        .await
        .unwrap_err();
    assert!(e.message.contains("net1, net2"), "{e}");
    let placement = Placement {
        network_id: Some("net2".into()),
        security_group: Some("k1-nodes".into()),
    };
    c.create_server_with("p1", &spec("kks-k1-a-abcde"), &placement)
        .await
        .unwrap();
    let post = stand
        .seen("/compute/v2.1/servers")
        .into_iter()
        .last()
        .unwrap();
    let body = post.body.unwrap();
    assert_eq!(body["server"]["networks"], json!([{ "uuid": "net2" }]));
    assert_eq!(
        body["server"]["security_groups"],
        json!([{ "name": "k1-nodes" }])
    );
}

#[tokio::test]
async fn the_specs_network_group_and_user_data_reach_nova() {
    let stand = Stand::start().await;
    stand.state().two_networks = true;
    let c = cloud(&stand);
    let spec = ServerSpec {
        network_id: "net2".into(),
        security_group: "k1-nodes".into(),
        user_data: "#cloud-config\n".into(),
        ..spec("kks-k1-a-abcde")
    };
    c.create_server("p1", &spec).await.unwrap();
    let post = stand.seen("/compute/v2.1/servers").into_iter().last();
    let body = post.and_then(|p| p.body).unwrap();
    assert_eq!(body["server"]["networks"], json!([{ "uuid": "net2" }]));
    assert_eq!(
        body["server"]["security_groups"],
        json!([{ "name": "k1-nodes" }])
    );
    assert_eq!(body["server"]["user_data"], "I2Nsb3VkLWNvbmZpZwo=");
}

#[tokio::test]
async fn unknown_flavor_or_image_fails_before_nova_is_asked() {
    let stand = Stand::start().await;
    let c = cloud(&stand);
    let mut s = spec("kks-k1-a-abcde");
    s.flavor = "m9.huge".into();
    let e = c.create_server("p1", &s).await.unwrap_err();
    assert_eq!(e.message, "Flavor m9.huge could not be found.");
    let mut s = spec("kks-k1-a-abcde");
    s.image = "windows".into();
    let e = c.create_server("p1", &s).await.unwrap_err();
    assert_eq!(e.message, "Image windows could not be found.");
    assert!(stand
        .seen("/compute/v2.1/servers")
        .iter()
        .all(|c| c.method != axum::http::Method::POST));
}

#[tokio::test]
async fn novas_quota_exceeded_403_is_quota_exceeded() {
    let stand = Stand::start().await;
    stand.state().quota_exceeded = true;
    let e = cloud(&stand)
        .create_server("p1", &spec("kks-k1-a-abcde"))
        .await
        .unwrap_err();
    assert_eq!(e.kind, CloudErrorKind::QuotaExceeded);
    assert_eq!(
        e.message,
        "Quota exceeded for instances: Requested 1, but already used 10 of 10 instances (HTTP 403)"
    );
    // Any other 403 is just an error.
    let other = crate::cloud::openstack::failure::answer_error(
        403,
        br#"{"forbidden":{"code":403,"message":"Policy doesn't allow it"}}"#,
    );
    assert_eq!(other.kind, CloudErrorKind::Other);
}
