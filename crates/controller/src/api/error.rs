//! The API's one error type, answered as the swagger's `error` body (`code`, `message`).

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};

use crate::auth::AuthError;
use crate::store::StoreError;

/// A failed API call: an HTTP status and a message a person understands.
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// What went wrong.
    pub message: String,
}

impl ApiError {
    /// An error with this status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// 404 for a kluster that does not exist in the caller's project.
    pub fn not_found(name: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, format!("Kluster {name:?} not found"))
    }

    /// 422 for a request that breaks the schema.
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }
}

impl From<AuthError> for ApiError {
    fn from(e: AuthError) -> Self {
        let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::UNAUTHORIZED);
        Self::new(status, e.to_string())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict => Self::new(
                StatusCode::CONFLICT,
                "A kluster with this name already exists",
            ),
            StoreError::Unavailable(why) => {
                tracing::warn!(error = why, "the database cannot be reached");
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The controller's database cannot be reached right now; try again shortly",
                )
            }
            e => {
                tracing::error!(error = %e, "store failure");
                Self::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Internal error; it has been logged",
                )
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = kluster::ApiError {
            code: i64::from(self.status.as_u16()),
            message: self.message,
            help_url: None,
        };
        (self.status, Json(body)).into_response()
    }
}

/// 400 for a query string that does not parse, with the parser's words.
pub(super) fn bad_query(e: axum::extract::rejection::QueryRejection) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        format!("Bad query: {}", e.body_text()),
    )
}
