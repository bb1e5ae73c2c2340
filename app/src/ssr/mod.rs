//! Server-only plumbing for the server functions: shared state, the session's auth record
//! and the sign-in rate limiter. Never compiled into the WASM module.

pub mod auth;
pub mod controller;
mod limiter;
pub mod project_lists;
pub mod yaml;

pub use auth::{AuthRecord, AUTH_KEY};
pub use controller::ControllerClient;
pub use limiter::{
    client_key, verdict, Attempt, AttemptLog, Load, LoginLimiter, MemoryLog, Outcome, RateLimits,
    Refused, KNOWN_FOR,
};
pub use project_lists::{token_key, ProjectLists};
pub use serving::clock::Clock;

/// Wall-clock now of `clock`, as a UTC date and time.
pub fn now_utc(clock: &Clock) -> time::OffsetDateTime {
    time::OffsetDateTime::UNIX_EPOCH + clock.unix()
}

use std::sync::Arc;
use std::time::Duration;

use leptos::prelude::{expect_context, use_context};
use leptos_axum::ResponseOptions;

pub use crate::error::fail;
use crate::error::AppError;

/// State shared by every server function (provided as Leptos context by the server): what
/// every request shares behind one `Arc` (read through `Deref`: `st.keystone`), and the
/// per-request parts. It is cloned a few times per request, so the shared part is one
/// count, not a dozen.
#[derive(Clone, Debug)]
pub struct AppState {
    shared: Arc<AppShared>,
    /// The configured Kubernikus API (with regions from the catalog, only its connections
    /// and observer are used): reached through [`AppState::controller_for`], which picks
    /// the session's region, so no call can miss it.
    controller: ControllerClient,
    /// The request being served, when there is one (see [`state`]).
    pub request: Option<RequestMeta>,
}

/// What every request's [`AppState`] shares.
#[derive(Debug)]
pub struct AppShared {
    /// Client for the configured Keystone v3 endpoint.
    pub keystone: keystone::Client,
    /// Sign-in failure limiter, per client address and per user name.
    pub limiter: LoginLimiter,
    /// Upper bound of a session's life, whatever the token's expiry.
    pub session_max_lifetime: Duration,
    /// How long a token validated with Keystone is trusted before it is checked again.
    pub revalidate_after: Duration,
    /// Recent Keystone verdicts per token, shared by every request and stream.
    pub token_checks: Arc<TokenChecks>,
    /// Recent project lists per token (the header's project switcher).
    pub project_lists: Arc<ProjectLists>,
    /// The time source (manual in tests).
    pub clock: Clock,
    /// `Some(interface)` when each session's controller is its region's Kubernikus, found
    /// on that interface of the token's catalog; `None`: the configured one for everyone.
    pub regional: Option<String>,
}

impl std::ops::Deref for AppState {
    type Target = AppShared;

    fn deref(&self) -> &AppShared {
        &self.shared
    }
}

/// What the server knows about the request being served: its id, the browser's address
/// and its tracing span (user, project and kluster are recorded into it once known).
/// Inserted into the request's extensions by the server.
#[derive(Clone, Debug)]
pub struct RequestMeta {
    /// `X-Request-Id` (the browser's when valid, else a new one).
    pub id: String,
    /// The browser's address, as the server resolved it.
    pub client: Option<std::net::IpAddr>,
    /// The request's span.
    pub span: tracing::Span,
    /// Set once the caller is recorded into the span: a page checks the session once per
    /// resource, and a text log appends every recording of a field again.
    pub caller_recorded: Arc<std::sync::atomic::AtomicBool>,
}

impl AppState {
    /// The state of a server whose requests share `shared` and call `controller`.
    pub fn new(shared: AppShared, controller: ControllerClient) -> Self {
        Self {
            shared: Arc::new(shared),
            controller,
            request: None,
        }
    }

    /// This state acting for request `m`: controller calls carry its id and client.
    pub fn for_request(mut self, m: RequestMeta) -> Self {
        self.controller = self.controller.for_request(&m.id, m.client);
        self.request = Some(m);
        self
    }

    /// The configured Kubernikus API, for what serves every session alike (the live feeds'
    /// hubs start from it); a session's calls go through [`AppState::controller_for`].
    pub fn base_controller(&self) -> &ControllerClient {
        &self.controller
    }

    /// The Kubernikus API that session `rec` works with: its region's (see
    /// [`AuthRecord::region_url`]), or the configured one.
    pub fn controller_for(&self, rec: &AuthRecord) -> Result<ControllerClient, AppError> {
        Ok(match rec.region_url(self)? {
            Some(url) => self.controller.at(url),
            None => self.controller.clone(),
        })
    }

