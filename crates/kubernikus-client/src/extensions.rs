//! The API's calls beside the kluster operations (`/info`, OpenStack metadata) and Mission
//! Control's extensions (quota, project events and their stream, the audit trail, the cloud
//! admins' ops views), which a Kubernikus answers with 404.

use keystone::TokenSecret;
use kluster::{
    Attention, AuditRecord, Info, OpenstackMetadata, OpsEvent, ProjectEvent, ProjectQuota, Quota,
};
use reqwest::Method;

use crate::{percent_encode, query_string, stream, Client, Error, EventStream};

/// What `GET /api/v1/access` answers (an extension): the policy rules the caller passes.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Access {
    /// The project the token is scoped to.
    pub project: String,
    /// The policy's rule names the caller passes (`CreateCluster`, `kubernetes_admin`, ...).
    pub granted: Vec<String>,
}

/// Which project events to read (`GET /api/v1/events`, an extension).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventsQuery {
    /// Only events after this sequence number.
    pub after: Option<i64>,
    /// Only the latest this many (newest last).
    pub last: Option<usize>,
    /// At most this many.
    pub limit: Option<usize>,
    /// Only this kluster's.
    pub kluster: Option<String>,
}

/// Which audit records to read (`GET /api/v1/audit`, an extension); `None`: no filter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditQuery {
    /// At most this many.
    pub limit: Option<usize>,
    /// Only this kluster's.
    pub kluster: Option<String>,
    /// Only this user's.
    pub user: Option<String>,
    /// Only this action's.
    pub action: Option<String>,
    /// Only since this time (a date, or a date and time, UTC).
    pub since: Option<String>,
    /// Only this project's (cloud admins).
    pub project: Option<String>,
}

impl Client {
    /// `GET /info`: the API's versions (default, supported, available).
    pub async fn api_info(&self, token: &TokenSecret) -> Result<Info, Error> {
        self.call(Method::GET, token, "/info", None::<&()>).await
    }

    /// `GET /api/v1/openstack/metadata`: flavors, zones, routers, key pairs of the project.
    pub async fn metadata(&self, token: &TokenSecret) -> Result<OpenstackMetadata, Error> {
        let path = "/api/v1/openstack/metadata";
        self.call(Method::GET, token, path, None::<&()>).await
    }

    /// `GET /api/v1/access` (extension; a Kubernikus answers 404): what the policy grants
    /// the token's user in its project.
    pub async fn access(&self, token: &TokenSecret) -> Result<Access, Error> {
        self.call(Method::GET, token, "/api/v1/access", None::<&()>)
            .await
    }

    /// `GET /api/v1/openstack/quota` (extension; a Kubernikus answers 404).
    pub async fn quota(&self, token: &TokenSecret) -> Result<Quota, Error> {
        let path = "/api/v1/openstack/quota";
        self.call(Method::GET, token, path, None::<&()>).await
    }

    /// `GET /api/v1/events` (extension; a Kubernikus answers 404): the project's events.
    pub async fn project_events(
        &self,
        token: &TokenSecret,
        q: &EventsQuery,
    ) -> Result<Vec<ProjectEvent>, Error> {
        let mut params = Vec::new();
        if let Some(a) = q.after {
            params.push(format!("after={a}"));
        }
        if let Some(l) = q.last {
            params.push(format!("last={l}"));
        }
        if let Some(l) = q.limit {
            params.push(format!("limit={l}"));
        }
        if let Some(k) = &q.kluster {
            params.push(format!("kluster={}", percent_encode(k)));
        }
        let path = format!("/api/v1/events?{}", params.join("&"));
        self.call(Method::GET, token, &path, None::<&()>).await
    }

    /// `GET /api/v1/events/stream[?after=n]` (extension; a Kubernikus answers 404): the
    /// project's events as they happen, resuming after sequence number `after`.
    pub async fn event_stream(
        &self,
        token: &TokenSecret,
        after: Option<i64>,
    ) -> Result<EventStream, Error> {
        let mut path = "/api/v1/events/stream".to_string();
        if let Some(a) = after {
            path.push_str(&format!("?after={a}"));
        }
        let req = self
            .http
            .get(format!("{}{path}", self.base))
            .header("accept", "text/event-stream");
        let resp = self.exchange(&Method::GET, req, token, &path, true).await?;
        Ok(stream::of_response(resp))
    }

    /// `GET /api/v1/audit` (extension): audit records, newest first. The API scopes them:
    /// a project admin sees the token's project; anyone else gets its 403.
    pub async fn audit(
        &self,
        token: &TokenSecret,
        q: &AuditQuery,
    ) -> Result<Vec<AuditRecord>, Error> {
        let limit = q.limit.map(|l| l.to_string());
        let pairs = [
            ("limit", &limit),
            ("kluster", &q.kluster),
            ("user", &q.user),
            ("action", &q.action),
            ("since", &q.since),
            ("project", &q.project),
        ];
        let query = query_string(pairs.iter().filter_map(|(k, v)| Some((*k, v.as_deref()?))));
        let path = format!("/api/v1/audit{query}");
        self.call(Method::GET, token, &path, None::<&()>).await
    }

    /// `GET /api/v1/ops/attention` (extension, cloud admins): klusters that need an
    /// operator.
    pub async fn ops_attention(&self, token: &TokenSecret) -> Result<Vec<Attention>, Error> {
        let path = "/api/v1/ops/attention";
        self.call(Method::GET, token, path, None::<&()>).await
    }

    /// `GET /api/v1/ops/quotas` (extension, cloud admins): each project's quota use.
    pub async fn ops_quotas(&self, token: &TokenSecret) -> Result<Vec<ProjectQuota>, Error> {
        let path = "/api/v1/ops/quotas";
        self.call(Method::GET, token, path, None::<&()>).await
    }

    /// `GET /api/v1/ops/events?last=n[&project=p]` (extension, cloud admins): the newest
    /// `last` events of every project (or of `project`), oldest first.
    pub async fn ops_events(
        &self,
        token: &TokenSecret,
        last: usize,
        project: Option<&str>,
    ) -> Result<Vec<OpsEvent>, Error> {
        let mut path = format!("/api/v1/ops/events?last={last}");
        if let Some(p) = project {
            path.push_str(&format!("&project={}", percent_encode(p)));
        }
        self.call(Method::GET, token, &path, None::<&()>).await
    }
}
