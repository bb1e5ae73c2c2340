//! Calls to OpenStack services: the project's token and endpoint, a timeout on every call,
//! GETs tried again with backoff (exponential, with jitter) on connection errors and 5xx,
//! every method tried again when the cloud says it is rate limited (429, or 503 with
//! `Retry-After`: the call was not processed), honouring `Retry-After` up to
//! [`LONGEST_RETRY_AFTER`](super::retries::LONGEST_RETRY_AFTER); at most [`CALLS_PER_CLOUD`] calls at once, [`CALLS_PER_PROJECT`]
//! for one project; one new sign-in (same scope) on a 401, OpenStack's error bodies turned
//! into [`CloudError`]s with the cloud's words (list pagination: [`super::pages`]). Identical GETs asked
//! at the same time share one request. Tokens travel in headers marked sensitive and are
//! never logged.

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::auth::{Scope, Session, Sessions};
use super::catalog::Service;
use super::config::OpenStackConfig;
use super::failure::{answer_error, secret_header, transport};
use super::retries::{
    again, jitter, retry_after, Again, LONGEST_RETRY_AFTER, RATE_LIMITED_ATTEMPTS,
};
use crate::cloud::CloudError;
use crate::single_flight::SingleFlight;

/// Calls in flight to the cloud at once, all projects together.
pub const CALLS_PER_CLOUD: usize = 64;

/// Calls in flight to the cloud at once for one project.
pub const CALLS_PER_PROJECT: usize = 16;

/// A query string's pairs.
pub type Query = Vec<(String, String)>;

/// A service's final answer (after retries): its status and body.
#[derive(Clone, Debug)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Body bytes.
    pub body: Vec<u8>,
    /// The wait the service asked for (`Retry-After` in seconds), if any.
    pub retry_after: Option<std::time::Duration>,
}

impl Reply {
    /// The answer when it succeeded, else the cloud's words as an error.
    pub fn ok(self) -> Result<Reply, CloudError> {
        if (200..300).contains(&self.status) {
            Ok(self)
        } else {
            Err(answer_error(self.status, &self.body))
        }
    }

    /// The body as `T`.
    /// An HTML page (a portal, a proxy's page) is named by its title; a truncated or
    /// otherwise broken body by what is wrong with it and its length.
    pub fn json<T: DeserializeOwned>(&self, service: Service) -> Result<T, CloudError> {
        serde_json::from_slice(&self.body).map_err(|e| {
            let label = service.label();
            let status = self.status;
            match super::failure::html_title(&self.body) {
                Some(title) => CloudError::new(format!(
                    "{label} answered an HTML page (\"{title}\", HTTP {status}), not JSON: is its catalog endpoint right?"
                )),
                None => CloudError::new(format!(
                    "{label} sent a response this provider cannot read ({} bytes, HTTP {status}): {e}",
                    self.body.len()
                )),
            }
        })
    }
}

/// One call: service, method, path (relative to the endpoint), query and JSON body.
pub(super) type Call<'a> = (
    Service,
    Method,
    &'a str,
    &'a [(String, String)],
    Option<&'a Value>,
);

/// What a GET asks: project, service, path and query.
type GetKey = (String, Service, String, Query);

/// The HTTP side of the provider: sessions per project and one connection pool.
#[derive(Debug)]
pub struct Api {
    http: reqwest::Client,
    sessions: Sessions,
    config: Arc<OpenStackConfig>,
    /// GETs on their way (a project pass asks Nova's server list for its servers and for
    /// the routes' owners at once).
    gets: SingleFlight<GetKey, Result<Reply, CloudError>>,
    /// Calls in flight, all projects ([`CALLS_PER_CLOUD`]).
    in_flight: Arc<Semaphore>,
    /// Calls in flight per project ([`CALLS_PER_PROJECT`]); an entry nobody holds is
    /// dropped when the map grows.
    per_project: Mutex<HashMap<String, Arc<Semaphore>>>,
    /// Nova's microversion, once negotiated (`super::microversion`).
    pub(super) nova_version: std::sync::OnceLock<String>,
}

