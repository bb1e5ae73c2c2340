//! What a caller learns of each call (for its metrics) and the headers it adds to each call
//! on behalf of the request it serves (request id, the browser's address).

use std::time::Duration;

/// Told about every call: method, route template (kluster names replaced by `:name`, no
/// query), duration, and the kind of failure (`unreachable`, `client_error`,
/// `server_error`) if it failed.
pub type Observer = dyn Fn(&str, &str, Duration, Option<&'static str>) + Send + Sync;

/// The request a client acts for: every call carries its id and the browser's address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestHeaders {
    /// Sent as `X-Request-Id`.
    pub id: String,
    /// Sent as `X-Forwarded-For` when known.
    pub client: Option<std::net::IpAddr>,
}

impl RequestHeaders {
    /// `req` with these headers.
    pub(crate) fn apply(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let req = req.header("x-request-id", self.id.as_str());
        match self.client {
            Some(ip) => req.header("x-forwarded-for", ip.to_string()),
            None => req,
        }
    }
}

/// The kind of failure an answer with `status` is, for the observer.
pub(crate) fn failure_kind(status: u16) -> Option<&'static str> {
    match status {
        s if s >= 500 => Some("server_error"),
        s if s >= 400 => Some("client_error"),
        _ => None,
    }
}

/// The route template of an API path: no query, kluster names as `:name`.
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

#[cfg(test)]
mod tests {
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
    fn failures_by_status() {
        assert_eq!(super::failure_kind(200), None);
        assert_eq!(super::failure_kind(412), Some("client_error"));
        assert_eq!(super::failure_kind(502), Some("server_error"));
    }
}
