//! The dashboard's client of the Kubernikus API: the same HTTP calls against the embedded
//! controller or a real Kubernikus, always with the session's Keystone token.

use std::time::Duration;

use crate::error::AppError;

/// A Kubernikus API endpoint (base URL without a trailing slash).
#[derive(Clone, Debug)]
pub struct ControllerClient {
    base: String,
    http: reqwest::Client,
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
        })
    }

    /// `GET {path}` as the user behind `token`, decoded from JSON.
    pub async fn get<T: serde::de::DeserializeOwned>(
        &self,
        token: &keystone::TokenSecret,
        path: &str,
    ) -> Result<T, AppError> {
        let resp = self
            .send(self.http.get(format!("{}{path}", self.base)), token, path)
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
        let resp = self.send(req, token, path).await?;
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
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(b) = body {
            req = req.json(b);
        }
        self.send(req, token, path).await.map(drop)
    }

    async fn send(
        &self,
        req: reqwest::RequestBuilder,
        token: &keystone::TokenSecret,
        path: &str,
    ) -> Result<reqwest::Response, AppError> {
        let resp = req
            .header("x-auth-token", token.expose())
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| {
                tracing::warn!(error = %e.without_url(), "controller unreachable");
                AppError::ControllerUnavailable
            })?;
        let status = resp.status();
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
/// `PUT` (the controller applies its update rules and answers violations per field).
pub async fn update_spec(
    c: &ControllerClient,
    token: &keystone::TokenSecret,
    path: &str,
    change: impl FnOnce(&mut kluster::KlusterSpec) -> Result<(), AppError>,
) -> Result<(), AppError> {
    let mut k: kluster::Kluster = c.get(token, path).await?;
    change(&mut k.spec)?;
    k.status = Default::default();
    c.write(reqwest::Method::PUT, token, path, Some(&k)).await
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
    fn api_rule_violations_split_into_fields() {
        let e =
            super::field_errors("name: Too long.; spec.nodePools[0].size: Too big: 200.").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].field, "spec.nodePools[0].size");
        assert_eq!(e[1].message, "Too big: 200.");
        assert!(super::field_errors("Kluster is terminating").is_none());
    }
}
