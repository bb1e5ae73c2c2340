//! Nova: flavors, zones, key pairs, quota, and the klusters' servers, listed by their
//! `kluster` metadata (microversion 2.67). Booting is in [`super::boot`], Glance's images in
//! [`super::images`].

use std::collections::HashMap;
use std::time::Duration;

use reqwest::Method;
use serde::Deserialize;
use time::OffsetDateTime;

use super::catalog::Service;
use super::http::{Api, Query};
use crate::cloud::owner::UID_KEY;
use crate::cloud::{CloudError, Quota, Server, ServerBrief, ServerStatus, Usage, CHANGES_AT_MOST};

/// Server metadata key naming the kluster a server belongs to.
pub const KLUSTER_KEY: &str = "kluster";

/// The most of a fault's message kept (Nova's can carry a traceback for admins).
const FAULT_CHARS: usize = 300;

/// Tag every server the controller boots carries (beside `kluster=<name>` and
/// `kluster_uid=<uid>`).
pub const TAG: &str = "kubernikus";

#[derive(Deserialize)]
pub(super) struct NovaFlavor {
    pub(super) id: String,
    pub(super) name: String,
    #[serde(default)]
    pub(super) ram: i64,
    #[serde(default)]
    pub(super) vcpus: i64,
}

#[derive(Deserialize)]
struct Zone {
    #[serde(rename = "zoneName")]
    name: String,
    #[serde(rename = "zoneState", default)]
    state: ZoneState,
}

#[derive(Default, Deserialize)]
struct ZoneState {
    #[serde(default)]
    available: bool,
}

#[derive(Deserialize)]
struct KeyPairItem {
    keypair: NovaKeyPair,
}

#[derive(Deserialize)]
struct NovaKeyPair {
    name: String,
    #[serde(default)]
    public_key: String,
}

#[derive(Deserialize)]
struct QuotaBody {
    quota_set: QuotaSet,
}

#[derive(Deserialize)]
struct QuotaSet {
    instances: QuotaDetail,
    cores: QuotaDetail,
    ram: QuotaDetail,
}

#[derive(Deserialize)]
struct QuotaDetail {
    #[serde(default)]
    in_use: i64,
    #[serde(default)]
    reserved: i64,
    limit: i64,
}

impl From<QuotaDetail> for Usage {
    /// Nova's unlimited (-1) becomes `i64::MAX`; reserved counts as used.
    fn from(d: QuotaDetail) -> Usage {
        Usage {
            limit: if d.limit < 0 { i64::MAX } else { d.limit },
            used: d.in_use.saturating_add(d.reserved.max(0)),
        }
    }
}

/// A server as Nova lists it (the fields the provider reads).
#[derive(Deserialize)]
pub(super) struct NovaServer {
    pub(super) id: String,
    #[serde(default)]
    pub(super) name: String,
    #[serde(default)]
    pub(super) status: String,
    #[serde(rename = "OS-EXT-STS:task_state", default)]
    pub(super) task_state: Option<String>,
    #[serde(default)]
    pub(super) metadata: HashMap<String, String>,
    #[serde(default)]
    pub(super) created: String,
    /// Addresses by network name.
    #[serde(default)]
    pub(super) addresses: HashMap<String, Vec<NovaAddress>>,
    /// Why it failed (servers in ERROR): Nova shows `fault.message` to the project.
    #[serde(default)]
    pub(super) fault: Option<NovaFault>,
}

/// A server's fault as Nova shows it (`details` are for admins; `message` is enough).
#[derive(Deserialize)]
pub(super) struct NovaFault {
    #[serde(default)]
    pub(super) message: String,
}

/// One address of a server.
#[derive(Deserialize)]
pub(super) struct NovaAddress {
    pub(super) addr: String,
}

