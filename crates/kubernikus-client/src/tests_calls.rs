//! The extension calls against a stand-in that records what it was sent: the list query and
//! its total, `If-Match` and the typed 412, termination protection (and a Kubernikus
//! without it), audit and ops queries, the observer and the per-request headers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, RawQuery};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, put};
use keystone::TokenSecret;
use kluster::listing::ListQuery;
use kluster::{ErrorReason, Kluster};

use super::*;

/// Every request the stand-in saw: path and query, and the headers that matter here.
type Seen = Arc<Mutex<Vec<String>>>;

async fn serve(app: axum::Router) -> Client {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    Client::new(&format!("http://{addr}")).unwrap()
}

fn note(seen: &Seen, what: String, h: &HeaderMap) {
    let hv = |n: &str| {
        h.get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-")
            .to_string()
    };
    seen.lock().unwrap().push(format!(
        "{what} if-match={} id={} for={}",
        hv("if-match"),
        hv("x-request-id"),
        hv("x-forwarded-for")
    ));
}

fn stand_in(seen: Seen) -> axum::Router {
    let (s1, s2, s3, s4, s5) = (seen.clone(), seen.clone(), seen.clone(), seen.clone(), seen);
    axum::Router::new()
        .route(
            "/api/v1/clusters",
            get(move |q: RawQuery, h: HeaderMap| async move {
                note(&s1, format!("list {}", q.0.unwrap_or_default()), &h);
                let k = Kluster {
                    name: "a".into(),
                    ..Default::default()
                };
                ([("x-total-count", "120")], axum::Json(vec![k]))
            }),
        )
        .route(
            "/api/v1/clusters/{name}",
            get(|Path(n): Path<String>| async move {
                if n == "gone" {
                    return (
                        StatusCode::NOT_FOUND,
                        r#"{"code":404,"message":"no","reason":"NotFound"}"#,
                    )
                        .into_response();
                }
                axum::Json(Kluster {
                    name: n,
                    ..Default::default()
                })
                .into_response()
            })
            .put(
                move |h: HeaderMap, axum::Json(k): axum::Json<Kluster>| async move {
                    note(&s2, format!("put {}", k.name), &h);
                    if h.get("if-match").is_some_and(|v| v != "\"7\"") {
                        return (
                            StatusCode::PRECONDITION_FAILED,
                            r#"{"code":412,"message":"changed","reason":"PreconditionFailed"}"#,
                        )
                            .into_response();
                    }
                    axum::Json(k).into_response()
                },
            ),
        )
        .route(
            "/api/v1/clusters/{name}/termination-protection",
            put(
                move |Path(n): Path<String>, h: HeaderMap, body: String| async move {
                    note(&s3, format!("protect {n} {body}"), &h);
                    if n == "gone" {
                        return (
                            StatusCode::NOT_FOUND,
                            r#"{"code":404,"message":"no","reason":"NotFound"}"#,
                        )
                            .into_response();
                    }
                    StatusCode::NO_CONTENT.into_response()
                },
            ),
        )
        .route(
            "/api/v1/audit",
            get(move |q: RawQuery, h: HeaderMap| async move {
                note(&s4, format!("audit {}", q.0.unwrap_or_default()), &h);
                axum::Json(Vec::<kluster::AuditRecord>::new())
            }),
        )
        .route(
            "/api/v1/ops/events",
            get(move |q: RawQuery, h: HeaderMap| async move {
                note(&s5, format!("ops {}", q.0.unwrap_or_default()), &h);
                axum::Json(Vec::<kluster::OpsEvent>::new())
            }),
        )
}

#[tokio::test]
async fn list_query_and_total_if_match_and_the_typed_412() {
    let seen = Seen::default();
    let c = serve(stand_in(seen.clone())).await;
    let t = TokenSecret::new("t");
    let q = ListQuery {
        q: "a b".into(),
        limit: Some(50),
        offset: 50,
        ..Default::default()
    };
    let crate::Listing::Paged { items, total } = c.list_page::<Vec<Kluster>>(&t, &q).await.unwrap()
    else {
        panic!("the stand-in paged the answer");
    };
    assert_eq!((items.len(), total), (1, 120));
    let k = Kluster {
        name: "a".into(),
        ..Default::default()
    };
    let v7 = Version::parse("7").unwrap();
    assert_eq!(c.update_if(&t, &k, Some(&v7)).await.unwrap().name, "a");
    let v8 = Version::parse("8").unwrap();
    let e = c.update_if(&t, &k, Some(&v8)).await.unwrap_err();
    assert!(matches!(&e, Error::Stale(b) if b.code == 412), "{e:?}");
    assert_eq!(e.status(), Some(412));
    assert_eq!(
        e.api().and_then(|b| b.reason.clone()),
        Some(ErrorReason::PreconditionFailed)
    );
    c.update(&t, &k).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen[0],
        "list q=a%20b&limit=50&offset=50 if-match=- id=- for=-"
    );
    assert_eq!(seen[1], "put a if-match=\"7\" id=- for=-");
    assert_eq!(seen[2], "put a if-match=\"8\" id=- for=-");
    assert_eq!(seen[3], "put a if-match=- id=- for=-");
    // The same page decoded as only the fields a caller names.
    #[derive(serde::Deserialize)]
    struct NameOnly {
        name: String,
    }
    match c.list_page::<Vec<NameOnly>>(&t, &q).await.unwrap() {
        crate::Listing::Paged { items, total } => {
            assert_eq!((items.len(), total), (1, 120));
            assert_eq!(items[0].name, "a");
        }
        crate::Listing::All(_) => panic!("the stand-in paged the answer"),
    }
    // And passed on undecoded: the array as answered.
    match c.list_page::<crate::JsonArray>(&t, &q).await.unwrap() {
        crate::Listing::Paged { items, total } => {
            let names: Vec<NameOnly> = items.decode().unwrap();
            assert_eq!((names.len(), names[0].name.as_str(), total), (1, "a", 120));
        }
        crate::Listing::All(_) => panic!("the stand-in paged the answer"),
    }
}

