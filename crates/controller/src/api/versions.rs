//! Optimistic concurrency for klusters: answers carry `ETag: "<resourceVersion>"`, and a
//! `PUT` with `If-Match` goes on only while the kluster is still at a version it names
//! (else 412 in words), so two admins changing one kluster at once never silently undo each
//! other's change. Clients that send no `If-Match` (a Kubernikus client) write as before.

use axum::{
    http::{header, HeaderMap, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use kluster::Kluster;

use super::ApiError;

/// `k` as JSON with `status`, and its `ETag` when it has a version.
pub fn versioned(status: StatusCode, k: Kluster) -> Response {
    let etag = k
        .metadata
        .as_ref()
        .filter(|m| !m.resource_version.is_empty())
        .and_then(|m| HeaderValue::from_str(&etag(&m.resource_version)).ok());
    let mut res = (status, Json(k)).into_response();
    if let Some(v) = etag {
        res.headers_mut().insert(header::ETAG, v);
    }
    res
}

/// The strong entity tag of resource version `v`.
fn etag(v: &str) -> String {
    format!("\"{v}\"")
}

/// What the request's `If-Match` asks for: `None` without one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfMatch(Vec<String>);

impl IfMatch {
    /// The `If-Match` of `headers` (every line; comma-separated lists), if any.
    pub fn of(headers: &HeaderMap) -> Option<IfMatch> {
        let mut tags = Vec::new();
        let mut any = false;
        for v in headers.get_all(header::IF_MATCH) {
            any = true;
            // A value that is not text matches nothing (and is refused with the rest).
            let text = v.to_str().unwrap_or("\u{0}");
            tags.extend(text.split(',').map(|t| t.trim().to_string()));
        }
        any.then_some(IfMatch(tags))
    }

    /// `Ok` when the kluster's version `current` is one the request names (strong
    /// comparison: a weak tag never matches; `*` matches any); else 412 with a sentence.
    pub fn check(&self, current: &str) -> Result<(), ApiError> {
        let want = etag(current);
        if self.0.iter().any(|t| t == "*" || *t == want) {
            return Ok(());
        }
        let given = self.0.join(", ");
        Err(ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            format!(
                "Someone else changed this kluster since you read it (it is at resourceVersion {current}, your If-Match names {given}); read it again, apply your change to what is there now, and retry"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(header::IF_MATCH, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn if_match_matches_strong_tags_of_the_current_version_only() {
        assert_eq!(IfMatch::of(&headers(&[])), None);
        let m = IfMatch::of(&headers(&["\"3\", \"4\""])).unwrap();
        assert!(m.check("4").is_ok());
        let e = m.check("5").unwrap_err();
        assert_eq!(e.status, StatusCode::PRECONDITION_FAILED);
        assert!(
            e.message.starts_with("Someone else changed this kluster"),
            "{}",
            e.message
        );
        assert!(e.message.contains("resourceVersion 5"), "{}", e.message);
        assert!(IfMatch::of(&headers(&["*"])).unwrap().check("9").is_ok());
        assert!(IfMatch::of(&headers(&["W/\"4\""]))
            .unwrap()
            .check("4")
            .is_err());
        assert!(IfMatch::of(&headers(&["\"1\"", "\"4\""]))
            .unwrap()
            .check("4")
            .is_ok());
    }
}