impl Api {
    /// A client for `config` (validated first).
    pub fn new(config: OpenStackConfig) -> Result<Self, CloudError> {
        config.validate()?;
        let config = Arc::new(config);
        let http = keystone::trust::client_builder(&config.client_options())
            .map_err(|e| CloudError::new(format!("OpenStack settings: {e}")))?
            .build()
            .map_err(|e| CloudError::new(format!("HTTP client: {}", e.without_url())))?;
        let sessions = Sessions::new(config.clone(), http.clone())?;
        Ok(Api {
            http,
            sessions,
            config,
            gets: SingleFlight::default(),
            in_flight: Arc::new(Semaphore::new(CALLS_PER_CLOUD)),
            per_project: Mutex::new(HashMap::new()),
            nova_version: std::sync::OnceLock::new(),
        })
    }

    /// Waits for room for one more call of `scope`'s project and of the whole cloud.
    async fn room(&self, scope: &Scope) -> [Option<OwnedSemaphorePermit>; 2] {
        let project = match scope {
            Scope::Project(p) | Scope::User { project: p, .. } => Some(p.clone()),
            Scope::Service => None,
        };
        let mine = project.map(|p| {
            let mut map = self.per_project.lock().unwrap_or_else(|e| e.into_inner());
            if map.len() > 4 * CALLS_PER_CLOUD {
                map.retain(|_, s| s.available_permits() < CALLS_PER_PROJECT);
            }
            map.entry(p)
                .or_insert_with(|| Arc::new(Semaphore::new(CALLS_PER_PROJECT)))
                .clone()
        });
        // Never closed, so acquiring cannot fail; a failure would only mean no limit.
        let project = match mine {
            Some(s) => s.acquire_owned().await.ok(),
            None => None,
        };
        [project, self.in_flight.clone().acquire_owned().await.ok()]
    }

    /// The settings.
    pub fn config(&self) -> &OpenStackConfig {
        &self.config
    }

    /// The scope's current session (signing in if needed).
    pub async fn session(&self, scope: &Scope) -> Result<Arc<Session>, CloudError> {
        self.sessions.get(scope).await
    }

