//! Against a stub Keystone on loopback: renewal, fail-closed and unscoped tokens, one
//! Keystone call for concurrent requests with one token.

use super::*;
use axum::{
    extract::State,
    http::{HeaderMap, StatusCode},
    routing::post,
    Router,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Default)]
struct Stub {
    issued: AtomicUsize,
    /// Service tokens issued before this count are rejected with 401.
    reject_below: AtomicUsize,
    lifetime_secs: u64,
    /// Validations asked for (GET /v3/auth/tokens).
    validated: AtomicUsize,
    /// How long each validation takes.
    delay_ms: u64,
}

fn token_body(project: bool, lifetime: u64) -> String {
    let exp = (time::OffsetDateTime::now_utc() + Duration::from_secs(lifetime))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let p = if project {
        r#","project":{"id":"p1","name":"demo","domain":{"id":"d","name":"demo"}}"#
    } else {
        ""
    };
    format!(
        r#"{{"token":{{"expires_at":"{exp}","user":{{"id":"u1","name":"alice","domain":{{"id":"d","name":"demo"}}}},
            "roles":[{{"id":"r","name":"kubernetes_admin"}}]{p}}}}}"#
    )
}

async fn serve(stub: Arc<Stub>) -> String {
    let app = Router::new()
        .route(
            "/v3/auth/tokens",
            post(|State(s): State<Arc<Stub>>| async move {
                let n = s.issued.fetch_add(1, Ordering::SeqCst) + 1;
                let body = token_body(true, s.lifetime_secs);
                (
                    StatusCode::CREATED,
                    [("X-Subject-Token", format!("svc-{n}"))],
                    body,
                )
            })
            .get(|State(s): State<Arc<Stub>>, h: HeaderMap| async move {
                s.validated.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(s.delay_ms)).await;
                let svc = h["X-Auth-Token"]
                    .to_str()
                    .unwrap()
                    .trim_start_matches("svc-")
                    .parse::<usize>()
                    .unwrap();
                if svc <= s.reject_below.load(Ordering::SeqCst) {
                    return (StatusCode::UNAUTHORIZED, String::new());
                }
                match h["X-Subject-Token"].to_str().unwrap() {
                    "good" => (StatusCode::OK, token_body(true, 3600)),
                    "unscoped" => (StatusCode::OK, token_body(false, 3600)),
                    _ => (StatusCode::NOT_FOUND, String::new()),
                }
            }),
        )
        .with_state(stub);
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    format!("http://{addr}/v3")
}

fn validator(url: &str, ttl: Duration) -> TokenValidator {
    let creds = ServiceCredentials {
        user_name: "svc".into(),
        password: "pw".into(),
        user_domain: "Default".into(),
        project: "service".into(),
        project_domain: "Default".into(),
    };
    TokenValidator::new(keystone::Client::new(url).unwrap(), creds, ttl)
}

#[tokio::test]
async fn valid_invalid_missing_and_unscoped_tokens() {
    let stub = Arc::new(Stub {
        lifetime_secs: 3600,
        ..Default::default()
    });
    let v = validator(&serve(stub).await, Duration::from_secs(60));
    let p = v.principal(Some("good")).await.unwrap();
    assert_eq!((p.name.as_str(), p.account.as_str()), ("alice", "p1"));
    assert_eq!(v.principal(Some("bogus")).await, Err(AuthError::Invalid));
    assert_eq!(v.principal(None).await, Err(AuthError::Missing));
    assert_eq!(v.principal(Some("  ")).await, Err(AuthError::Missing));
    let err = v.principal(Some("unscoped")).await.unwrap_err();
    assert_eq!((err.clone(), err.status()), (AuthError::Unscoped, 401));
}

