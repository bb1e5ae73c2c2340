//! What the stand-in OpenStack holds and how it answers: its state, the calls it saw, and
//! the bodies its Keystone and Nova share (times, servers, JSON and error answers).

use std::collections::HashSet;

use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// One call the stand-in saw.
#[derive(Clone, Debug)]
pub struct Seen {
    /// HTTP method.
    pub method: Method,
    /// Path without the endpoint prefix (`/internal`, `/r2`).
    pub path: String,
    /// The endpoint prefix the call came through (`""`, `/internal`, `/r2`).
    pub via: String,
    /// Query pairs.
    pub query: Vec<(String, String)>,
    /// Its `X-Auth-Token`.
    pub token: String,
    /// All its headers.
    pub headers: HeaderMap,
    /// Its JSON body, if any.
    pub body: Option<Value>,
}

/// What the stand-in holds; tests change it between calls.
pub struct State {
    /// Every call, in order.
    pub seen: Vec<Seen>,
    /// Scopes of the sign-ins (the `scope` object of each request).
    pub sign_ins: Vec<Value>,
    /// Tokens the services accept.
    pub valid: HashSet<String>,
    /// Tokens issued so far.
    pub issued: usize,
    /// Lifetime of new tokens.
    pub lifetime: time::Duration,
    /// Nova's servers.
    pub servers: Vec<Value>,
    /// Nova refuses creates with its quota 403.
    pub quota_exceeded: bool,
    /// Router r1's interfaces sit in two networks.
    pub two_networks: bool,
    /// Failures to answer, first match wins: (path fragment, status, body).
    pub fail: Vec<(String, u16, Value)>,
    /// Answers sent as they are, each once, first match wins: (path fragment, status,
    /// content type, body) — HTML pages, truncated JSON.
    pub raw: Vec<(String, u16, &'static str, String)>,
    /// The services the catalog lists.
    pub services: Vec<&'static str>,
    /// Services the catalog lists at a port nobody listens on.
    pub dead: Vec<&'static str>,
    /// Sign-ins scoped to this project id never get an answer.
    pub hang_project: Option<String>,
    /// Sign-ins left without an answer so far.
    pub hung: usize,
    /// Nova's newest microversion, as its version document says.
    pub nova_version: &'static str,
}

/// `t` as Keystone and Nova write times.
pub fn rfc3339(t: time::OffsetDateTime) -> String {
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap()
}

/// A Nova server body (microversion 2.67 shape, the fields that matter).
pub fn server(
    id: &str,
    name: &str,
    kluster: Option<&str>,
    status: &str,
    task: Option<&str>,
    created: &str,
    ip: &str,
) -> Value {
    let metadata = match kluster {
        Some(k) => json!({ "kluster": k }),
        None => json!({}),
    };
    json!({
        "id": id, "name": name, "status": status, "OS-EXT-STS:task_state": task,
        "OS-EXT-STS:vm_state": "active", "OS-EXT-STS:power_state": 1,
        "metadata": metadata, "created": created, "updated": created,
        "tags": [], "tenant_id": "p1", "user_id": "u-svc",
        "flavor": { "original_name": "m1.small", "vcpus": 2, "ram": 4096, "disk": 20 },
        "addresses": { "private": [
            { "addr": ip, "version": 4, "OS-EXT-IPS:type": "fixed",
              "OS-EXT-IPS-MAC:mac_addr": "fa:16:3e:00:00:01" } ] },
        "links": []
    })
}

/// A JSON answer.
pub fn reply(status: u16, body: Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap();
    (status, axum::Json(body)).into_response()
}

/// Nova's error body: `{"<kind>": {"code", "message"}}`.
pub fn nova_error(status: u16, kind: &str, message: &str) -> Response {
    reply(
        status,
        json!({ kind: { "code": status, "message": message } }),
    )
}