    /// Records the signed-in user and project into the request's span.
    pub fn record_caller(&self, rec: &AuthRecord) {
        if let Some(m) = &self.request {
            if m.caller_recorded
                .swap(true, std::sync::atomic::Ordering::Relaxed)
            {
                return;
            }
            m.span
                .record("user", format!("{}@{}", rec.user_name, rec.user_domain));
            m.span.record("project", rec.project_id.as_str());
        }
    }
}

/// Whether the request being served is a server function's own call (`/api/…`, from the
/// browser), not a page being rendered: what the function answers is then only encoded
/// for the browser, so data the browser decodes itself may be passed on as the controller
/// sent it.
pub fn for_browser() -> bool {
    use_context::<http::request::Parts>().is_some_and(|p| p.uri.path().starts_with("/api/"))
}

/// The request being served (from the Leptos context), if any.
pub fn request_meta() -> Option<RequestMeta> {
    use_context::<http::request::Parts>().and_then(|p| p.extensions.get::<RequestMeta>().cloned())
}

/// Keystone's recent verdicts on tokens (keyed by a hash, never the token), so that the
/// server functions of one page, or ten thousand live streams of one user, ask Keystone
/// once per re-check interval, not once each.
#[derive(Debug, Default)]
pub struct TokenChecks {
    verdicts: std::sync::Mutex<std::collections::HashMap<u64, (std::time::Instant, bool)>>,
    /// Serializes the questions about one token (others wait for its answer).
    asking: tokio::sync::Mutex<std::collections::HashMap<u64, Arc<tokio::sync::Mutex<()>>>>,
}

impl TokenChecks {
    /// Whether Keystone accepts `token`, asking it only when the last verdict (by `clock`)
    /// is older than `max_age`. `Err` when Keystone could not answer.
    pub async fn accepted(
        &self,
        keystone: &keystone::Client,
        token: &keystone::TokenSecret,
        max_age: Duration,
        clock: &Clock,
    ) -> Result<bool, AppError> {
        let key = token_key(token);
        let fresh = |checks: &Self| {
            let verdicts = checks.verdicts.lock().unwrap_or_else(|p| p.into_inner());
            verdicts
                .get(&key)
                .filter(|(at, _)| clock.since(*at) < max_age)
                .map(|(_, ok)| *ok)
        };
        if let Some(ok) = fresh(self) {
            return Ok(ok);
        }
        let gate = self.asking.lock().await.entry(key).or_default().clone();
        let _turn = gate.lock().await;
        if let Some(ok) = fresh(self) {
            return Ok(ok); // answered while this request waited
        }
        let ok = match keystone.validate(token, token).await {
            Ok(_) => true,
            Err(e) => match keystone_error(e) {
                AppError::SessionExpired => false,
                other => return Err(other),
            },
        };
        let now = clock.instant();
        {
            let mut verdicts = self.verdicts.lock().unwrap_or_else(|p| p.into_inner());
            verdicts.retain(|_, (at, _)| now.duration_since(*at) < Duration::from_secs(3600));
            verdicts.insert(key, (now, ok));
        }
        self.asking.lock().await.remove(&key);
        Ok(ok)
    }
}

/// The [`AppState`] of the running server, acting for the request being served (call it
/// before the first `.await`: Leptos context is not reachable after one during SSR).
pub fn state() -> AppState {
    let st = expect_context::<AppState>();
    match request_meta() {
        Some(m) => st.for_request(m),
        None => st,
    }
}

/// The Content-Security-Policy of a page whose inline scripts carry `nonce`: scripts only
/// from this site or with the nonce, WASM compilation (`wasm-unsafe-eval`, no `eval`),
/// styles and everything else only from this site, no framing, forms only to this site.
pub fn page_csp(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// Sets the page's Content-Security-Policy header with the nonce of this render (Leptos
/// puts it on the hydration script and the resource scripts). The server sets the same
/// policy on every HTML answer whatever the render did (its `headers::secure` layer): a
/// render that cannot set it here is logged as an error.
pub fn set_page_csp() {
    let (Some(nonce), Some(res)) = (leptos::nonce::use_nonce(), use_context::<ResponseOptions>())
    else {
        tracing::error!("a page rendered without a nonce or response options: its policy comes from the server alone");
        return;
    };
    if let Ok(v) = http::HeaderValue::from_str(&page_csp(&nonce)) {
        res.insert_header(http::header::CONTENT_SECURITY_POLICY, v);
    }
}

/// Makes the nonce the server chose for this request (a [`leptos::nonce::Nonce`] in the
/// request's extensions, put there by the server's security-header layer) the render's
/// nonce, in place of the one Leptos made: the page's inline scripts then carry the nonce
/// of the policy the server sets on the answer. Call it in the render's additional context.
pub fn provide_request_nonce() {
    let nonce = use_context::<http::request::Parts>()
        .and_then(|p| p.extensions.get::<leptos::nonce::Nonce>().cloned());
    if let Some(n) = nonce {
        leptos::prelude::provide_context(n);
    }
}

/// True when the current request is a plain HTML form post (no JavaScript).
pub fn is_plain_form_post() -> bool {
    use_context::<http::request::Parts>()
        .and_then(|p| p.headers.get(http::header::ACCEPT).cloned())
        .and_then(|v| v.to_str().map(|s| s.contains("text/html")).ok())
        .unwrap_or(false)
}

/// The client's address, as the server resolved it for this request (the peer, or the
/// address a trusted proxy forwarded; see the server's `client_ip` layer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub std::net::IpAddr);

/// The client's address for limits and logs: the [`ClientAddr`] the server resolved, else
/// axum's `ConnectInfo` peer; `None` when neither is known.
pub fn client_ip() -> Option<std::net::IpAddr> {
    let parts = use_context::<http::request::Parts>()?;
    parts
        .extensions
        .get::<ClientAddr>()
        .map(|c| c.0)
        .or_else(|| {
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0.ip())
        })
}

