//! The dashboard's client of the Kubernikus API: the same HTTP calls against the embedded
//! controller or a real Kubernikus, always with the session's Keystone token, the
//! request's `X-Request-Id` and the browser's address (`X-Forwarded-For`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::AppError;

/// Told about every controller call: method, route template (kluster names replaced by
/// `:name`), duration, and the kind of failure (`unreachable`, `client_error`,
/// `server_error`) if it failed (for metrics).
pub type ControllerObserver = dyn Fn(&str, &str, Duration, Option<&'static str>) + Send + Sync;

/// A Kubernikus API endpoint (base URL without a trailing slash).
#[derive(Clone)]
pub struct ControllerClient {
    base: String,
    http: reqwest::Client,
    observer: Option<Arc<ControllerObserver>>,
    /// The request this client acts for: its id and the browser's address.
    request: Option<(String, Option<std::net::IpAddr>)>,
}

impl std::fmt::Debug for ControllerClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerClient")
            .field("base", &self.base)
            .field("request", &self.request)
            .finish_non_exhaustive()
    }
}

/// The route template of a controller path: no query, kluster names as `:name`.
pub fn route_template(path: &str) -> String {
    let path = path.split('?').next().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').collect();
    segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let after_clusters = i > 0 && segments[i - 1] == "clusters";
            let after_debris = i > 0 && segments[i - 1] == "debris";
            if after_clusters || after_debris {
                ":name"
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

impl ControllerClient {
    /// A client for `base`, e.g. `http://127.0.0.1:41234` or `https://kubernikus.example.com`.
    pub fn new(base: &str) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(20))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
            http,
            observer: None,
            request: None,
        })
    }

    /// This client, telling `observer` about every call.
    pub fn with_observer(mut self, observer: Arc<ControllerObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// This client acting for one request: every call carries its id (`X-Request-Id`) and
    /// the browser's address (`X-Forwarded-For`, believed by a controller that trusts
    /// this dashboard).
    pub fn for_request(&self, id: &str, client: Option<std::net::IpAddr>) -> Self {
        let mut c = self.clone();
        c.request = Some((id.to_string(), client));
        c
    }

    /// `GET {path}` as the user behind `token`, decoded from JSON.
    pub async fn get<T: serde::de::DeserializeOwned>(
        &self,
        token: &keystone::TokenSecret,
        path: &str,
    ) -> Result<T, AppError> {
        let resp = self
            .send(
                &reqwest::Method::GET,
                self.http.get(format!("{}{path}", self.base)),
                token,
                path,
            )
            .await?;
        resp.json().await.map_err(|e| {
            tracing::error!(error = %e.without_url(), path, "controller answer not understood");
            AppError::Internal
        })
    }

    /// `POST`/`PUT` `body` as JSON to `path`; the answer's body is ignored.
    pub async fn write(
        &self,
        method: reqwest::Method,
        token: &keystone::TokenSecret,
        path: &str,
        body: Option<&impl serde::Serialize>,
    ) -> Result<(), AppError> {
        self.write_if(method, token, path, body, None).await
    }

    /// [`Self::write`] only while the resource is still at resource version `version`
    /// (`If-Match`; the controller answers 412 otherwise: [`AppError::Stale`]). `None` or
    /// an empty version (a Kubernikus that keeps none) writes unconditionally.
    pub async fn write_if(
        &self,
        method: reqwest::Method,
        token: &keystone::TokenSecret,
        path: &str,
        body: Option<&impl serde::Serialize>,
        version: Option<&str>,
    ) -> Result<(), AppError> {
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        if let Some(b) = body {
            req = req.json(b);
        }
        if let Some(v) = version.filter(|v| !v.is_empty()) {
            req = req.header("if-match", if_match(v)?);
        }
        self.send(&method, req, token, path).await.map(drop)
    }

    async fn send(
        &self,
        method: &reqwest::Method,
        mut req: reqwest::RequestBuilder,
        token: &keystone::TokenSecret,
        path: &str,
    ) -> Result<reqwest::Response, AppError> {
        if let Some((id, client)) = &self.request {
            req = req.header("x-request-id", id.as_str());
            if let Some(ip) = client {
                req = req.header("x-forwarded-for", ip.to_string());
            }
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
        let resp = req
            .header("x-auth-token", token.expose())
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| {
                observe(Some("unreachable"));
                tracing::warn!(error = %e.without_url(), "controller unreachable");
                AppError::ControllerUnavailable
            })?;
        let status = resp.status();
        observe(match status.as_u16() {
            s if s >= 500 => Some("server_error"),
            s if s >= 400 => Some("client_error"),
            _ => None,
        });
        if status.is_success() {
            return Ok(resp);
        }
        let message = resp
            .json::<kluster::ApiError>()
            .await
            .map(|e| e.message)
            .unwrap_or_default();
        Err(match status.as_u16() {
            401 => AppError::SessionExpired,
            403 => AppError::Forbidden(message),
            404 => AppError::NotFound(message),
            409 if message.starts_with("A kluster named") => {
                AppError::Invalid(vec![kluster::FieldError {
                    field: "name".into(),
                    message,
                }])
            }
            422 => match field_errors(&message) {
                Some(errs) => AppError::Invalid(errs),
                None => AppError::BadInput(message),
            },
            409 => AppError::BadInput(message),
            412 => AppError::Stale,
            s if s >= 500 => AppError::ControllerUnavailable,
            _ => {
                tracing::error!(
                    status = status.as_u16(),
                    message,
                    path,
                    "unexpected controller answer"
                );
                AppError::Internal
            }
        })
    }
}

