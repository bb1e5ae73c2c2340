//! Status mapping and request shape of the token and project calls, against a stub HTTP
//! server on loopback.

use super::*;
use axum::{
    http::{HeaderMap, StatusCode as S},
    routing::{get, post},
    Json, Router,
};

const TOKEN: &str = r#"{"token":{"user":{"domain":{"id":"d","name":"demo"},"id":"u","name":"alice"},
        "project":{"domain":{"id":"d","name":"demo"},"id":"p","name":"demo"},
        "roles":[{"id":"r","name":"kubernetes_admin"}],"expires_at":"2030-01-01T00:00:00.000000Z"}}"#;

async fn serve(router: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}/v3")
}

fn alice<'a>() -> PasswordAuth<'a> {
    PasswordAuth {
        user_name: "alice",
        password: "pw",
        user_domain: "demo",
        project: ProjectRef::Name {
            name: "demo",
            domain: "demo",
        },
    }
}

#[tokio::test]
async fn password_auth_sends_scope_and_reads_subject_token() {
    let app = Router::new().route(
        "/v3/auth/tokens",
        post(|Json(b): Json<serde_json::Value>| async move {
            assert_eq!(b["auth"]["scope"]["project"]["name"], "demo");
            assert_eq!(
                b["auth"]["identity"]["password"]["user"]["domain"]["name"],
                "demo"
            );
            (S::CREATED, [("X-Subject-Token", "tok-1")], TOKEN)
        }),
    );
    let c = Client::new(&serve(app).await).unwrap();
    let t = c.password_auth(&alice()).await.unwrap();
    assert_eq!(t.secret.expose(), "tok-1");
    assert_eq!(t.roles, vec!["kubernetes_admin"]);
}

#[tokio::test]
async fn wrong_password_maps_to_unauthorized() {
    let app = Router::new().route(
        "/v3/auth/tokens",
        post(|| async { (S::UNAUTHORIZED, r#"{"error":{"code":401,"message":"The request you have made requires authentication."}}"#) }),
    );
    let c = Client::new(&serve(app).await).unwrap();
    assert!(matches!(
        c.password_auth(&alice()).await,
        Err(Error::Unauthorized)
    ));
}

#[tokio::test]
async fn revoked_token_validation_maps_to_not_found_and_forbidden_keeps_message() {
    let app = Router::new().route(
        "/v3/auth/tokens",
        get(|h: HeaderMap| async move {
            if h["X-Subject-Token"] == "gone" {
                (
                    S::NOT_FOUND,
                    r#"{"error":{"code":404,"message":"Could not find token"}}"#,
                )
            } else {
                (
                    S::FORBIDDEN,
                    r#"{"error":{"code":403,"message":"You are not authorized"}}"#,
                )
            }
        }),
    );
    let c = Client::new(&serve(app).await).unwrap();
    let me = TokenSecret::new("me");
    let err = c
        .validate(&me, &TokenSecret::new("gone"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound));
    let err = c
        .validate(&me, &TokenSecret::new("other"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Forbidden(ref m) if m == "You are not authorized"),
        "{err:?}"
    );
}

#[tokio::test]
async fn server_errors_are_unavailable_and_refused_connections_unreachable() {
    let app = Router::new().route("/v3/", get(|| async { (S::BAD_GATEWAY, "upstream down") }));
    let c = Client::new(&serve(app).await).unwrap();
    let err = c.probe().await.unwrap_err();
    assert!(err.is_unavailable(), "{err:?}");

    // Bind and drop a listener to get a port nobody listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let c = Client::new(&format!("http://127.0.0.1:{port}/v3")).unwrap();
    let err = c.password_auth(&alice()).await.unwrap_err();
    assert!(matches!(err, Error::Unreachable(_)), "{err:?}");
    assert!(err.is_unavailable());
    assert!(!err.to_string().contains("pw"));
}

#[tokio::test]
async fn auth_projects_are_sorted_by_name() {
    let app = Router::new().route(
        "/v3/auth/projects",
        get(|| async {
            r#"{"projects":[{"id":"2","name":"staging","domain_id":"d"},{"id":"1","name":"demo","domain_id":"d"}]}"#
        }),
    );
    let c = Client::new(&serve(app).await).unwrap();
    let ps = c.auth_projects(&TokenSecret::new("t")).await.unwrap();
    let names: Vec<_> = ps.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["demo", "staging"]);
}

#[test]
fn base_url_gets_a_trailing_slash_and_bad_urls_are_rejected() {
    let c = Client::new("http://ks.example/identity/v3").unwrap();
    assert_eq!(c.base_url().as_str(), "http://ks.example/identity/v3/");
    assert!(matches!(Client::new("not a url"), Err(Error::BadUrl(_))));
}
