//! The dashboard's side of the Kubernikus API: the typed client
//! ([`kubernikus_client::Client`], against the embedded controller or a real Kubernikus,
//! always with the session's Keystone token, the request's `X-Request-Id` and the browser's
//! address, every call observed for the metrics) and what its errors mean to a person.

use crate::error::AppError;

/// The dashboard's client of the Kubernikus API.
pub type ControllerClient = kubernikus_client::Client;

/// Told about every controller call: method, route template (kluster names replaced by
/// `:name`), duration, and the kind of failure (`unreachable`, `client_error`,
/// `server_error`) if it failed (for metrics).
pub type ControllerObserver = kubernikus_client::Observer;

pub use kubernikus_client::route_template;

impl From<kubernikus_client::Error> for AppError {
    fn from(e: kubernikus_client::Error) -> Self {
        use kubernikus_client::Error;
        match e {
            Error::Unreachable(why) => {
                tracing::warn!(error = why, "controller unreachable");
                AppError::ControllerUnavailable
            }
            Error::Decode(why) => {
                tracing::error!(error = why, "controller answer not understood");
                AppError::Internal
            }
            Error::NotOffered(what) => {
                AppError::BadInput(format!("This Kubernikus does not offer {what}."))
            }
            Error::Stale(_) => AppError::Stale,
            Error::Api(body) => {
                let status = u16::try_from(body.code).unwrap_or(0);
                let e = answer_error(status, Some(body));
                if e == AppError::Internal {
                    tracing::error!(status, "unexpected controller answer");
                }
                e
            }
        }
    }
}

/// What the dashboard makes of an error answer (`status`, and its body when it is the API's
/// error body): by status, typed reason and named fields; the message is only shown, never
/// inspected. A real Kubernikus sends no reason or fields: its message is shown as it is.
pub fn answer_error(status: u16, body: Option<kluster::ErrorBody>) -> AppError {
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

/// Reads kluster `name` as the user, lets `change` edit its spec, and writes it back with
/// `PUT` (the controller applies its update rules and answers violations per field). With
/// `shown`, the resource version the user's page showed, the write goes through only while
/// the kluster is still at it ([`AppError::Stale`] otherwise); without, the version just
/// read guards the read-change-write against a change in between, and a change in between
/// (the reconcilers write the status too) is met by reading again, at most
/// [`UNSHOWN_ATTEMPTS`] times.
pub async fn update_spec(
    c: &ControllerClient,
    token: &keystone::TokenSecret,
    name: &str,
    shown: Option<&str>,
    change: impl Fn(&mut kluster::KlusterSpec) -> Result<(), AppError>,
) -> Result<(), AppError> {
    let shown = shown.filter(|v| !v.is_empty());
    let mut attempt = 1;
    loop {
        let mut k = c.get(token, name).await?;
        let read = k.metadata.as_ref().map(|m| m.resource_version.clone());
        let version = shown.map(str::to_string).or(read);
        change(&mut k.spec)?;
        k.status = Default::default();
        // An empty version: a Kubernikus that keeps none; the write is unconditional.
        let version = match version.as_deref().filter(|v| !v.is_empty()) {
            Some(v) => Some(if_match(v)?),
            None => None,
        };
        match c
            .update_if(token, &k, version.as_ref())
            .await
            .map_err(AppError::from)
        {
            Err(AppError::Stale) if shown.is_none() && attempt < UNSHOWN_ATTEMPTS => attempt += 1,
            result => return result.map(|_| ()),
        }
    }
}

/// How often a change made without a shown version reads again after the kluster changed
/// between its read and its write.
pub const UNSHOWN_ATTEMPTS: u32 = 3;

/// The resource version `v` for `If-Match` (digits only: what the controller hands out;
/// anything else came from a tampered form).
fn if_match(v: &str) -> Result<kubernikus_client::Version, AppError> {
    kubernikus_client::Version::parse(v).ok_or_else(|| {
        AppError::BadInput(
            "The form's kluster version is not valid; reload the page and try again.".into(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::answer_error;
    use crate::error::AppError;
    use kluster::{ErrorBody, ErrorField, ErrorReason};

    fn body(code: i64, reason: Option<ErrorReason>, fields: &[(&str, &str)], m: &str) -> ErrorBody {
        ErrorBody {
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
