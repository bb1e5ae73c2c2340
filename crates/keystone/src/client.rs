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
        let mut base = Url::parse(base).map_err(|e| Error::BadUrl(format!("{base:?}: {e}")))?;
        if base.cannot_be_a_base() {
            return Err(Error::BadUrl(format!("{base} cannot be a base URL")));
        }
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(15))
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

    async fn observed<T>(
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
mod tests {
    //! Status mapping and request shape, against a stub HTTP server on loopback.
    use super::*;
    use axum::{
        http::{HeaderMap, StatusCode as S},
        routing::{get, post},
        Json, Router,
    };

    const TOKEN: &str = r#"{"token":{"user":{"domain":{"id":"d","name":"demo"},"id":"u","name":"alice"},
        "project":{"domain":{"id":"d","name":"demo"},"id":"p","name":"demo"},
        "roles":[{"id":"r","name":"kubernetes_admin"}],"expires_at":"2030-01-01T00:00:00.000000Z"}}"#;

    async fn serve(router: Router) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        format!("http://{addr}/v3")
    }

    fn alice<'a>() -> PasswordAuth<'a> {
        PasswordAuth {
            user_name: "alice",
            password: "pw",
            user_domain: "demo",
            project: ProjectRef::Name {
                name: "demo",
                domain: "demo",
            },
        }
    }

    #[tokio::test]
    async fn password_auth_sends_scope_and_reads_subject_token() {
        let app = Router::new().route(
            "/v3/auth/tokens",
            post(|Json(b): Json<serde_json::Value>| async move {
                assert_eq!(b["auth"]["scope"]["project"]["name"], "demo");
                assert_eq!(
                    b["auth"]["identity"]["password"]["user"]["domain"]["name"],
                    "demo"
                );
                (S::CREATED, [("X-Subject-Token", "tok-1")], TOKEN)
            }),
        );
        let c = Client::new(&serve(app).await).unwrap();
        let t = c.password_auth(&alice()).await.unwrap();
        assert_eq!(t.secret.expose(), "tok-1");
        assert_eq!(t.roles, vec!["kubernetes_admin"]);
    }

    #[tokio::test]
    async fn wrong_password_maps_to_unauthorized() {
        let app = Router::new().route(
            "/v3/auth/tokens",
            post(|| async { (S::UNAUTHORIZED, r#"{"error":{"code":401,"message":"The request you have made requires authentication."}}"#) }),
        );
        let c = Client::new(&serve(app).await).unwrap();
        assert!(matches!(
            c.password_auth(&alice()).await,
            Err(Error::Unauthorized)
        ));
    }

    #[tokio::test]
    async fn revoked_token_validation_maps_to_not_found_and_forbidden_keeps_message() {
        let app = Router::new().route(
            "/v3/auth/tokens",
            get(|h: HeaderMap| async move {
                if h["X-Subject-Token"] == "gone" {
                    (
                        S::NOT_FOUND,
                        r#"{"error":{"code":404,"message":"Could not find token"}}"#,
                    )
                } else {
                    (
                        S::FORBIDDEN,
                        r#"{"error":{"code":403,"message":"You are not authorized"}}"#,
                    )
                }
            }),
        );
        let c = Client::new(&serve(app).await).unwrap();
        let me = TokenSecret::new("me");
        let err = c
            .validate(&me, &TokenSecret::new("gone"))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::NotFound));
        let err = c
            .validate(&me, &TokenSecret::new("other"))
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::Forbidden(ref m) if m == "You are not authorized"),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn server_errors_are_unavailable_and_refused_connections_unreachable() {
        let app = Router::new().route("/v3/", get(|| async { (S::BAD_GATEWAY, "upstream down") }));
        let c = Client::new(&serve(app).await).unwrap();
        let err = c.probe().await.unwrap_err();
        assert!(err.is_unavailable(), "{err:?}");

        // Bind and drop a listener to get a port nobody listens on.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let c = Client::new(&format!("http://127.0.0.1:{port}/v3")).unwrap();
        let err = c.password_auth(&alice()).await.unwrap_err();
        assert!(matches!(err, Error::Unreachable(_)), "{err:?}");
        assert!(err.is_unavailable());
        assert!(!err.to_string().contains("pw"));
    }

    #[tokio::test]
    async fn auth_projects_are_sorted_by_name() {
        let app = Router::new().route(
            "/v3/auth/projects",
            get(|| async {
                r#"{"projects":[{"id":"2","name":"staging","domain_id":"d"},{"id":"1","name":"demo","domain_id":"d"}]}"#
            }),
        );
        let c = Client::new(&serve(app).await).unwrap();
        let ps = c.auth_projects(&TokenSecret::new("t")).await.unwrap();
        let names: Vec<_> = ps.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["demo", "staging"]);
    }

    #[test]
    fn base_url_gets_a_trailing_slash_and_bad_urls_are_rejected() {
        let c = Client::new("http://ks.example/identity/v3").unwrap();
        assert_eq!(c.base_url().as_str(), "http://ks.example/identity/v3/");
        assert!(matches!(Client::new("not a url"), Err(Error::BadUrl(_))));
    }
}