/// [`client_ip`] as text, or "unknown".
pub fn client_addr() -> String {
    client_ip().map_or_else(|| "unknown".into(), |ip| ip.to_string())
}

/// Maps a Keystone error met while acting for a signed-in user.
pub fn keystone_error(err: keystone::Error) -> AppError {
    match err {
        keystone::Error::Unauthorized | keystone::Error::NotFound => AppError::SessionExpired,
        keystone::Error::Forbidden(m) => AppError::Forbidden(format!("Keystone refused: {m}")),
        e if e.is_unavailable() => AppError::KeystoneUnavailable,
        e => {
            tracing::error!(error = %e, "unexpected Keystone answer");
            AppError::Internal
        }
    }
}

/// How a server function behind a kluster page's form reports a failure: a plain form post
/// (no JavaScript) is sent back to `/klusters/{name}?error=<code>` (a redirect, so no error
/// status is set); a call from the hydrated page gets the error with its HTTP status.
/// Call it before the first `.await` (it reads the request).
pub fn kluster_form_failure(name: &str) -> impl Fn(AppError) -> AppError + Clone {
    let plain = is_plain_form_post();
    let back = format!(
        "/klusters/{}",
        kluster_name(name)
            .map(|()| name.to_string())
            .unwrap_or_default()
    );
    move |e: AppError| {
        if plain {
            leptos_axum::redirect(&format!("{back}?error={}", e.code()));
            return e;
        }
        fail(e)
    }
}

/// Runs `body`, the work of a server function behind kluster `name`'s page, and reports
/// its failure as [`kluster_form_failure`] says: the one place a kluster form's error
/// becomes its redirect. (The request is read here, before `body` first runs.)
pub async fn kluster_form<T>(
    name: &str,
    body: impl std::future::Future<Output = Result<T, AppError>>,
) -> Result<T, AppError> {
    let fail = kluster_form_failure(name);
    body.await.map_err(fail)
}

/// `Ok` for a kluster name that keeps the naming rules (recorded into the request's span);
/// a name that breaks them is not found (without asking the controller).
pub fn kluster_name(name: &str) -> Result<(), AppError> {
    if let Some(m) = request_meta() {
        m.span.record("kluster", name);
    }
    kluster::validate::kluster_name(name)
        .map_err(|_| AppError::NotFound(format!("There is no kluster named {name:?}.")))
}

/// OpenSSH's `SHA256:…` fingerprint of a public key line (`type base64 [comment]`); empty
/// when there is no key or it does not decode.
pub fn ssh_fingerprint(key: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let Some(blob) = key.split_whitespace().nth(1) else {
        return String::new();
    };
    match base64::engine::general_purpose::STANDARD.decode(blob) {
        Ok(bytes) => format!(
            "SHA256:{}",
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(sha2::Sha256::digest(bytes))
        ),
        Err(_) => String::new(),
    }
}

/// `s` percent-encoded for a URL query value or path segment (the client crate's).
pub use kubernikus_client::percent_encode;

#[cfg(test)]
mod tests {
    #[test]
    fn fingerprints_match_openssh() {
        // The SHA-256 of the decoded blob, base64 without padding (as ssh-keygen -l).
        assert_eq!(super::ssh_fingerprint("ssh-ed25519  comment"), "");
        assert_eq!(
            super::ssh_fingerprint("ssh-ed25519 AAAA"),
            "SHA256:cJ6AyISHokEeHuTfufIqhhSS0gxHZRUMDHlKvXD4FHw"
        );
        assert_eq!(super::ssh_fingerprint(""), "");
    }
}
