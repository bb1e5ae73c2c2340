//! A typed client for the Kubernikus REST API: one async method per operation, with the
//! caller's Keystone token; every error answer is mapped once into the typed
//! [`kluster::ApiError`] ([`Error::Api`]). Works against a real Kubernikus and against
//! Mission Control's embedded controller, whose extensions (quota, project events, the
//! event stream) a Kubernikus answers with 404.
//!
//! - [`sse`]: the one Server-Sent Events frame parser.
//! - [`stream`]: the event stream as a typed `Stream`.

pub mod error;
pub mod sse;
pub mod stream;

use std::time::Duration;

use keystone::TokenSecret;
use kluster::{
    Credentials, Event, Info, Kluster, KlusterInfo, OpenstackMetadata, ProjectEvent, Quota,
};
use serde::de::DeserializeOwned;

pub use error::Error;
pub use stream::{EventStream, StreamEvent};

/// How long a call (not the event stream) may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);
/// Largest answer a call reads.
const MAX_ANSWER: usize = 64 << 20;

/// A Kubernikus API endpoint.
#[derive(Clone, Debug)]
pub struct Client {
    base: String,
    http: reqwest::Client,
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

impl Client {
    /// A client for `base`, e.g. `http://127.0.0.1:41234` or `https://kubernikus.example.com`.
    pub fn new(base: &str) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(3))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
            http,
        })
    }

    /// The base URL (no trailing slash).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `GET /api/v1/clusters`: the project's klusters.
    pub async fn list(&self, token: &TokenSecret) -> Result<Vec<Kluster>, Error> {
        self.call(reqwest::Method::GET, token, "/api/v1/clusters", None::<&()>)
            .await
    }

    /// `GET /api/v1/clusters/{name}`.
    pub async fn get(&self, token: &TokenSecret, name: &str) -> Result<Kluster, Error> {
        let path = kluster_path(name, "");
        self.call(reqwest::Method::GET, token, &path, None::<&()>)
            .await
    }

    /// `POST /api/v1/clusters`: creates `k`; the kluster as stored.
    pub async fn create(&self, token: &TokenSecret, k: &Kluster) -> Result<Kluster, Error> {
        self.call(reqwest::Method::POST, token, "/api/v1/clusters", Some(k))
            .await
    }

    /// `PUT /api/v1/clusters/{name}`: changes the kluster to `k`'s spec; as stored.
    pub async fn update(&self, token: &TokenSecret, k: &Kluster) -> Result<Kluster, Error> {
        let path = kluster_path(&k.name, "");
        self.call(reqwest::Method::PUT, token, &path, Some(k)).await
    }

    /// `DELETE /api/v1/clusters/{name}`: starts the kluster's termination.
    pub async fn terminate(&self, token: &TokenSecret, name: &str) -> Result<(), Error> {
        let path = kluster_path(name, "");
        let resp = self
            .send(reqwest::Method::DELETE, token, &path, None::<&()>)
            .await?;
        drop(resp);
        Ok(())
    }

    /// `GET /api/v1/clusters/{name}/events`: the kluster's events, oldest first.
    pub async fn events(&self, token: &TokenSecret, name: &str) -> Result<Vec<Event>, Error> {
        let path = kluster_path(name, "/events");
        self.call(reqwest::Method::GET, token, &path, None::<&()>)
            .await
    }

    /// `GET /api/v1/clusters/{name}/credentials`: a kubeconfig signed for the caller.
    pub async fn credentials(&self, token: &TokenSecret, name: &str) -> Result<Credentials, Error> {
        let path = kluster_path(name, "/credentials");
        self.call(reqwest::Method::GET, token, &path, None::<&()>)
            .await
    }

    /// `GET /api/v1/clusters/{name}/info`: the setup command and binaries.
    pub async fn info(&self, token: &TokenSecret, name: &str) -> Result<KlusterInfo, Error> {
        let path = kluster_path(name, "/info");
        self.call(reqwest::Method::GET, token, &path, None::<&()>)
            .await
    }

    /// `GET /info`: the API's versions (default, supported, available).
    pub async fn api_info(&self, token: &TokenSecret) -> Result<Info, Error> {
        self.call(reqwest::Method::GET, token, "/info", None::<&()>)
            .await
    }

    /// `GET /api/v1/openstack/metadata`: flavors, zones, routers, key pairs of the project.
    pub async fn metadata(&self, token: &TokenSecret) -> Result<OpenstackMetadata, Error> {
        let path = "/api/v1/openstack/metadata";
        self.call(reqwest::Method::GET, token, path, None::<&()>)
            .await
    }

    /// `GET /api/v1/openstack/quota` (extension; a Kubernikus answers 404).
    pub async fn quota(&self, token: &TokenSecret) -> Result<Quota, Error> {
        let path = "/api/v1/openstack/quota";
        self.call(reqwest::Method::GET, token, path, None::<&()>)
            .await
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
        self.call(reqwest::Method::GET, token, &path, None::<&()>)
            .await
    }

    /// `GET /api/v1/events/stream[?after=n]` (extension; a Kubernikus answers 404): the
    /// project's events as they happen, resuming after sequence number `after`.
    pub async fn event_stream(
        &self,
        token: &TokenSecret,
        after: Option<i64>,
    ) -> Result<EventStream, Error> {
        let mut url = format!("{}/api/v1/events/stream", self.base);
        if let Some(a) = after {
            url.push_str(&format!("?after={a}"));
        }
        let resp = self
            .http
            .get(url)
            .header("x-auth-token", token.expose())
            .header("accept", "text/event-stream")
            .send()
            .await
            .map_err(error::unreachable)?;
        if !resp.status().is_success() {
            return Err(error::of_answer(resp).await);
        }
        Ok(stream::of_response(resp))
    }

    async fn call<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        token: &TokenSecret,
        path: &str,
        body: Option<&impl serde::Serialize>,
    ) -> Result<T, Error> {
        let resp = self.send(method, token, path, body).await?;
        let bytes = error::read_bounded(resp, MAX_ANSWER).await?;
        serde_json::from_slice(&bytes).map_err(|e| Error::Decode(e.to_string()))
    }

    async fn send(
        &self,
        method: reqwest::Method,
        token: &TokenSecret,
        path: &str,
        body: Option<&impl serde::Serialize>,
    ) -> Result<reqwest::Response, Error> {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .timeout(CALL_TIMEOUT)
            .header("x-auth-token", token.expose())
            .header("accept", "application/json");
        if let Some(b) = body {
            req = req.json(b);
        }
        let resp = req.send().await.map_err(error::unreachable)?;
        if resp.status().is_success() {
            Ok(resp)
        } else {
            Err(error::of_answer(resp).await)
        }
    }
}

/// The path of kluster `name` (percent-encoded: a name cannot reach another path) and
/// `rest`.
fn kluster_path(name: &str, rest: &str) -> String {
    format!("/api/v1/clusters/{}{rest}", percent_encode(name))
}

/// `s` percent-encoded for a URL query value or path segment (unreserved characters kept).
pub fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests;
