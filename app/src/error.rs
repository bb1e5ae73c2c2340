//! The one error type of every server function, with the sentence a person reads.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

/// What a server function can fail with. `Display` is the message shown in the UI; none
/// of the variants ever carries a token or password.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(into = "Wire", from = "Wire")]
pub enum AppError {
    /// No session: the user has to sign in.
    #[error("Please sign in.")]
    NotSignedIn,
    /// The session or its Keystone token expired or was revoked.
    #[error("Your session has ended (expired or revoked). Please sign in again.")]
    SessionExpired,
    /// Keystone rejected the user name / password / domain / project combination.
    #[error("Invalid user name or password")]
    InvalidCredentials,
    /// Keystone rejected the application credential (wrong id or secret, deleted, expired).
    #[error("The application credential was not accepted: check its id and secret (it may have been deleted or have expired).")]
    InvalidAppCredential,
    /// Too many failed sign-ins for this client or user name.
    #[error("Too many failed sign-in attempts. Try again in {retry_after_secs} seconds.")]
    RateLimited {
        /// Seconds until the next attempt is allowed.
        retry_after_secs: u64,
    },
    /// Keystone cannot be reached or answers with a server error.
    #[error("The identity service (Keystone) cannot be reached right now. Please try again in a moment.")]
    KeystoneUnavailable,
    /// The Kubernikus API (controller) cannot be reached or failed.
    #[error("The Kubernikus service cannot be reached right now. Please try again in a moment.")]
    ControllerUnavailable,
    /// The user may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// What the request names does not exist (or is not visible to the user).
    #[error("{0}")]
    NotFound(String),
    /// The request itself is malformed; the message says what is wrong.
    #[error("{0}")]
    BadInput(String),
    /// Form fields break the API's rules; each error names its field (a JSON path).
    #[error("Please correct the marked fields.")]
    Invalid(Vec<kluster::FieldError>),
    /// Someone else changed the kluster since the page showed it (the controller's 412 to
    /// an `If-Match` of the version shown); nothing was changed.
    #[error("{msg}", msg = STALE)]
    Stale,
    /// An unexpected fault on the server; details are in the server log only.
    #[error("Something went wrong on our side. Please try again.")]
    Internal,
    /// The browser could not reach the Mission Control server.
    #[error("Could not reach the Mission Control server. Check your connection and try again.")]
    Transport,
}

/// What the user reads when their change met a kluster someone else changed meanwhile.
pub const STALE: &str = "Someone else changed this kluster since the page showed it, so your change was not made. The page shows its current state now: check it and make your change again if it is still needed.";

impl AppError {
    /// The message for one field (`Invalid` only).
    pub fn for_field(&self, field: &str) -> Option<String> {
        match self {
            AppError::Invalid(errs) => errs
                .iter()
                .find(|e| e.field == field)
                .map(|e| e.message.clone()),
            _ => None,
        }
    }

    /// A stable code for URLs (the no-JavaScript path carries errors in the query string).
    pub fn code(&self) -> &'static str {
        match self {
            AppError::NotSignedIn => "not_signed_in",
            AppError::SessionExpired => "session_expired",
            AppError::InvalidCredentials => "invalid_credentials",
            AppError::InvalidAppCredential => "invalid_app_credential",
            AppError::RateLimited { .. } => "rate_limited",
            AppError::KeystoneUnavailable => "keystone_unavailable",
            AppError::ControllerUnavailable => "controller_unavailable",
            AppError::Forbidden(_) => "forbidden",
            AppError::NotFound(_) => "not_found",
            AppError::BadInput(_) => "bad_input",
            AppError::Invalid(_) => "invalid",
            AppError::Internal => "internal",
            AppError::Stale => "stale",
            AppError::Transport => "transport",
        }
    }

    /// The message for a code from [`AppError::code`]; unknown codes give `None`, so a
    /// crafted URL cannot put arbitrary text on the page.
    pub fn message_for_code(code: &str) -> Option<&'static str> {
        Some(match code {
            "not_signed_in" => "Please sign in.",
            "session_expired" => "Your session has ended (expired or revoked). Please sign in again.",
            "invalid_credentials" => "Invalid user name or password",
            "invalid_app_credential" => "The application credential was not accepted: check its id and secret (it may have been deleted or have expired).",
            "rate_limited" => "Too many failed sign-in attempts. Wait a few minutes and try again.",
            "keystone_unavailable" => {
                "The identity service (Keystone) cannot be reached right now. Please try again in a moment."
            }
            "bad_input" => "Please fill in every field.",
            "stale" => STALE,
            "internal" => "Something went wrong on our side. Please try again.",
            "signed_out" => "You have signed out.",
            "invalid" => {
                "That was not accepted: to delete, type the kluster's name exactly; sizes are whole numbers from 0 to 127."
            }
            "forbidden" => "You are not allowed to do that in this project (it needs the kubernetes_admin role, and no termination protection).",
            "controller_unavailable" => {
                "The Kubernikus service cannot be reached right now. Please try again in a moment."
            }
            _ => return None,
        })
    }

    /// The HTTP status the server answers with for this error.
    pub fn status(&self) -> u16 {
        match self {
            AppError::NotSignedIn
            | AppError::SessionExpired
            | AppError::InvalidCredentials
            | AppError::InvalidAppCredential => 401,
            AppError::RateLimited { .. } => 429,
            AppError::KeystoneUnavailable | AppError::ControllerUnavailable => 503,
            AppError::Forbidden(_) => 403,
            AppError::NotFound(_) => 404,
            AppError::BadInput(_) => 400,
            AppError::Invalid(_) => 422,
            AppError::Stale => 412,
            AppError::Internal | AppError::Transport => 500,
        }
    }
}