/// Nova's status (and task state) as the controller sees it: BUILD and REBUILD boot; ERROR
/// failed; DELETED, SOFT_DELETED and any server whose task is `deleting` are going;
/// SHUTOFF, SUSPENDED, PAUSED, SHELVED and SHELVED_OFFLOADED are stopped (a start may bring
/// them back) unless their task is to come up (`powering-on`, …); every other status (ACTIVE, REBOOT, HARD_REBOOT, RESIZE, VERIFY_RESIZE,
/// MIGRATING, UNKNOWN, …) is a server that exists and did not fail, so `Active` — whether
/// its node works is the kluster's to say.
pub fn status_of(status: &str, task_state: Option<&str>) -> ServerStatus {
    if task_state == Some("deleting") {
        return ServerStatus::Deleting;
    }
    match status {
        "BUILD" | "REBUILD" => ServerStatus::Build,
        "ERROR" => ServerStatus::Error,
        "DELETED" | "SOFT_DELETED" => ServerStatus::Deleting,
        // Being started (powering-on, resuming, …): on its way up, no longer stopped.
        "SHUTOFF" | "SUSPENDED" | "PAUSED" | "SHELVED" | "SHELVED_OFFLOADED"
            if task_state.is_some_and(|t| STARTING.contains(&t)) =>
        {
            ServerStatus::Active
        }
        "SHUTOFF" | "SUSPENDED" | "PAUSED" | "SHELVED" | "SHELVED_OFFLOADED" => {
            ServerStatus::Stopped
        }
        _ => ServerStatus::Active,
    }
}

/// Nova's task states of a stopped server on its way up.
const STARTING: &[&str] = &[
    "powering-on",
    "resuming",
    "unpausing",
    "unshelving",
    "spawning",
];

/// Time since `created` (RFC 3339); zero when unreadable or in the future.
pub fn age_of(created: &str, now: OffsetDateTime) -> Duration {
    OffsetDateTime::parse(created, &time::format_description::well_known::Rfc3339)
        .ok()
        .and_then(|t| Duration::try_from(now - t).ok())
        .unwrap_or(Duration::ZERO)
}

impl NovaServer {
    /// The kluster it belongs to, from its metadata.
    pub(super) fn kluster(&self) -> Option<&str> {
        self.metadata
            .get(KLUSTER_KEY)
            .map(String::as_str)
            .filter(|k| !k.is_empty())
    }

    /// The kluster uid its metadata carries, if it carries one.
    pub(super) fn uid(&self) -> Option<&str> {
        self.metadata
            .get(UID_KEY)
            .map(String::as_str)
            .filter(|u| !u.is_empty())
    }

    /// As a [`Server`] (no node: that comes from the kluster's Kubernetes API), if it
    /// belongs to a kluster.
    pub(super) fn to_server(&self, now: OffsetDateTime) -> Option<Server> {
        let status = status_of(&self.status, self.task_state.as_deref());
        let fault = self
            .fault
            .as_ref()
            .map(|f| f.message.trim())
            .filter(|m| !m.is_empty() && status == ServerStatus::Error)
            .map(|m| m.chars().take(FAULT_CHARS).collect());
        Some(Server {
            id: self.id.clone(),
            name: self.name.clone(),
            kluster: self.kluster()?.to_string(),
            uid: self.uid().map(str::to_string),
            status,
            node: None,
            age: age_of(&self.created, now),
            fault,
        })
    }
}

