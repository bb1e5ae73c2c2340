//! The API's one error type, answered as the swagger's `error` body (`code`, `message`)
//! with the typed extensions `reason` (always) and `fields` (when the error names fields).

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use kluster::{ErrorField, ErrorReason, ValidationErrors};

use crate::auth::AuthError;
use crate::store::StoreError;

/// A failed API call: an HTTP status, a message a person understands, why (typed) and the
/// request fields at fault.
#[derive(Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// What went wrong.
    pub message: String,
    /// Why, for clients that act on it (the status's general reason unless a more
    /// specific one is set).
    pub reason: Option<ErrorReason>,
    /// The request fields at fault, each with its message.
    pub fields: Vec<ErrorField>,
}

impl ApiError {
    /// An error with this status and message, and the status's general reason.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            reason: ErrorReason::of_status(status.as_u16()),
            fields: Vec::new(),
        }
    }

    /// The same error with a more specific reason.
    pub fn because(mut self, reason: ErrorReason) -> Self {
        self.reason = Some(reason);
        self
    }

    /// The same error naming field `path` (a JSON path) with `message`.
    pub fn on_field(mut self, path: impl Into<String>, message: impl Into<String>) -> Self {
        self.fields.push(ErrorField {
            path: path.into(),
            message: message.into(),
        });
        self
    }

    /// 404 for a kluster that does not exist in the caller's project.
    pub fn not_found(name: &str) -> Self {
        Self::new(StatusCode::NOT_FOUND, format!("Kluster {name:?} not found"))
    }

    /// 422 for a request that breaks the schema (no field named).
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// 422 for rule violations: every field with its message (the message lists them
    /// all as `field: message; …` for people and for clients without the extension).
    pub fn invalid(errs: ValidationErrors) -> Self {
        let mut e = Self::unprocessable(errs.to_string());
        e.fields = errs.0.into_iter().map(ErrorField::from).collect();
        e
    }

    /// 409: a kluster named `name` exists already in the project.
    pub fn name_taken(name: &str) -> Self {
        let message = format!("A kluster named {name:?} already exists");
        Self::new(StatusCode::CONFLICT, message.clone())
            .because(ErrorReason::NameTaken)
            .on_field("name", message)
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
            // Another request took the name between admission and the insert.
            StoreError::Conflict => {
                let message = "A kluster with this name already exists";
                Self::new(StatusCode::CONFLICT, message)
                    .because(ErrorReason::NameTaken)
                    .on_field("name", message)
            }
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
        let body = kluster::ErrorBody {
            code: i64::from(self.status.as_u16()),
            message: self.message,
            help_url: None,
            reason: self.reason,
            fields: self.fields,
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

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(e: ApiError) -> (u16, serde_json::Value) {
        let r = e.into_response();
        let status = r.status().as_u16();
        let bytes = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn every_answer_carries_its_reason_and_names_fields_when_it_can() {
        let (s, v) = body(ApiError::not_found("x")).await;
        assert_eq!((s, v["reason"].as_str()), (404, Some("NotFound")));
        assert!(v.get("fields").is_none(), "no empty fields: {v}");
        let (s, v) = body(StoreError::Conflict.into()).await;
        assert_eq!((s, v["reason"].as_str()), (409, Some("NameTaken")));
        assert_eq!(v["fields"][0]["path"], "name");
        let mut errs = ValidationErrors::default();
        errs.0.push(kluster::FieldError {
            field: "spec.nodePools[0].size".into(),
            message: "Too big.".into(),
        });
        let (s, v) = body(ApiError::invalid(errs)).await;
        assert_eq!((s, v["reason"].as_str()), (422, Some("Validation")));
        assert_eq!(v["message"], "spec.nodePools[0].size: Too big.");
        assert_eq!(v["fields"][0]["path"], "spec.nodePools[0].size");
        assert_eq!(v["fields"][0]["message"], "Too big.");
        let (s, v) = body(AuthError::Unavailable.into()).await;
        assert_eq!((s, v["reason"].as_str()), (503, Some("Unavailable")));
    }
}
