//! Request ids and what a request's span and access line say of it: the `X-Request-Id`
//! header, whether an incoming id is kept, a new id, the kluster a route names, and which
//! paths are probes (logged at debug).

use std::time::Instant;

use axum::http::{HeaderMap, HeaderName};

/// The request id header.
pub static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Whether an incoming request id may be used as it is: 1–128 visible ASCII characters.
pub fn valid_request_id(v: &str) -> bool {
    !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic())
}

/// A new random request id (128 bits, hex).
pub fn new_request_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    // Two independently seeded SipHashes: unique enough for correlation, no extra crate.
    let a = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Instant::now().elapsed().as_nanos());
    format!("{a:016x}{:016x}", h.finish())
}

/// The request's id: its `X-Request-Id` if [`valid_request_id`], else a new one.
pub fn request_id(headers: &HeaderMap) -> String {
    headers
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| valid_request_id(v))
        .map_or_else(new_request_id, str::to_owned)
}

/// The kluster a route template names, from the request's path: the segment after
/// `clusters` in the API's `/api/v1/clusters/:name…`, after `klusters` in the dashboard's
/// `/klusters/:name…`.
pub fn kluster_of(route: &str, path: &str) -> Option<String> {
    let word = if route.contains("/clusters/:name") {
        "clusters"
    } else if route.starts_with("/klusters/:name") {
        "klusters"
    } else {
        return None;
    };
    let mut segments = path.split('/');
    segments.find(|s| *s == word)?;
    segments.next().filter(|s| !s.is_empty()).map(str::to_owned)
}

/// Whether `path` is a health probe or a metrics scrape: logged at debug, not info (a
/// replica answers them every few seconds; the first run's console was mostly those).
pub fn is_probe(path: &str) -> bool {
    matches!(path, "/healthz" | "/readyz" | "/metrics")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kluster_comes_from_the_api_and_the_page_routes_only() {
        let api = kluster_of(
            "/api/v1/clusters/:name/events",
            "/api/v1/clusters/k1/events",
        );
        assert_eq!(api.as_deref(), Some("k1"));
        let page = kluster_of("/klusters/:name", "/klusters/k2");
        assert_eq!(page.as_deref(), Some("k2"));
        assert_eq!(kluster_of("/klusters/new", "/klusters/new"), None);
        assert_eq!(kluster_of("/api/v1/clusters", "/api/v1/clusters"), None);
    }

    #[test]
    fn ids_are_kept_only_when_short_and_visible() {
        assert!(valid_request_id("abc-123"));
        assert!(!valid_request_id(""));
        assert!(!valid_request_id("has space"));
        assert!(!valid_request_id(&"x".repeat(129)));
        let (a, b) = (new_request_id(), new_request_id());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
