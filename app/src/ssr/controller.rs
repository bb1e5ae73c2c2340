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
            .http
            .get(format!("{}{path}", self.base))
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
            return resp.json().await.map_err(|e| {
                tracing::error!(error = %e.without_url(), path, "controller answer not understood");
                AppError::Internal
            });
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
            409 | 422 => AppError::BadInput(message),
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
