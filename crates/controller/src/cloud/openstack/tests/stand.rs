//! A stand-in OpenStack on 127.0.0.1:0 for the provider's tests: Keystone (password tokens
//! in `X-Subject-Token`, the catalog at `/v3/auth/catalog`) and just enough of Nova,
//! Neutron, Glance, Cinder and Octavia, answering with bodies shaped like theirs. It
//! records every call, and tests change its state (revoke tokens, force failures).

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::Bytes;
use axum::extract::State as Axum;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

pub use super::stand_state::{nova_error, reply, rfc3339, server, Seen, State};

/// The stand-in's password of the service user.
pub const PASSWORD: &str = "s3cret-Passw0rd";

/// A running stand-in.
pub struct Stand {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its state.
    pub state: Arc<Mutex<State>>,
}

impl Stand {
    /// Starts a stand-in with two kluster servers and one other server.
    pub async fn start() -> Stand {
        let now = time::OffsetDateTime::now_utc();
        let ago = |secs: i64| rfc3339(now - time::Duration::seconds(secs));
        let state = Arc::new(Mutex::new(State {
            seen: Vec::new(),
            sign_ins: Vec::new(),
            valid: HashSet::new(),
            issued: 0,
            lifetime: time::Duration::hours(1),
            servers: vec![
                server(
                    "s1",
                    "kks-k1-a-00001",
                    Some("k1"),
                    "ACTIVE",
                    None,
                    &ago(600),
                    "10.180.0.11",
                ),
                server(
                    "s2",
                    "kks-k1-a-00002",
                    Some("k1"),
                    "BUILD",
                    None,
                    &ago(5),
                    "10.180.0.12",
                ),
                server(
                    "s3",
                    "jumphost",
                    None,
                    "ACTIVE",
                    None,
                    &ago(9000),
                    "10.180.0.5",
                ),
            ],
            quota_exceeded: false,
            two_networks: false,
            fail: Vec::new(),
            raw: Vec::new(),
            services: vec!["compute", "network", "image", "volumev3", "load-balancer"],
            dead: Vec::new(),
            hang_project: None,
            hung: 0,
            nova_version: "2.95",
        }));
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Stand { addr, state }
    }

    /// The state, locked.
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap()
    }

    /// Keystone's URL.
    pub fn auth_url(&self) -> String {
        format!("http://{}/v3", self.addr)
    }

    /// Calls seen whose path contains `fragment`.
    pub fn seen(&self, fragment: &str) -> Vec<Seen> {
        let s = self.state();
        s.seen
            .iter()
            .filter(|c| c.path.contains(fragment))
            .cloned()
            .collect()
    }
}

fn endpoint(kind: &str, base: &str, project: &str) -> Value {
    let path = match kind {
        "compute" => "/compute/v2.1".to_string(),
        "network" => "/network".to_string(),
        "image" => "/image".to_string(),
        "volumev3" => format!("/volume/v3/{project}"),
        _ => "/lb".to_string(),
    };
    json!({ "type": kind, "name": kind, "id": kind, "endpoints": [
        { "id": "e1", "interface": "public", "region": "RegionOne", "region_id": "RegionOne",
          "url": format!("{base}{path}") },
        { "id": "e2", "interface": "internal", "region": "RegionOne", "region_id": "RegionOne",
          "url": format!("{base}/internal{path}") },
        { "id": "e3", "interface": "public", "region": "RegionTwo", "region_id": "RegionTwo",
          "url": format!("{base}/r2{path}") },
    ]})
}