/// A query of `pairs`.
pub(super) fn q(pairs: &[(&str, &str)]) -> Query {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

impl Api {
    /// Nova's flavors (`GET /flavors/detail`).
    pub(super) async fn flavors(&self, project: &str) -> Result<Vec<NovaFlavor>, CloudError> {
        self.list(
            project,
            Service::Compute,
            "flavors/detail",
            Vec::new(),
            "flavors",
        )
        .await
    }

    /// Names of the available zones (`GET /os-availability-zone`).
    pub(super) async fn zones(&self, project: &str) -> Result<Vec<String>, CloudError> {
        #[derive(Deserialize)]
        struct Body {
            #[serde(rename = "availabilityZoneInfo", default)]
            zones: Vec<Zone>,
        }
        let body: Body = self
            .get(project, Service::Compute, "os-availability-zone", &[])
            .await?;
        Ok(body
            .zones
            .into_iter()
            .filter(|z| z.state.available)
            .map(|z| z.name)
            .collect())
    }

    /// Key pairs of the signed-in user (`GET /os-keypairs`): Nova's key pairs belong to a
    /// user, so these are the service user's.
    pub(super) async fn key_pairs(
        &self,
        project: &str,
    ) -> Result<Vec<kluster::KeyPair>, CloudError> {
        let items: Vec<KeyPairItem> = self
            .list(
                project,
                Service::Compute,
                "os-keypairs",
                Vec::new(),
                "keypairs",
            )
            .await?;
        Ok(items
            .into_iter()
            .map(|k| kluster::KeyPair {
                name: k.keypair.name,
                public_key: k.keypair.public_key,
            })
            .collect())
    }

    /// The project's instances, cores and RAM quota (`GET /os-quota-sets/{p}/detail`).
    pub(super) async fn quota(&self, project: &str) -> Result<Quota, CloudError> {
        let path = format!("os-quota-sets/{}/detail", segment(project));
        let body: QuotaBody = self.get(project, Service::Compute, &path, &[]).await?;
        let s = body.quota_set;
        Ok(Quota {
            instances: s.instances.into(),
            cores: s.cores.into(),
            ram: s.ram.into(),
        })
    }

    /// Every server of the project (`GET /servers/detail`), klusters' or not.
    pub(super) async fn nova_servers(&self, project: &str) -> Result<Vec<NovaServer>, CloudError> {
        self.list(
            project,
            Service::Compute,
            "servers/detail",
            Vec::new(),
            "servers",
        )
        .await
    }

    /// The ids of the project's servers changed since `since`, at most
    /// [`CHANGES_AT_MOST`] (`GET /servers?changes-since=…&limit=…`, brief: deleted servers
    /// are listed too).
    pub(super) async fn changed_since(
        &self,
        project: &str,
        since: OffsetDateTime,
    ) -> Result<Vec<String>, CloudError> {
        #[derive(Deserialize)]
        struct Brief {
            id: String,
        }
        #[derive(Deserialize)]
        struct Body {
            servers: Vec<Brief>,
        }
        let since = since
            .replace_nanosecond(0)
            .unwrap_or(since)
            .format(&time::format_description::well_known::Rfc3339)
            .map_err(|e| CloudError::new(format!("a time this provider cannot write: {e}")))?;
        let limit = CHANGES_AT_MOST.to_string();
        let query = q(&[("changes-since", &since), ("limit", &limit)]);
        let body: Body = self
            .get(project, Service::Compute, "servers", &query)
            .await?;
        Ok(body.servers.into_iter().map(|s| s.id).collect())
    }

    /// The servers carrying kluster uid `uid`, by id and name: `GET
    /// /servers?tags=kluster_uid=<uid>`, without details (Nova builds no view of their
    /// addresses and security groups).
    pub(super) async fn kluster_servers_brief(
        &self,
        project: &str,
        uid: &str,
    ) -> Result<Vec<ServerBrief>, CloudError> {
        #[derive(Deserialize)]
        struct Brief {
            id: String,
            #[serde(default)]
            name: String,
        }
        let query = vec![("tags".to_string(), format!("{UID_KEY}={uid}"))];
        let brief: Vec<Brief> = self
            .list(project, Service::Compute, "servers", query, "servers")
            .await?;
        let named = brief.into_iter().map(|b| ServerBrief {
            id: b.id,
            name: b.name,
        });
        Ok(named.collect())
    }

    /// One server (`GET /servers/{id}`); `None` when Nova does not know it.
    pub(super) async fn nova_server(
        &self,
        project: &str,
        id: &str,
    ) -> Result<Option<NovaServer>, CloudError> {
        #[derive(Deserialize)]
        struct Body {
            server: NovaServer,
        }
        let path = format!("servers/{}", segment(id));
        let reply = self
            .send(project, Service::Compute, Method::GET, &path, &[], None)
            .await?;
        if reply.status == 404 {
            return Ok(None);
        }
        let body: Body = reply.ok()?.json(Service::Compute)?;
        Ok(Some(body.server))
    }
}

/// `s` as one URL path segment (ids are plain, but never let one add a path).
pub fn segment(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes())
        .collect::<String>()
        .replace('+', "%20")
}
