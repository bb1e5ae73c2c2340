//! A create naming an image or a network the real cloud lacks is refused with 422, naming
//! the field and the cloud's own choices, and makes nothing.

use serde_json::json;

use super::{body, Fixture};
use crate::common::openstack::env;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_or_network_the_cloud_lacks_is_422_naming_the_field() {
    let Some(f) = Fixture::new("valid").await else {
        return;
    };
    let name = f.name("v");
    let image = env("IMAGE").unwrap_or("flatcar-stable".into());
    let mut bad = body(&name, 1);
    bad["spec"]["nodePools"][0]["image"] = json!("no-such-image");
    let (status, v) = crate::common::create(f.app(), &f.tok, bad.to_string()).await;
    assert_eq!(status, 422, "{v}");
    let said = v.to_string();
    for must in ["spec.nodePools[0].image", "no-such-image", &image] {
        assert!(said.contains(must), "{must:?} not in {said}");
    }

    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let uuid = format!(
        "{:08x}-0000-4000-8000-{:012x}",
        std::process::id(),
        nanos % (1 << 48)
    );
    let mut bad = body(&name, 1);
    bad["spec"]["openstack"] = json!({"networkID": uuid});
    let (status, v) = crate::common::create(f.app(), &f.tok, bad.to_string()).await;
    assert_eq!(status, 422, "{v}");
    let said = v.to_string();
    for must in ["spec.openstack.networkID", &uuid, &f.project.network_id] {
        assert!(said.contains(must), "{must:?} not in {said}");
    }
    let path = format!("/api/v1/clusters/{name}");
    let (status, _) = crate::common::call(f.app(), "GET", &path, Some(&f.tok), None).await;
    assert_eq!(status, 404, "a refused create made a kluster");
    assert!(f.direct.servers(&name).await.is_empty());
}
