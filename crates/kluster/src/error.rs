//! The error body of every failed call: Kubernikus's `code`, `message` and `helpUrl`, and
//! this controller's typed extensions `reason` (why, as a stable word) and `fields` (which
//! request fields, with a message each). A real Kubernikus sends neither extension; clients
//! then fall back to the message.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::validate::FieldError;

/// The error body of every failed call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// HTTP status code.
    pub code: i64,
    /// What went wrong, in words.
    pub message: String,
    /// Link to more help.
    #[serde(default, rename = "helpUrl", skip_serializing_if = "Option::is_none")]
    pub help_url: Option<String>,
    /// Extension: why, as a stable word (absent from a real Kubernikus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<ErrorReason>,
    /// Extension: the request fields at fault, each with its message (empty: none named).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<ErrorField>,
}

/// Extension: one request field at fault in an error body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorField {
    /// JSON path of the field, e.g. `spec.nodePools[0].size`.
    pub path: String,
    /// What is wrong with it, in words.
    pub message: String,
}

impl From<FieldError> for ErrorField {
    fn from(e: FieldError) -> Self {
        ErrorField {
            path: e.field,
            message: e.message,
        }
    }
}

impl From<ErrorField> for FieldError {
    fn from(e: ErrorField) -> Self {
        FieldError {
            field: e.path,
            message: e.message,
        }
    }
}

impl ErrorBody {
    /// The message for field `path`, when the error names it.
    pub fn for_field(&self, path: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.message.as_str())
    }

    /// Whether the error says `reason`.
    pub fn is(&self, reason: &ErrorReason) -> bool {
        self.reason.as_ref() == Some(reason)
    }
}

/// Why a call failed, spelled on the wire as the variant's name. A reason this code does
/// not know parses as [`ErrorReason::Other`] and is written back unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ErrorReason {
    /// The request is malformed (e.g. a query that does not parse).
    BadRequest,
    /// No token, or one Keystone does not accept.
    Unauthorized,
    /// The caller's roles do not allow the operation.
    Forbidden,
    /// The kluster has termination protection: it cannot be deleted.
    TerminationProtected,
    /// What the request names does not exist (or is not the caller's).
    NotFound,
    /// A kluster of that name exists already in the project.
    NameTaken,
    /// A CIDR overlaps the control plane's or another kluster's on the same router.
    CidrOverlap,
    /// The request conflicts with the kluster's current state (e.g. not ready yet).
    Conflict,
    /// The resource changed since the caller read it (`If-Match`).
    PreconditionFailed,
    /// The request body is too large.
    TooLarge,
    /// The request breaks the API's rules; `fields` says where.
    Validation,
    /// A fault on the server's side; details are in its log.
    Internal,
    /// A dependency (database, Keystone, cloud) cannot answer right now; try again.
    Unavailable,
    /// A reason this code does not know, kept as sent.
    Other(String),
}

/// Every known reason with its wire spelling (`Other` aside).
const KNOWN: &[(ErrorReason, &str)] = &[
    (ErrorReason::BadRequest, "BadRequest"),
    (ErrorReason::Unauthorized, "Unauthorized"),
    (ErrorReason::Forbidden, "Forbidden"),
    (ErrorReason::TerminationProtected, "TerminationProtected"),
    (ErrorReason::NotFound, "NotFound"),
    (ErrorReason::NameTaken, "NameTaken"),
    (ErrorReason::CidrOverlap, "CidrOverlap"),
    (ErrorReason::Conflict, "Conflict"),
    (ErrorReason::PreconditionFailed, "PreconditionFailed"),
    (ErrorReason::TooLarge, "TooLarge"),
    (ErrorReason::Validation, "Validation"),
    (ErrorReason::Internal, "Internal"),
    (ErrorReason::Unavailable, "Unavailable"),
];

impl ErrorReason {
    /// The wire spelling, e.g. `NameTaken`.
    pub fn as_str(&self) -> &str {
        match self {
            ErrorReason::Other(s) => s,
            known => KNOWN
                .iter()
                .find(|(r, _)| r == known)
                .map_or("", |(_, s)| s),
        }
    }

    /// Parses a wire spelling; unknown reasons become [`ErrorReason::Other`].
    pub fn parse(s: &str) -> ErrorReason {
        KNOWN
            .iter()
            .find(|(_, w)| *w == s)
            .map_or_else(|| ErrorReason::Other(s.to_string()), |(r, _)| r.clone())
    }

    /// The general reason of an HTTP status (what an answer says when nothing more
    /// specific applies); `None` for statuses that are not errors of this API.
    pub fn of_status(status: u16) -> Option<ErrorReason> {
        Some(match status {
            400 => ErrorReason::BadRequest,
            401 => ErrorReason::Unauthorized,
            403 => ErrorReason::Forbidden,
            404 => ErrorReason::NotFound,
            409 => ErrorReason::Conflict,
            412 | 428 => ErrorReason::PreconditionFailed,
            413 => ErrorReason::TooLarge,
            422 => ErrorReason::Validation,
            500 => ErrorReason::Internal,
            502..=504 => ErrorReason::Unavailable,
            _ => return None,
        })
    }

    /// Every reason this code knows, with its wire spelling (for documentation and tests).
    pub fn known() -> impl Iterator<Item = &'static ErrorReason> {
        KNOWN.iter().map(|(r, _)| r)
    }
}

impl std::fmt::Display for ErrorReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(ErrorReason::parse(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_round_trip_and_unknown_ones_are_kept() {
        for (r, wire) in KNOWN {
            assert_eq!(r.as_str(), *wire);
            assert_eq!(ErrorReason::parse(wire), *r);
            let json = serde_json::to_string(r).unwrap();
            assert_eq!(serde_json::from_str::<ErrorReason>(&json).unwrap(), *r);
        }
        let other: ErrorReason = serde_json::from_str("\"QuotaTooSmall\"").unwrap();
        assert_eq!(other, ErrorReason::Other("QuotaTooSmall".into()));
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"QuotaTooSmall\"");
        assert_eq!(ErrorReason::of_status(422), Some(ErrorReason::Validation));
        assert_eq!(ErrorReason::of_status(503), Some(ErrorReason::Unavailable));
        assert_eq!(ErrorReason::of_status(200), None);
    }

    #[test]
    fn a_kubernikus_body_without_extensions_reads_and_extensions_are_skipped_when_empty() {
        let plain: ErrorBody =
            serde_json::from_str(r#"{"code":409,"message":"cluster already exists"}"#).unwrap();
        assert_eq!(plain.reason, None);
        assert!(plain.fields.is_empty());
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"code":409,"message":"cluster already exists"}"#
        );
        let typed = ErrorBody {
            code: 409,
            message: "A kluster named \"a\" already exists".into(),
            reason: Some(ErrorReason::NameTaken),
            fields: vec![ErrorField {
                path: "name".into(),
                message: "A kluster named \"a\" already exists".into(),
            }],
            ..Default::default()
        };
        let json = serde_json::to_value(&typed).unwrap();
        assert_eq!(json["reason"], "NameTaken");
        assert_eq!(json["fields"][0]["path"], "name");
        let back: ErrorBody = serde_json::from_value(json).unwrap();
        assert_eq!(back, typed);
        assert!(back.is(&ErrorReason::NameTaken));
        assert_eq!(back.for_field("name"), Some(typed.message.as_str()));
        assert_eq!(back.for_field("spec"), None);
        let f: FieldError = back.fields[0].clone().into();
        assert_eq!(
            (f.field.as_str(), ErrorField::from(f.clone())),
            ("name", back.fields[0].clone())
        );
    }
}