/// An [`AppError`] as sent to the browser: its [`code`](AppError::code) and what the
/// variant carries, e.g. `{"code":"forbidden","text":"…"}`. (serde's form of a
/// 15-variant enum took the browser's first load about 11 KB of WASM to read.)
#[derive(Serialize, Deserialize)]
struct Wire {
    code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_after_secs: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    fields: Vec<kluster::FieldError>,
}

impl From<AppError> for Wire {
    fn from(e: AppError) -> Self {
        let code = e.code().to_string();
        let (mut text, mut retry_after_secs, mut fields) = (None, None, Vec::new());
        match e {
            AppError::RateLimited {
                retry_after_secs: s,
            } => retry_after_secs = Some(s),
            AppError::Forbidden(m) | AppError::NotFound(m) | AppError::BadInput(m) => {
                text = Some(m)
            }
            AppError::Invalid(errs) => fields = errs,
            _ => {}
        }
        Wire {
            code,
            text,
            retry_after_secs,
            fields,
        }
    }
}

impl From<Wire> for AppError {
    /// An unknown code reads as [`AppError::Internal`].
    fn from(w: Wire) -> Self {
        let text = || w.text.clone().unwrap_or_default();
        match w.code.as_str() {
            "not_signed_in" => AppError::NotSignedIn,
            "session_expired" => AppError::SessionExpired,
            "invalid_credentials" => AppError::InvalidCredentials,
            "invalid_app_credential" => AppError::InvalidAppCredential,
            "rate_limited" => AppError::RateLimited {
                retry_after_secs: w.retry_after_secs.unwrap_or_default(),
            },
            "keystone_unavailable" => AppError::KeystoneUnavailable,
            "controller_unavailable" => AppError::ControllerUnavailable,
            "forbidden" => AppError::Forbidden(text()),
            "not_found" => AppError::NotFound(text()),
            "bad_input" => AppError::BadInput(text()),
            "invalid" => AppError::Invalid(w.fields),
            "stale" => AppError::Stale,
            "transport" => AppError::Transport,
            _ => AppError::Internal,
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            ServerFnErrorErr::Request(_) => AppError::Transport,
            ServerFnErrorErr::Args(m) => {
                undecoded(AppError::BadInput(format!("The form data is invalid: {m}")))
            }
            ServerFnErrorErr::MissingArg(m) => {
                undecoded(AppError::BadInput(format!("Missing field: {m}")))
            }
            _ => AppError::Internal,
        }
    }
}

/// Records `err`'s HTTP status (and `Retry-After`) on the response and returns it, so a
/// server function can end with `Err(fail(e))`.
#[cfg(feature = "ssr")]
pub fn fail(err: AppError) -> AppError {
    use leptos::prelude::use_context;
    use leptos_axum::ResponseOptions;
    if let Some(res) = use_context::<ResponseOptions>() {
        if let Ok(status) = http::StatusCode::from_u16(err.status()) {
            res.set_status(status);
        }
        if let AppError::RateLimited { retry_after_secs } = &err {
            if let Ok(v) = http::HeaderValue::from_str(&retry_after_secs.to_string()) {
                res.insert_header(http::header::RETRY_AFTER, v);
            }
        }
    }
    err
}

/// Input a server function could not decode answers 400 (its body never ran, so nothing else
/// sets the status, and server_fn's own would be 500).
#[cfg(feature = "ssr")]
fn undecoded(err: AppError) -> AppError {
    fail(err)
}

/// In the browser the error is only read.
#[cfg(not(feature = "ssr"))]
fn undecoded(err: AppError) -> AppError {
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_maps_back_to_its_message() {
        for e in [
            AppError::SessionExpired,
            AppError::InvalidCredentials,
            AppError::KeystoneUnavailable,
            AppError::NotSignedIn,
            AppError::Internal,
            AppError::Stale,
            AppError::InvalidAppCredential,
        ] {
            assert_eq!(
                AppError::message_for_code(e.code()),
                Some(e.to_string().as_str())
            );
        }
        assert_eq!(AppError::message_for_code("<script>"), None);
    }

    #[test]
    fn every_variant_reads_back_from_its_wire_form() {
        let field = kluster::FieldError {
            field: "name".into(),
            message: "Too long.".into(),
        };
        for e in [
            AppError::NotSignedIn,
            AppError::SessionExpired,
            AppError::InvalidCredentials,
            AppError::InvalidAppCredential,
            AppError::RateLimited {
                retry_after_secs: 9,
            },
            AppError::KeystoneUnavailable,
            AppError::ControllerUnavailable,
            AppError::Forbidden("Not yours.".into()),
            AppError::NotFound("No such kluster.".into()),
            AppError::BadInput("Missing field: name".into()),
            AppError::Invalid(vec![field]),
            AppError::Stale,
            AppError::Internal,
            AppError::Transport,
        ] {
            let json = serde_json::to_string(&e).expect("serializes");
            assert!(json.contains(e.code()), "{json}");
            let back: AppError = serde_json::from_str(&json).expect("reads back");
            assert_eq!(back, e, "{json}");
        }
        let unknown: AppError = serde_json::from_str(r#"{"code":"new_kind"}"#).expect("reads");
        assert_eq!(unknown, AppError::Internal);
        assert!(serde_json::from_str::<AppError>(r#""Forbidden""#).is_err());
    }

    #[test]
    fn statuses_follow_http_semantics() {
        assert_eq!(AppError::InvalidCredentials.status(), 401);
        assert_eq!(AppError::KeystoneUnavailable.status(), 503);
        assert_eq!(
            AppError::RateLimited {
                retry_after_secs: 3
            }
            .status(),
            429
        );
    }
}
