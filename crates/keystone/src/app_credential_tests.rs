//! Request shape and status mapping of the application-credential calls, against a stub
//! HTTP server on loopback.

use super::*;
use axum::{
    extract::Path,
    http::{HeaderMap, StatusCode as S},
    routing::{delete, post},
    Json, Router,
};

const TOKEN: &str = r#"{"token":{"methods":["application_credential"],
    "user":{"domain":{"id":"d","name":"demo"},"id":"u","name":"alice"},
    "project":{"domain":{"id":"d","name":"demo"},"id":"p","name":"demo"},
    "roles":[{"id":"r","name":"kubernetes_admin"}],"expires_at":"2030-01-01T00:00:00.000000Z",
    "application_credential":{"id":"ac-1","name":"ci","restricted":true}}}"#;

async fn serve(router: Router) -> Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    Client::new(&format!("http://{addr}/v3")).unwrap()
}

fn by_id<'a>() -> ApplicationCredentialAuth<'a> {
    ApplicationCredentialAuth {
        credential: CredentialRef::Id("ac-1"),
        secret: "s3cr3t-value",
    }
}

#[tokio::test]
async fn sign_in_by_id_sends_the_method_id_and_secret_and_no_scope() {
    let c = serve(Router::new().route(
        "/v3/auth/tokens",
        post(|Json(b): Json<serde_json::Value>| async move {
            let identity = &b["auth"]["identity"];
            assert_eq!(identity["methods"], json!(["application_credential"]));
            assert_eq!(
                identity["application_credential"],
                json!({ "id": "ac-1", "secret": "s3cr3t-value" })
            );
            // Keystone refuses a scope with an application credential.
            assert!(b["auth"].get("scope").is_none(), "{b}");
            (S::CREATED, [("X-Subject-Token", "tok-ac")], TOKEN)
        }),
    ))
    .await;
    let t = c.application_credential_auth(&by_id()).await.unwrap();
    assert_eq!(t.secret.expose(), "tok-ac");
    assert_eq!(t.project.unwrap().name, "demo");
    assert_eq!(t.application_credential.unwrap().id, "ac-1");
}

#[tokio::test]
async fn sign_in_by_name_names_the_owner() {
    let c = serve(Router::new().route(
        "/v3/auth/tokens",
        post(|Json(b): Json<serde_json::Value>| async move {
            let ac = &b["auth"]["identity"]["application_credential"];
            let expected = if ac["user"].get("id").is_some() {
                json!({ "name": "ci", "secret": "x", "user": { "id": "u" } })
            } else {
                json!({ "name": "ci", "secret": "x",
                        "user": { "name": "alice", "domain": { "name": "demo" } } })
            };
            assert_eq!(ac, &expected);
            (S::CREATED, [("X-Subject-Token", "tok")], TOKEN)
        }),
    ))
    .await;
    for user in [
        UserRef::Id("u"),
        UserRef::Name {
            name: "alice",
            domain: "demo",
        },
    ] {
        let auth = ApplicationCredentialAuth {
            credential: CredentialRef::Name { name: "ci", user },
            secret: "x",
        };
        c.application_credential_auth(&auth).await.unwrap();
    }
}

#[tokio::test]
async fn a_wrong_secret_and_a_deleted_credential_are_both_unauthorized() {
    // Keystone answers 401 for a wrong secret and 404 for an id it does not know.
    let c = serve(Router::new().route(
        "/v3/auth/tokens",
        post(|Json(b): Json<serde_json::Value>| async move {
            if b["auth"]["identity"]["application_credential"]["id"] == "gone" {
                (
                    S::NOT_FOUND,
                    r#"{"error":{"code":404,"message":"Could not find Application Credential: gone."}}"#,
                )
            } else {
                (
                    S::UNAUTHORIZED,
                    r#"{"error":{"code":401,"message":"The request you have made requires authentication."}}"#,
                )
            }
        }),
    ))
    .await;
    let wrong = c.application_credential_auth(&by_id()).await.unwrap_err();
    assert!(matches!(wrong, Error::Unauthorized), "{wrong:?}");
    let gone = ApplicationCredentialAuth {
        credential: CredentialRef::Id("gone"),
        secret: "x",
    };
    let err = c.application_credential_auth(&gone).await.unwrap_err();
    assert!(matches!(err, Error::Unauthorized), "{err:?}");
}

#[test]
fn debug_never_shows_a_secret() {
    let shown = format!("{:?}", by_id());
    assert!(!shown.contains("s3cr3t-value"), "{shown}");
    assert!(
        shown.contains("ac-1") && shown.contains("<redacted>"),
        "{shown}"
    );
    let secret = CredentialSecret::new("s3cr3t-value");
    assert_eq!(format!("{secret:?}"), "CredentialSecret(<redacted>)");
    assert_eq!(secret.expose(), "s3cr3t-value");
}

#[tokio::test]
async fn create_reads_the_secret_once_and_delete_names_the_credential() {
    let c = serve(
        Router::new()
            .route(
                "/v3/users/{user}/application_credentials",
                post(
                    |Path(user): Path<String>, h: HeaderMap, Json(b): Json<serde_json::Value>| async move {
                        assert_eq!(user, "u 1", "the user id is one path segment");
                        assert_eq!(h["X-Auth-Token"], "tok");
                        assert_eq!(b["application_credential"]["name"], "ci");
                        assert_eq!(b["application_credential"]["expires_at"], "2030-01-01T00:00:00Z");
                        (
                            S::CREATED,
                            r#"{"application_credential":{"id":"ac-9","name":"ci","project_id":"p",
                              "expires_at":"2030-01-01T00:00:00.000000","secret":"s3cr3t-value",
                              "roles":[{"id":"r","name":"kubernetes_admin"}]}}"#,
                        )
                    },
                ),
            )
            .route(
                "/v3/users/{user}/application_credentials/{id}",
                delete(|Path((user, id)): Path<(String, String)>| async move {
                    if (user.as_str(), id.as_str()) == ("u 1", "ac-9") {
                        S::NO_CONTENT
                    } else {
                        S::NOT_FOUND
                    }
                }),
            ),
    )
    .await;
    let new = NewApplicationCredential {
        name: "ci",
        description: None,
        expires_at: Some(OffsetDateTime::from_unix_timestamp(1_893_456_000).unwrap()),
    };
    let created = c
        .create_application_credential(&TokenSecret::new("tok"), "u 1", &new)
        .await
        .unwrap();
    assert_eq!(
        (created.id.as_str(), created.project_id.as_str()),
        ("ac-9", "p")
    );
    assert_eq!(created.secret.expose(), "s3cr3t-value");
    assert_eq!(created.expires_at.unwrap().unix_timestamp(), 1_893_456_000);
    assert!(!format!("{created:?}").contains("s3cr3t-value"));

    let tok = TokenSecret::new("tok");
    c.delete_application_credential(&tok, "u 1", "ac-9")
        .await
        .unwrap();
    let err = c
        .delete_application_credential(&tok, "u 1", "other")
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound), "{err:?}");
    // An id made of dots would climb out of the path: refused before any request.
    let err = c
        .delete_application_credential(&tok, "u 1", "..")
        .await
        .unwrap_err();
    assert!(matches!(err, Error::BadUrl(_)), "{err:?}");
}
