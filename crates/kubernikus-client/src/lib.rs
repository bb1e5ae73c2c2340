//! A typed client for the Kubernikus REST API: one async method per operation, with the
//! caller's Keystone token; every error answer is mapped once into the typed
//! [`kluster::ErrorBody`] ([`Error::Api`], [`Error::Stale`] for a failed `If-Match`). Works
//! against a real Kubernikus and against Mission Control's embedded controller, whose
//! extensions (list query, termination protection, quota, project events, the event
//! stream, audit, ops views) a Kubernikus answers with 404.
//!
//! - [`klusters`]: the kluster operations (list, get, create, update, terminate, …).
//! - [`extensions`]: the API's other calls and Mission Control's extensions.
//! - [`observe`]: the per-call observer (metrics) and the per-request headers.
//! - [`json_array`]: a JSON array answered, checked but not decoded, to pass on.
//! - [`sse`]: the one Server-Sent Events frame parser.
//! - [`stream`]: the event stream as a typed `Stream`.

pub mod error;
pub mod extensions;
pub mod json_array;
pub mod klusters;
pub mod observe;
pub mod sse;
pub mod stream;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use keystone::TokenSecret;
use serde::de::DeserializeOwned;

pub use error::Error;
pub use extensions::{AuditQuery, EventsQuery};
pub use json_array::JsonArray;
pub use klusters::{Listing, Version};
pub use observe::{route_template, Observer, RequestHeaders};
pub use stream::{EventStream, StreamEvent};

/// How long a call (not the event stream) may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(20);
/// Largest answer a call reads.
pub const MAX_ANSWER: usize = 64 << 20;

/// Answers the API's requests in the caller's own process (an embedded controller's
/// router): the same handlers and layers, without a loopback connection.
pub trait InProcessApi: Send + Sync {
    /// The answer to `req`, or why there is none (a sentence for the log).
    fn answer(
        &self,
        req: reqwest::Request,
    ) -> BoxFuture<'static, Result<reqwest::Response, String>>;
}

/// A Kubernikus API endpoint.
#[derive(Clone)]
pub struct Client {
    base: String,
    http: reqwest::Client,
    /// Answers calls (all but the event stream) in-process, when set.
    local: Option<Arc<dyn InProcessApi>>,
    observer: Option<Arc<Observer>>,
    /// The request this client acts for: its id and the browser's address.
    request: Option<RequestHeaders>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
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
            local: None,
            observer: None,
            request: None,
        })
    }

    /// This client, telling `observer` about every call (method, route template, duration,
    /// the kind of failure).
    pub fn with_observer(mut self, observer: Arc<Observer>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// This client, its calls (all but the event stream, which stays on HTTP) answered by
    /// `local` in-process rather than sent to `base`.
    pub fn with_local(mut self, local: Arc<dyn InProcessApi>) -> Self {
        self.local = Some(local);
        self
    }

    /// This client acting for one request: every call carries its id (`X-Request-Id`) and
    /// the browser's address (`X-Forwarded-For`, believed by a controller that trusts the
    /// caller).
    pub fn for_request(mut self, id: &str, client: Option<std::net::IpAddr>) -> Self {
        self.request = Some(RequestHeaders {
            id: id.to_string(),
            client,
        });
        self
    }

    /// This client (its connections, observer and request) pointed at another Kubernikus
    /// API, `base`, over HTTP (another region's: nothing of it answers in-process).
    pub fn at(&self, base: &str) -> Self {
        Self {
            base: base.trim_end_matches('/').to_string(),
            http: self.http.clone(),
            local: None,
            observer: self.observer.clone(),
            request: self.request.clone(),
        }
    }

    /// The base URL (no trailing slash).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `method path` with `body` as JSON, the answer decoded from JSON.
    async fn call<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        token: &TokenSecret,
        path: &str,
        body: Option<&impl serde::Serialize>,
    ) -> Result<T, Error> {
        let resp = self.send(method, token, path, body, &[]).await?;
        decode(resp).await
    }

    /// `method path` with `body` as JSON and `headers`; the accepted answer, or its error.
    async fn send(
        &self,
        method: reqwest::Method,
        token: &TokenSecret,
        path: &str,
        body: Option<&impl serde::Serialize>,
        headers: &[(&'static str, String)],
    ) -> Result<reqwest::Response, Error> {
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .timeout(CALL_TIMEOUT)
            .header("accept", "application/json");
        if let Some(b) = body {
            req = req.json(b);
        }
        for (name, value) in headers {
            req = req.header(*name, value.as_str());
        }
        self.exchange(&method, req, token, path, false).await
    }

    /// Sends `req` (`method path`) as the user behind `token`, with the request's headers,
    /// telling the observer; the accepted answer, or its error. A `streaming` answer (the
    /// event stream) always comes over HTTP; any other from the local answerer if there is
    /// one.
    async fn exchange(
        &self,
        method: &reqwest::Method,
        mut req: reqwest::RequestBuilder,
        token: &TokenSecret,
        path: &str,
        streaming: bool,
    ) -> Result<reqwest::Response, Error> {
        if let Some(r) = &self.request {
            req = r.apply(req);
        }
        let start = Instant::now();
        let observe = |failed: Option<&'static str>| {
            if let Some(o) = &self.observer {
                o(
                    method.as_str(),
                    &route_template(path),
                    start.elapsed(),
                    failed,
                );
            }
        };
        let req = req.header("x-auth-token", token.expose());
        let sent = match &self.local {
            Some(local) if !streaming => match req.build() {
                Ok(r) => local.answer(r).await.map_err(Error::Unreachable),
                Err(e) => Err(error::unreachable(e)),
            },
            _ => req.send().await.map_err(error::unreachable),
        };
        let resp = match sent {
            Ok(r) => r,
            Err(e) => {
                observe(Some("unreachable"));
                return Err(e);
            }
        };
        let status = resp.status();
        observe(observe::failure_kind(status.as_u16()));
        if status.is_success() {
            Ok(resp)
        } else {
            Err(error::of_answer(resp).await)
        }
    }
}

/// An accepted answer decoded from JSON (at most [`MAX_ANSWER`] bytes read).
async fn decode<T: DeserializeOwned>(resp: reqwest::Response) -> Result<T, Error> {
    let bytes = error::read_bounded(resp, MAX_ANSWER).await?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Decode(e.to_string()))
}

/// A query string (`?k=v&…`, values percent-encoded) of `pairs`; empty for none.
fn query_string<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let q: Vec<String> = pairs
        .into_iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect();
    if q.is_empty() {
        String::new()
    } else {
        format!("?{}", q.join("&"))
    }
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
#[cfg(test)]
mod tests_calls;