/// Reads kluster `path` as the user, lets `change` edit its spec, and writes it back with
/// `PUT` (the controller applies its update rules and answers violations per field). With
/// `shown`, the resource version the user's page showed, the write goes through only while
/// the kluster is still at it ([`AppError::Stale`] otherwise); without, the version just
/// read guards the read-change-write against a change in between.
pub async fn update_spec(
    c: &ControllerClient,
    token: &keystone::TokenSecret,
    path: &str,
    shown: Option<&str>,
    change: impl FnOnce(&mut kluster::KlusterSpec) -> Result<(), AppError>,
) -> Result<(), AppError> {
    let mut k: kluster::Kluster = c.get(token, path).await?;
    let read = k.metadata.as_ref().map(|m| m.resource_version.clone());
    let version = shown.filter(|v| !v.is_empty()).map(str::to_string).or(read);
    change(&mut k.spec)?;
    k.status = Default::default();
    c.write_if(
        reqwest::Method::PUT,
        token,
        path,
        Some(&k),
        version.as_deref(),
    )
    .await
}

/// The `If-Match` value for resource version `v` (digits only: what the controller hands
/// out; anything else came from a tampered form).
fn if_match(v: &str) -> Result<String, AppError> {
    if v.len() > 20 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(AppError::BadInput(
            "The form's kluster version is not valid; reload the page and try again.".into(),
        ));
    }
    Ok(format!("\"{v}\""))
}

/// Splits a 422 message of the form `field: message; field: message` (what the controller
/// answers for rule violations) into field errors; a `; ` not followed by a field path
/// belongs to the message. `None` when the message is not of that form.
pub fn field_errors(message: &str) -> Option<Vec<kluster::FieldError>> {
    let field_of = |part: &str| {
        let (field, text) = part.split_once(": ")?;
        let is_path = !field.is_empty()
            && field
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._[]".contains(c));
        is_path.then(|| (field.to_string(), text.to_string()))
    };
    let mut out: Vec<kluster::FieldError> = Vec::new();
    for part in message.split("; ") {
        match (field_of(part), out.last_mut()) {
            (Some((field, message)), _) => out.push(kluster::FieldError { field, message }),
            (None, Some(last)) => {
                last.message.push_str("; ");
                last.message.push_str(part);
            }
            (None, None) => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn routes_name_no_kluster() {
        assert_eq!(
            super::route_template("/api/v1/clusters/prod-1/credentials?x=1"),
            "/api/v1/clusters/:name/credentials"
        );
        assert_eq!(
            super::route_template("/api/v1/events?last=200"),
            "/api/v1/events"
        );
    }

    #[test]
    fn api_rule_violations_split_into_fields() {
        let e =
            super::field_errors("name: Too long.; spec.nodePools[0].size: Too big: 200.").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].field, "spec.nodePools[0].size");
        assert_eq!(e[1].message, "Too big: 200.");
        assert!(super::field_errors("Kluster is terminating").is_none());
    }
}
