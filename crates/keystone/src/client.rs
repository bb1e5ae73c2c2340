//! The HTTP client: one method per Keystone call Mission Control makes.

use std::time::Duration;

use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::json;
use url::Url;

use crate::model::wire;
use crate::observe::{Observer, ObserverFn};
use crate::{Error, Project, Token, TokenSecret};

const SUBJECT_TOKEN: &str = "X-Subject-Token";
pub(crate) const AUTH_TOKEN: &str = "X-Auth-Token";

/// Password credentials and the project to scope the token to. `Debug` hides the password.
#[derive(Clone)]
pub struct PasswordAuth<'a> {
    /// User name (unique within the user's domain).
    pub user_name: &'a str,
    /// The user's password; never logged.
    pub password: &'a str,
    /// Name of the user's domain.
    pub user_domain: &'a str,
    /// The project to scope to.
    pub project: ProjectRef<'a>,
}

impl std::fmt::Debug for PasswordAuth<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordAuth")
            .field("user_name", &self.user_name)
            .field("password", &"<redacted>")
            .field("user_domain", &self.user_domain)
            .field("project", &self.project)
            .finish()
    }
}

/// How a project is named in a scope request.
#[derive(Clone, Copy, Debug)]
pub enum ProjectRef<'a> {
    /// By id.
    Id(&'a str),
    /// By name within a domain (by name).
    Name {
        /// Project name.
        name: &'a str,
        /// Name of the project's domain.
        domain: &'a str,
    },
}

impl ProjectRef<'_> {
    fn to_json(self) -> serde_json::Value {
        match self {
            ProjectRef::Id(id) => json!({ "id": id }),
            ProjectRef::Name { name, domain } => {
                json!({ "name": name, "domain": { "name": domain } })
            }
        }
    }
}

/// A Keystone v3 client bound to one identity endpoint (e.g. `http://127.0.0.1:5000/v3`).
#[derive(Clone, Debug)]
pub struct Client {
    base: Url,
    http: reqwest::Client,
    observer: Observer,
}

impl Client {
    /// Creates a client for the v3 endpoint at `base` with short connect and request timeouts.
    pub fn new(base: &str) -> Result<Self, Error> {
        Self::with_options(base, &crate::ClientOptions::default())
    }

    /// A client for `base` with `options`' timeouts and trusted CAs.
    pub fn with_options(base: &str, options: &crate::ClientOptions) -> Result<Self, Error> {
        let mut base = Url::parse(base).map_err(|e| Error::BadUrl(format!("{base:?}: {e}")))?;
        if base.cannot_be_a_base() {
            return Err(Error::BadUrl(format!("{base} cannot be a base URL")));
        }
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let http = crate::trust::client_builder(options)
            .map_err(Error::BadUrl)?
            .build()
            .map_err(Error::from_transport)?;
        Ok(Self {
            base,
            http,
            observer: Observer::default(),
        })
    }

    /// This client, telling `observer` about every call (see [`ObserverFn`]).
    pub fn with_observer(mut self, observer: std::sync::Arc<ObserverFn>) -> Self {
        self.observer = Observer(Some(observer));
        self
    }

    pub(crate) async fn observed<T>(
        &self,
        operation: &'static str,
        call: impl std::future::Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        self.observer.observed(operation, call).await
    }

    /// The identity endpoint this client talks to.
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    pub(crate) fn request(&self, method: Method, path: &str) -> Result<RequestBuilder, Error> {
        let url = self
            .base
            .join(path)
            .map_err(|e| Error::BadUrl(format!("{path}: {e}")))?;
        Ok(self.http.request(method, url))
    }

    /// Issues a project-scoped token for a user name and password (`POST /v3/auth/tokens`).
    pub async fn password_auth(&self, auth: &PasswordAuth<'_>) -> Result<Token, Error> {
        self.observed("password_auth", async {
            let body = json!({ "auth": {
                "identity": { "methods": ["password"], "password": { "user": {
                    "name": auth.user_name,
                    "domain": { "name": auth.user_domain },
                    "password": auth.password,
                }}},
                "scope": { "project": auth.project.to_json() },
            }});
            self.issue(body).await
        })
        .await
    }

    /// Exchanges a token for one scoped to another project (`POST /v3/auth/tokens`, method
    /// `token`). The old token stays valid until revoked.
    pub async fn rescope(
        &self,
        token: &TokenSecret,
        project: ProjectRef<'_>,
    ) -> Result<Token, Error> {
        self.observed("rescope", async {
            let body = json!({ "auth": {
                "identity": { "methods": ["token"], "token": { "id": token.expose() } },
                "scope": { "project": project.to_json() },
            }});
            self.issue(body).await
        })
        .await
    }