async fn handle(
    Axum(state): Axum<Arc<Mutex<State>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Option<Value> = serde_json::from_slice(&body).ok();
    let hang = state.lock().unwrap().hang_project.clone();
    let scoped = body.as_ref().map(|b| &b["auth"]["scope"]["project"]["id"]);
    if uri.path() == "/v3/auth/tokens" && hang.is_some() && scoped == hang.map(Value::from).as_ref()
    {
        state.lock().unwrap().hung += 1;
        std::future::pending::<()>().await;
    }
    let query: Vec<(String, String)> = uri
        .query()
        .map(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .into_owned()
                .collect()
        })
        .unwrap_or_default();
    let base = format!(
        "http://{}",
        headers
            .get("host")
            .and_then(|h| h.to_str().ok())
            .unwrap_or("")
    );
    let mut s = state.lock().unwrap();
    let raw = uri.path().to_string();
    let (via, path) = ["/internal", "/r2"]
        .iter()
        .find_map(|p| {
            raw.strip_prefix(p)
                .map(|rest| (p.to_string(), rest.to_string()))
        })
        .unwrap_or((String::new(), raw.clone()));
    let token = headers
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    s.seen.push(Seen {
        method: method.clone(),
        path: path.clone(),
        via,
        query: query.clone(),
        token: token.clone(),
        headers: headers.clone(),
        body: body.clone(),
    });
    if path == "/v3/auth/tokens" && method == Method::POST {
        // A forced failure of Keystone's sign-in (`auth/tokens`).
        if let Some(i) = s.fail.iter().position(|(f, _, _)| f == "auth/tokens") {
            let (_, status, body) = s.fail.remove(i);
            return reply(status, body);
        }
        return sign_in(&mut s, body.unwrap_or(Value::Null));
    }
    if !s.valid.contains(&token) {
        let message = "The request you have made requires authentication.";
        return reply(401, json!({ "error": { "code": 401, "message": message } }));
    }
    if let Some(i) = s.raw.iter().position(|r| path.contains(r.0.as_str())) {
        let (_, status, kind, body) = s.raw.remove(i);
        let status = StatusCode::from_u16(status).unwrap();
        return (status, [("content-type", kind)], body).into_response();
    }
    if let Some(i) = s
        .fail
        .iter()
        .position(|(f, _, _)| path.contains(f.as_str()))
    {
        let (_, status, mut body) = s.fail.remove(i);
        // `retryAfter` in a forced failure's body becomes its Retry-After header.
        let after = body
            .get("retryAfter")
            .and_then(Value::as_str)
            .map(String::from);
        if let Some(after) = after {
            if let Some(o) = body.as_object_mut() {
                o.remove("retryAfter");
            }
            let mut r = reply(status, body);
            if let Ok(v) = axum::http::HeaderValue::from_str(&after) {
                r.headers_mut().insert("retry-after", v);
            }
            return r;
        }
        return reply(status, body);
    }
    if path == "/v3/auth/catalog" {
        let project = token.split('|').nth(1).unwrap_or("").to_string();
        let catalog: Vec<Value> = s
            .services
            .iter()
            .map(|k| {
                let base = if s.dead.contains(k) {
                    "http://127.0.0.1:9"
                } else {
                    &base
                };
                endpoint(k, base, &project)
            })
            .collect();
        return reply(200, json!({ "catalog": catalog, "links": {} }));
    }
    let q = |k: &str| -> Vec<String> {
        query
            .iter()
            .filter(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let answer = super::stand_services::answer(&mut s, &method, &path, &q, body);
    answer.unwrap_or_else(|| nova_error(404, "itemNotFound", "The resource could not be found."))
}

fn sign_in(s: &mut State, body: Value) -> Response {
    let auth = &body["auth"];
    let password = auth["identity"]["password"]["user"]["password"].as_str();
    if password != Some(PASSWORD) {
        let message = "The request you have made requires authentication.";
        return reply(401, json!({ "error": { "code": 401, "message": message } }));
    }
    let scope = auth["scope"].clone();
    s.sign_ins.push(scope.clone());
    let project = &scope["project"];
    let id = project["id"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| format!("id-of-{}", project["name"].as_str().unwrap_or("")));
    s.issued += 1;
    let token = format!("tok-{}|{id}|SECRET", s.issued);
    s.valid.insert(token.clone());
    let expires = rfc3339(time::OffsetDateTime::now_utc() + s.lifetime);
    let body = json!({ "token": {
        "methods": ["password"], "expires_at": expires, "issued_at": expires,
        "user": { "id": "u-svc", "name": "kubernikus", "domain": { "id": "default", "name": "Default" } },
        "project": { "id": id, "name": format!("name-of-{id}"), "domain": { "id": "default", "name": "Default" } },
        "roles": [{ "id": "r1", "name": "member" }],
    }});
    let mut resp = reply(201, body);
    resp.headers_mut()
        .insert("x-subject-token", token.parse().unwrap());
    resp
}
