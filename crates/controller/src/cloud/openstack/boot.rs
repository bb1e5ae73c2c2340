//! Booting (and starting) a server in Nova: flavor and image resolved from their names, the kluster's
//! network and security group, metadata and tags naming the kluster, user data; sent with
//! the kluster's own user's token when it has one.

use std::time::Duration;

use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use super::auth::Scope;
use super::catalog::Service;
use super::compute::{KLUSTER_KEY, TAG};
use super::http::Api;
use crate::cloud::owner::UID_KEY;
use crate::cloud::{CloudError, Server, ServerSpec, ServerStatus};

/// Where a server goes beyond what [`ServerSpec`] says: it names no network or security
/// group yet. `None`: the project's only network behind a router with an external gateway,
/// and the configured security group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// Neutron network id (a kluster's `spec.openstack.networkID`).
    pub network_id: Option<String>,
    /// Security group name or id (a kluster's `spec.openstack.securityGroupName`).
    pub security_group: Option<String>,
}

impl Api {
    /// Boots `spec` in `network` with `security_group` (`POST /servers`).
    pub(super) async fn boot(
        &self,
        project: &str,
        spec: &ServerSpec,
        network: &str,
        security_group: &str,
    ) -> Result<Server, CloudError> {
        // Nova's flavors and Glance's image are asked at once (boots sent together share
        // these GETs: `Api::get`'s flights).
        let (flavors, image) =
            tokio::join!(self.flavors(project), self.image_id(project, &spec.image));
        let flavors = flavors?;
        let Some(flavor) = flavors.iter().find(|f| f.name == spec.flavor) else {
            return Err(CloudError::new(format!(
                "Flavor {} could not be found.",
                spec.flavor
            )));
        };
        let image = image?;
        let body = create_body(spec, &flavor.id, &image, network, security_group);
        #[derive(Deserialize)]
        struct Created {
            id: String,
        }
        #[derive(Deserialize)]
        struct Body {
            server: Created,
        }
        // The kluster's own user boots it when it has one (its token scoped to the project).
        let scope = match &spec.user {
            Some(user) => Scope::User {
                project: project.to_string(),
                user: user.clone(),
            },
            None => Scope::Project(project.to_string()),
        };
        // The answer carries the server's adminPass: read the id only, keep nothing else.
        let reply = self
            .send_as(
                &scope,
                Service::Compute,
                Method::POST,
                "servers",
                &[],
                Some(&body),
            )
            .await?
            .ok()?;
        let created: Body = reply.json(Service::Compute)?;
        Ok(Server {
            id: created.server.id,
            name: spec.name.clone(),
            kluster: spec.kluster.clone(),
            uid: Some(spec.uid.clone()).filter(|u| !u.is_empty()),
            status: ServerStatus::Build,
            node: None,
            age: Duration::ZERO,
            fault: None,
        })
    }

    /// Starts a stopped server (`POST /servers/{id}/action` with `os-start`). Nova answers
    /// 409 when it is not stopped any more: that is success too.
    pub(super) async fn start_server(&self, project: &str, id: &str) -> Result<(), CloudError> {
        let path = format!("servers/{}/action", super::compute::segment(id));
        let body = json!({ "os-start": null });
        let reply = self
            .send(
                project,
                Service::Compute,
                Method::POST,
                &path,
                &[],
                Some(&body),
            )
            .await?;
        if reply.status == 409 {
            return Ok(());
        }
        reply.ok().map(drop)
    }
}

/// The body of Nova's `POST /servers` for `spec` (microversion 2.67; user data base64).
pub fn create_body(
    spec: &ServerSpec,
    flavor_id: &str,
    image_id: &str,
    network: &str,
    security_group: &str,
) -> serde_json::Value {
    let mut server = json!({
        "name": spec.name,
        "flavorRef": flavor_id,
        "imageRef": image_id,
        "networks": [{ "uuid": network }],
        "security_groups": [{ "name": security_group }],
        "metadata": { KLUSTER_KEY: spec.kluster, UID_KEY: spec.uid },
        "tags": [
            TAG,
            format!("{KLUSTER_KEY}={}", spec.kluster),
            format!("{UID_KEY}={}", spec.uid),
        ],
        "config_drive": true,
    });
    if !spec.availability_zone.is_empty() {
        server["availability_zone"] = json!(spec.availability_zone);
    }
    if !spec.user_data.is_empty() {
        use base64::Engine as _;
        let encoded = base64::engine::general_purpose::STANDARD.encode(&spec.user_data);
        server["user_data"] = json!(encoded);
    }
    json!({ "server": server })
}