    pub(crate) async fn issue(&self, body: serde_json::Value) -> Result<Token, Error> {
        let resp = self
            .request(Method::POST, "auth/tokens?nocatalog")?
            .json(&body)
            .send()
            .await
            .map_err(Error::from_transport)?;
        let resp = check(resp).await?;
        token_from(resp, None).await
    }

    /// Validates `subject` with the rights of `auth` (`GET /v3/auth/tokens`). A token may
    /// validate itself; validating others needs a service or admin role.
    pub async fn validate(
        &self,
        auth: &TokenSecret,
        subject: &TokenSecret,
    ) -> Result<Token, Error> {
        self.observed("validate", async {
            let resp = self
                .request(Method::GET, "auth/tokens?nocatalog")?
                .header(AUTH_TOKEN, auth.expose())
                .header(SUBJECT_TOKEN, subject.expose())
                .send()
                .await
                .map_err(Error::from_transport)?;
            let resp = check(resp).await?;
            // The subject is the token validated; Keystone echoes it in X-Subject-Token.
            token_from(resp, Some(subject)).await
        })
        .await
    }

    /// Revokes `subject` (`DELETE /v3/auth/tokens`); a token may revoke itself.
    pub async fn revoke(&self, auth: &TokenSecret, subject: &TokenSecret) -> Result<(), Error> {
        self.observed("revoke", async {
            let resp = self
                .request(Method::DELETE, "auth/tokens")?
                .header(AUTH_TOKEN, auth.expose())
                .header(SUBJECT_TOKEN, subject.expose())
                .send()
                .await
                .map_err(Error::from_transport)?;
            check(resp).await.map(drop)
        })
        .await
    }

    /// Lists the projects the token's user can scope to (`GET /v3/auth/projects`).
    /// Keystone gives only the domain id here, so `domain.name` is empty.
    pub async fn auth_projects(&self, token: &TokenSecret) -> Result<Vec<Project>, Error> {
        self.observed("auth_projects", async {
            let resp = self
                .request(Method::GET, "auth/projects")?
                .header(AUTH_TOKEN, token.expose())
                .send()
                .await
                .map_err(Error::from_transport)?;
            let body: wire::ProjectsBody = check(resp)
                .await?
                .json()
                .await
                .map_err(|e| Error::Decode(e.without_url().to_string()))?;
            let mut projects: Vec<Project> = body
                .projects
                .into_iter()
                .map(|p| Project {
                    id: p.id,
                    name: p.name,
                    domain: crate::Domain {
                        id: p.domain_id,
                        name: String::new(),
                    },
                })
                .collect();
            projects.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
            Ok(projects)
        })
        .await
    }

    /// Checks that the identity endpoint answers (`GET /v3`), for readiness probes.
    pub async fn probe(&self) -> Result<(), Error> {
        self.observed("probe", async {
            let resp = self
                .request(Method::GET, "")?
                .timeout(Duration::from_secs(3))
                .send()
                .await
                .map_err(Error::from_transport)?;
            check(resp).await.map(drop)
        })
        .await
    }
}

/// Turns a non-success status into a typed error carrying Keystone's message.
pub(crate) async fn check(resp: Response) -> Result<Response, Error> {
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    let text = resp.text().await.unwrap_or_default();
    let message = serde_json::from_str::<wire::ErrorBody>(&text)
        .map(|b| b.error.message)
        .unwrap_or_else(|_| text.chars().take(200).collect());
    Err(match status {
        StatusCode::UNAUTHORIZED => Error::Unauthorized,
        StatusCode::FORBIDDEN => Error::Forbidden(message),
        StatusCode::NOT_FOUND => Error::NotFound,
        _ => Error::Unexpected {
            status: status.as_u16(),
            message,
        },
    })
}

/// Reads a token body; the secret comes from `X-Subject-Token`, or is `known` (validation).
async fn token_from(resp: Response, known: Option<&TokenSecret>) -> Result<Token, Error> {
    let secret = resp
        .headers()
        .get(SUBJECT_TOKEN)
        .and_then(|v| v.to_str().ok())
        .map(TokenSecret::new)
        .or_else(|| known.cloned())
        .ok_or_else(|| Error::Decode("response has no X-Subject-Token header".into()))?;
    let body = resp.bytes().await.map_err(Error::from_transport)?;
    Token::from_body(secret, &body)
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