#[tokio::test]
async fn termination_protection_and_a_kubernikus_without_it() {
    let seen = Seen::default();
    let c = serve(stand_in(seen.clone())).await;
    let t = TokenSecret::new("t");
    c.set_termination_protection(&t, "a", true).await.unwrap();
    assert_eq!(
        seen.lock().unwrap()[0],
        "protect a {\"enabled\":true} if-match=- id=- for=-"
    );
    // The kluster does not exist: its 404 as it came.
    let e = c.set_termination_protection(&t, "gone", false).await;
    assert_eq!(e.unwrap_err().status(), Some(404));
    // A Kubernikus without the route (the kluster exists): not offered.
    let kubernikus = axum::Router::new().route(
        "/api/v1/clusters/{name}",
        get(|| async { axum::Json(Kluster::default()) }),
    );
    let k = serve(kubernikus).await;
    let e = k.set_termination_protection(&t, "a", true).await;
    assert_eq!(e, Err(Error::NotOffered("termination protection")));
}

#[tokio::test]
async fn audit_and_ops_queries_carry_the_request_and_are_observed() {
    let seen = Seen::default();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let log = calls.clone();
    let observer: Arc<Observer> = Arc::new(move |m: &str, r: &str, _: Duration, f| {
        log.lock().unwrap().push(format!("{m} {r} {f:?}"));
    });
    let c = serve(stand_in(seen.clone()))
        .await
        .with_observer(observer)
        .for_request("req-1", Some("10.0.0.9".parse().unwrap()));
    let t = TokenSecret::new("t");
    let q = AuditQuery {
        limit: Some(200),
        user: Some("al ice".into()),
        project: Some("p/1".into()),
        ..Default::default()
    };
    c.audit(&t, &q).await.unwrap();
    c.ops_events(&t, 300, Some("p 2")).await.unwrap();
    c.ops_events(&t, 300, None).await.unwrap();
    let _ = c.get(&t, "gone").await.unwrap_err();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            "audit limit=200&user=al%20ice&project=p%2F1 if-match=- id=req-1 for=10.0.0.9",
            "ops last=300&project=p%202 if-match=- id=req-1 for=10.0.0.9",
            "ops last=300 if-match=- id=req-1 for=10.0.0.9",
        ]
    );
    assert_eq!(
        *calls.lock().unwrap(),
        [
            "GET /api/v1/audit None",
            "GET /api/v1/ops/events None",
            "GET /api/v1/ops/events None",
            "GET /api/v1/clusters/:name Some(\"client_error\")",
        ]
    );
    // Unreachable is observed too.
    let down = Client::new("http://127.0.0.1:9")
        .unwrap()
        .with_observer(Arc::new({
            let calls = calls.clone();
            move |m: &str, r: &str, _: Duration, f| {
                calls.lock().unwrap().push(format!("{m} {r} {f:?}"))
            }
        }));
    assert!(matches!(down.list(&t).await, Err(Error::Unreachable(_))));
    assert_eq!(
        calls.lock().unwrap().last().unwrap(),
        "GET /api/v1/clusters Some(\"unreachable\")"
    );
}

/// Answers every request with one kluster (total 7), counting them.
struct Canned(Arc<std::sync::atomic::AtomicUsize>);

impl InProcessApi for Canned {
    fn answer(
        &self,
        req: reqwest::Request,
    ) -> BoxFuture<'static, Result<reqwest::Response, String>> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let token = req.headers().get("x-auth-token").cloned();
        Box::pin(async move {
            assert_eq!(token.as_ref().map(|t| t.as_bytes()), Some(&b"tok"[..]));
            let resp = axum::http::Response::builder()
                .header("x-total-count", "7")
                .body(r#"[{"name":"local"}]"#.to_string())
                .map_err(|e| e.to_string())?;
            Ok(reqwest::Response::from(resp))
        })
    }
}

#[tokio::test]
async fn a_local_answerer_takes_the_calls_but_not_the_event_stream() {
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // Nothing listens there: whatever goes over HTTP fails.
    let c = Client::new("http://127.0.0.1:9")
        .unwrap()
        .with_local(Arc::new(Canned(calls.clone())));
    let token = TokenSecret::new("tok");
    match c
        .list_page::<Vec<Kluster>>(&token, &ListQuery::default())
        .await
        .unwrap()
    {
        Listing::Paged { items, total } => {
            assert_eq!((items[0].name.as_str(), total), ("local", 7));
        }
        Listing::All(_) => panic!("the total was sent"),
    }
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(matches!(
        c.event_stream(&token, None).await,
        Err(Error::Unreachable(_))
    ));
    assert_eq!(
        calls.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the stream went over HTTP"
    );
}