#[tokio::test]
async fn service_token_is_renewed_when_keystone_rejects_it_and_near_expiry() {
    let stub = Arc::new(Stub {
        lifetime_secs: 3600,
        ..Default::default()
    });
    let v = validator(&serve(stub.clone()).await, Duration::ZERO);
    v.principal(Some("good")).await.unwrap();
    assert_eq!(stub.issued.load(Ordering::SeqCst), 1);
    // Keystone now rejects service token 1: the validator re-authenticates and retries.
    stub.reject_below.store(1, Ordering::SeqCst);
    v.principal(Some("good")).await.unwrap();
    assert_eq!(stub.issued.load(Ordering::SeqCst), 2);

    // Tokens that live shorter than the renewal margin are renewed on every use.
    let short = Arc::new(Stub {
        lifetime_secs: 5,
        ..Default::default()
    });
    let v = validator(&serve(short.clone()).await, Duration::ZERO);
    for _ in 0..3 {
        v.principal(Some("good")).await.unwrap();
    }
    assert_eq!(
        short.issued.load(Ordering::SeqCst),
        3,
        "renewed before each use: it nears expiry"
    );
}

#[tokio::test]
async fn unreachable_keystone_fails_closed_with_503() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let v = validator(
        &format!("http://127.0.0.1:{port}/v3"),
        Duration::from_secs(60),
    );
    let err = v.principal(Some("good")).await.unwrap_err();
    assert_eq!((err.clone(), err.status()), (AuthError::Unavailable, 503));
}

/// Moves tokio's clock forward by `by` at once (the stub Keystone keeps real time).
async fn time_passes(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

#[tokio::test]
async fn cache_is_bounded_by_ttl() {
    let stub = Arc::new(Stub {
        lifetime_secs: 3600,
        ..Default::default()
    });
    let url = serve(stub.clone()).await;
    let cached = validator(&url, Duration::from_secs(60));
    cached.principal(Some("good")).await.unwrap();
    // Invalidate every service token: a cached result needs no Keystone call.
    stub.reject_below.store(usize::MAX - 1, Ordering::SeqCst);
    assert!(
        cached.principal(Some("good")).await.is_ok(),
        "served from cache"
    );
    // The cache reads tokio's clock: a minute passes without waiting for it.
    time_passes(Duration::from_secs(59)).await;
    assert!(
        cached.principal(Some("good")).await.is_ok(),
        "still served from cache within its time"
    );
    time_passes(Duration::from_secs(2)).await;
    assert_eq!(
        cached.principal(Some("good")).await,
        Err(AuthError::Unavailable),
        "past its time, Keystone is asked again"
    );
    cached.clear_cache().await;
    assert_eq!(
        cached.principal(Some("good")).await,
        Err(AuthError::Unavailable)
    );
}

#[tokio::test]
async fn concurrent_requests_with_one_token_share_one_keystone_call() {
    let stub = Arc::new(Stub {
        lifetime_secs: 3600,
        delay_ms: 200,
        ..Default::default()
    });
    let v = Arc::new(validator(
        &serve(stub.clone()).await,
        Duration::from_secs(60),
    ));
    // The first caller gives up while Keystone is still answering: the others go on.
    let quitter = {
        let v = v.clone();
        tokio::spawn(async move { v.principal(Some("good")).await })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    let waiters: Vec<_> = (0..50)
        .map(|_| {
            let v = v.clone();
            tokio::spawn(async move { v.principal(Some("good")).await })
        })
        .collect();
    quitter.abort();
    for w in waiters {
        assert_eq!(w.await.unwrap().unwrap().name, "alice");
    }
    assert!(
        stub.validated.load(Ordering::SeqCst) <= 2,
        "51 callers, {} Keystone calls (at most the quitter's and one more)",
        stub.validated.load(Ordering::SeqCst)
    );
    // Failures are shared by those waiting together, not remembered.
    let bad: Vec<_> = (0..20)
        .map(|_| {
            let v = v.clone();
            tokio::spawn(async move { v.principal(Some("bogus")).await })
        })
        .collect();
    for b in bad {
        assert_eq!(b.await.unwrap(), Err(AuthError::Invalid));
    }
    let before = stub.validated.load(Ordering::SeqCst);
    assert!(
        before <= 3,
        "20 callers with one bad token: {before} calls in all"
    );
    assert_eq!(v.principal(Some("bogus")).await, Err(AuthError::Invalid));
    assert_eq!(stub.validated.load(Ordering::SeqCst), before + 1);
    assert!(v.inflight.is_empty(), "nothing left waiting");
}