    /// Sends a call for `project` to `service` at `path` (relative to the endpoint's
    /// versioned base) and returns its final answer, whatever the status. A 401 leads to
    /// one new sign-in with the same scope and one more try; a GET is tried again on
    /// connection errors and 5xx, up to the configured attempts; any call the cloud rate
    /// limits, up to [`RATE_LIMITED_ATTEMPTS`](super::retries::RATE_LIMITED_ATTEMPTS).
    pub async fn send(
        &self,
        project: &str,
        service: Service,
        method: Method,
        path: &str,
        query: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<Reply, CloudError> {
        let scope = Scope::Project(project.to_string());
        self.send_as(&scope, service, method, path, query, body)
            .await
    }

    /// [`Api::send`] with the token of `scope` (e.g. a kluster's own user).
    pub async fn send_as(
        &self,
        scope: &Scope,
        service: Service,
        method: Method,
        path: &str,
        query: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<Reply, CloudError> {
        let version = match service {
            Service::Compute => Some(self.nova_microversion(scope).await?),
            _ => None,
        };
        let call = (service, method, path, query, body);
        self.send_with(scope, call, version.as_deref()).await
    }

    /// [`Api::send_as`] with Nova's microversion given (`None`: no version header, as the
    /// version document is asked).
    pub(super) async fn send_with(
        &self,
        scope: &Scope,
        (service, method, path, query, body): Call<'_>,
        microversion: Option<&str>,
    ) -> Result<Reply, CloudError> {
        let mut session = self.sessions.get(scope).await?;
        let idempotent = method == Method::GET;
        let (mut attempt, mut renewed) = (0u32, false);
        loop {
            attempt += 1;
            let result = {
                let _room = self.room(scope).await;
                let call = (service, method.clone(), path, query, body);
                self.once(&session, call, microversion).await
            };
            if matches!(&result, Ok(r) if r.status == 401) && !renewed {
                renewed = true;
                attempt -= 1;
                session = self.sessions.renew(scope, &session).await?;
                continue;
            }
            let answer = result.as_ref().ok().map(|r| (r.status, r.retry_after));
            let wait = match again(answer, idempotent) {
                Some(Again::Failed) if attempt < self.config.attempts => {
                    jitter(self.config.backoff(attempt))
                }
                Some(Again::Limited(after))
                    if attempt < self.config.attempts.max(RATE_LIMITED_ATTEMPTS) =>
                {
                    match after {
                        Some(a) => a.min(LONGEST_RETRY_AFTER),
                        None => jitter(self.config.backoff(attempt)),
                    }
                }
                _ => return result,
            };
            tracing::debug!(
                service = service.label(),
                path,
                attempt,
                wait_ms = wait.as_millis() as u64,
                "OpenStack call failed or was rate limited; trying again"
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// One try with `session`'s token.
    async fn once(
        &self,
        session: &Session,
        (service, method, path, query, body): Call<'_>,
        microversion: Option<&str>,
    ) -> Result<Reply, CloudError> {
        let c = &self.config;
        let base = match service {
            Service::Identity => url::Url::parse(&format!("{}/", c.auth_url.trim_end_matches('/')))
                .map_err(|e| CloudError::new(format!("Keystone URL: {e}")))?,
            _ => session.catalog.endpoint(service, &c.region, c.interface)?,
        };
        let mut url = base
            .join(path)
            .map_err(|e| CloudError::new(format!("{} path {path:?}: {e}", service.label())))?;
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        let mut req = self
            .http
            .request(method, url)
            .header("X-Auth-Token", secret_header(&session.token)?)
            .header("Accept", "application/json");
        if let Some(v) = microversion {
            req = req
                .header("OpenStack-API-Version", format!("compute {v}"))
                .header("X-OpenStack-Nova-API-Version", v);
        }
        if let Some(body) = body {
            req = req.json(body);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| transport(service.label(), &e, c.timeout))?;
        let status = resp.status().as_u16();
        let retry_after = retry_after(
            resp.headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok()),
        );
        let body = resp
            .bytes()
            .await
            .map_err(|e| transport(service.label(), &e, c.timeout))?;
        Ok(Reply {
            status,
            body: body.to_vec(),
            retry_after,
        })
    }

    /// GET that must succeed, as `T`.
    pub async fn get<T: DeserializeOwned>(
        &self,
        project: &str,
        service: Service,
        path: &str,
        query: &[(String, String)],
    ) -> Result<T, CloudError> {
        self.shared_get(project, service, path, query)
            .await?
            .ok()?
            .json(service)
    }

    /// A GET's answer; the same GET asked while one is on its way waits for that one
    /// instead of sending another. Later askers ask anew, so no answer is older than the
    /// question.
    async fn shared_get(
        &self,
        project: &str,
        service: Service,
        path: &str,
        query: &[(String, String)],
    ) -> Result<Reply, CloudError> {
        let key: GetKey = (project.into(), service, path.into(), query.to_vec());
        self.gets
            .run(key, || {
                self.send(project, service, Method::GET, path, query, None)
            })
            .await
    }

    /// DELETE where 404 means it is gone already.
    pub async fn delete(
        &self,
        project: &str,
        service: Service,
        path: &str,
        query: &[(String, String)],
    ) -> Result<(), CloudError> {
        let reply = self
            .send(project, service, Method::DELETE, path, query, None)
            .await?;
        if reply.status == 404 {
            return Ok(());
        }
        reply.ok().map(drop)
    }
}
