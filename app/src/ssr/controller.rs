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

    /// `GET {path}?{query}` as the user behind `token`, decoded from JSON, with the list
    /// query extension's `X-Total-Count` when the controller applied the query (`None`: it
    /// answered everything, as a real Kubernikus does).
    pub async fn get_listed<T: serde::de::DeserializeOwned>(
        &self,
        token: &keystone::TokenSecret,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(T, Option<usize>), AppError> {
        let req = self.http.get(format!("{}{path}", self.base)).query(query);
        let resp = self.send(&reqwest::Method::GET, req, token, path).await?;
        let total = resp
            .headers()
            .get(kluster::listing::TOTAL_HEADER)
            .and_then(|v| v.to_str().ok()?.trim().parse().ok());
        let body = resp.json().await.map_err(|e| {
            tracing::error!(error = %e.without_url(), path, "controller answer not understood");
            AppError::Internal
        })?;
        Ok((body, total))
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
        let body = resp.json::<kluster::ApiError>().await.ok();
        let e = answer_error(status.as_u16(), body);
        if e == AppError::Internal {
            tracing::error!(
                status = status.as_u16(),
                path,
                "unexpected controller answer"
            );
        }
        Err(e)
    }
}

/// What the dashboard makes of an error answer (`status`, and its body when it is the API's
/// error body): by status, typed reason and named fields; the message is only shown, never
/// inspected. A real Kubernikus sends no reason or fields: its message is shown as it is.
pub fn answer_error(status: u16, body: Option<kluster::ApiError>) -> AppError {
    let body = body.unwrap_or_default();
    let fields = || {
        body.fields
            .iter()
            .cloned()
            .map(kluster::FieldError::from)
            .collect::<Vec<_>>()
    };
    match status {
        401 => AppError::SessionExpired,
        403 if body.is(&kluster::ErrorReason::TerminationProtected) => AppError::Forbidden(
            "This kluster has termination protection: turn it off (under Delete) before deleting it.".into(),
        ),
        403 => AppError::Forbidden(body.message),
        404 => AppError::NotFound(body.message),
        412 => AppError::Stale,
        400 | 409 | 422 if !body.fields.is_empty() => AppError::Invalid(fields()),
        400 | 409 | 422 => AppError::BadInput(body.message),
        s if s >= 500 => AppError::ControllerUnavailable,
        _ => AppError::Internal,
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

#[cfg(test)]
mod tests {
    use super::answer_error;
    use crate::error::AppError;
    use kluster::{ApiError, ErrorField, ErrorReason};

    fn body(code: i64, reason: Option<ErrorReason>, fields: &[(&str, &str)], m: &str) -> ApiError {
        ApiError {
            code,
            message: m.into(),
            reason,
            fields: fields
                .iter()
                .map(|(p, m)| ErrorField {
                    path: (*p).into(),
                    message: (*m).into(),
                })
                .collect(),
            ..Default::default()
        }
    }

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
    fn api_rule_violations_come_back_per_field_from_the_typed_body() {
        let b = body(
            422,
            Some(ErrorReason::Validation),
            &[
                ("name", "Too long."),
                ("spec.nodePools[0].size", "Too big: 200."),
            ],
            "name: Too long.; spec.nodePools[0].size: Too big: 200.",
        );
        let AppError::Invalid(e) = answer_error(422, Some(b)) else {
            panic!("per field")
        };
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].field, "spec.nodePools[0].size");
        assert_eq!(e[1].message, "Too big: 200.");
        // Without fields (a Kubernikus, or a rule about no field) the message is shown.
        let plain = body(422, None, &[], "Kluster is terminating");
        assert_eq!(
            answer_error(422, Some(plain)),
            AppError::BadInput("Kluster is terminating".into())
        );
    }

    #[test]
    fn clashes_and_protection_are_recognised_by_reason_not_by_words() {
        // Both name clashes (admission's and the store's) name the field.
        for m in [
            "A kluster named \"a\" already exists",
            "A kluster with this name already exists",
        ] {
            let b = body(409, Some(ErrorReason::NameTaken), &[("name", m)], m);
            assert_eq!(
                answer_error(409, Some(b)).for_field("name").as_deref(),
                Some(m)
            );
        }
        let cidr = body(
            409,
            Some(ErrorReason::CidrOverlap),
            &[("spec.clusterCIDR", "overlaps")],
            "overlaps",
        );
        assert!(answer_error(409, Some(cidr))
            .for_field("spec.clusterCIDR")
            .is_some());
        // A Kubernikus's clash, with words only, is shown as it is.
        let kubernikus = body(409, None, &[], "A kluster named \"a\" already exists");
        assert_eq!(
            answer_error(409, Some(kubernikus)),
            AppError::BadInput("A kluster named \"a\" already exists".into())
        );
        let protected = body(
            403,
            Some(ErrorReason::TerminationProtected),
            &[],
            "whatever words",
        );
        assert!(
            matches!(answer_error(403, Some(protected)), AppError::Forbidden(m) if m.contains("termination protection"))
        );
        let words = body(403, None, &[], "Termination protection enabled");
        assert_eq!(
            answer_error(403, Some(words)),
            AppError::Forbidden("Termination protection enabled".into())
        );
        assert_eq!(answer_error(401, None), AppError::SessionExpired);
        assert_eq!(answer_error(502, None), AppError::ControllerUnavailable);
        assert_eq!(answer_error(418, None), AppError::Internal);
    }
}
