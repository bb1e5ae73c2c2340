//! The Keystone data this client returns: tokens, projects and domains.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

/// A Keystone token's secret (the `X-Subject-Token` value). `Debug` never shows it and it
/// has no `Display`: call [`TokenSecret::expose`] where the value must be sent to Keystone.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TokenSecret(String);

impl TokenSecret {
    /// Wraps a raw token value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The raw token value, for an `X-Auth-Token` / `X-Subject-Token` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for TokenSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenSecret(<redacted>)")
    }
}

/// An id + name pair as Keystone nests it (users, roles, domains).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedRef {
    /// Keystone's id.
    pub id: String,
    /// Human-readable name.
    pub name: String,
}

/// A domain reference.
pub type Domain = NamedRef;

/// A project, with the domain it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    /// Keystone's project id (Kubernikus calls it the account).
    pub id: String,
    /// Project name, unique within its domain.
    pub name: String,
    /// The owning domain; `/v3/auth/projects` gives only its id, so the name may be empty.
    pub domain: Domain,
}

/// A validated or freshly issued token and what it says about its bearer.
#[derive(Clone, Debug)]
pub struct Token {
    /// The secret to send as `X-Auth-Token`.
    pub secret: TokenSecret,
    /// When Keystone stops accepting the token.
    pub expires_at: OffsetDateTime,
    /// The user the token was issued to.
    pub user: NamedRef,
    /// The user's domain.
    pub user_domain: Domain,
    /// The project scope; `None` for unscoped (or domain-scoped) tokens.
    pub project: Option<Project>,
    /// Role names granted on the scope.
    pub roles: Vec<String>,
    /// The application credential the token was issued with, if any. Keystone refuses to
    /// rescope such a token: it is bound to the credential's project.
    pub application_credential: Option<NamedRef>,
}

/// Wire shapes of Keystone's token body.
pub(crate) mod wire {
    use serde::Deserialize;

    #[derive(Deserialize)]
    pub struct TokenBody {
        pub token: TokenData,
    }

    #[derive(Deserialize)]
    pub struct TokenData {
        pub expires_at: String,
        pub user: User,
        #[serde(default)]
        pub project: Option<ScopedProject>,
        #[serde(default)]
        pub roles: Vec<Role>,
        #[serde(default)]
        pub application_credential: Option<super::NamedRef>,
    }

    #[derive(Deserialize)]
    pub struct User {
        pub id: String,
        pub name: String,
        pub domain: super::NamedRef,
    }

    #[derive(Deserialize)]
    pub struct ScopedProject {
        pub id: String,
        pub name: String,
        pub domain: super::NamedRef,
    }

    #[derive(Deserialize)]
    pub struct Role {
        pub name: String,
    }

    #[derive(Deserialize)]
    pub struct ProjectsBody {
        pub projects: Vec<ListedProject>,
    }

    #[derive(Deserialize)]
    pub struct ListedProject {
        pub id: String,
        pub name: String,
        pub domain_id: String,
    }

    #[derive(Deserialize)]
    pub struct ErrorBody {
        pub error: ErrorData,
    }

    #[derive(Deserialize)]
    pub struct ErrorData {
        pub message: String,
    }
}

impl Token {
    /// Builds a token from Keystone's JSON body and the `X-Subject-Token` value.
    pub(crate) fn from_body(secret: TokenSecret, body: &[u8]) -> Result<Self, crate::Error> {
        let body: wire::TokenBody =
            serde_json::from_slice(body).map_err(|e| crate::Error::Decode(e.to_string()))?;
        let t = body.token;
        let expires_at = OffsetDateTime::parse(
            &t.expires_at,
            &time::format_description::well_known::Iso8601::DEFAULT,
        )
        .map_err(|e| crate::Error::Decode(format!("expires_at {:?}: {e}", t.expires_at)))?;
        Ok(Token {
            secret,
            expires_at,
            user: NamedRef {
                id: t.user.id,
                name: t.user.name,
            },
            user_domain: t.user.domain,
            project: t.project.map(|p| Project {
                id: p.id,
                name: p.name,
                domain: p.domain,
            }),
            roles: t.roles.into_iter().map(|r| r.name).collect(),
            application_credential: t.application_credential,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = r#"{"token":{"methods":["password"],"user":{"domain":{"id":"d1","name":"demo"},
        "id":"u1","name":"alice","password_expires_at":null},"audit_ids":["x"],
        "expires_at":"2026-11-29T17:00:00.000000Z","issued_at":"2026-11-29T16:00:00.000000Z",
        "project":{"domain":{"id":"d1","name":"demo"},"id":"p1","name":"demo"},"is_domain":false,
        "roles":[{"id":"r1","name":"kubernetes_admin"},{"id":"r2","name":"reader"}]}}"#;

    #[test]
    fn token_body_is_parsed_with_scope_roles_and_expiry() {
        let t = Token::from_body(TokenSecret::new("s3cr3t"), BODY.as_bytes()).unwrap();
        assert_eq!(t.user.name, "alice");
        assert_eq!(t.user_domain.name, "demo");
        let p = t.project.unwrap();
        assert_eq!((p.id.as_str(), p.name.as_str()), ("p1", "demo"));
        assert_eq!(t.roles, vec!["kubernetes_admin", "reader"]);
        assert_eq!(t.expires_at.unix_timestamp(), 1_795_971_600);
    }

    #[test]
    fn unscoped_token_has_no_project() {
        let body = r#"{"token":{"user":{"domain":{"id":"d","name":"D"},"id":"u","name":"n"},
            "expires_at":"2026-11-29T17:00:00Z"}}"#;
        let t = Token::from_body(TokenSecret::new("x"), body.as_bytes()).unwrap();
        assert!(t.project.is_none());
        assert!(t.roles.is_empty());
        assert!(t.application_credential.is_none());
    }

    #[test]
    fn a_token_of_an_application_credential_names_it() {
        let body = r#"{"token":{"methods":["application_credential"],
            "user":{"domain":{"id":"d","name":"demo"},"id":"u","name":"alice"},
            "expires_at":"2026-11-29T17:00:00Z",
            "project":{"domain":{"id":"d","name":"demo"},"id":"p","name":"demo"},
            "application_credential":{"id":"ac1","name":"ci","restricted":true}}}"#;
        let t = Token::from_body(TokenSecret::new("x"), body.as_bytes()).unwrap();
        let ac = t.application_credential.unwrap();
        assert_eq!((ac.id.as_str(), ac.name.as_str()), ("ac1", "ci"));
    }

    #[test]
    fn bad_expiry_is_a_decode_error() {
        let body = r#"{"token":{"user":{"domain":{"id":"d","name":"D"},"id":"u","name":"n"},
            "expires_at":"tomorrow"}}"#;
        let err = Token::from_body(TokenSecret::new("x"), body.as_bytes()).unwrap_err();
        assert!(matches!(err, crate::Error::Decode(m) if m.contains("tomorrow")));
    }

    #[test]
    fn token_secret_debug_is_redacted() {
        let t = Token::from_body(TokenSecret::new("s3cr3t-value"), BODY.as_bytes()).unwrap();
        let shown = format!("{t:?}");
        assert!(!shown.contains("s3cr3t-value"), "{shown}");
        assert!(shown.contains("<redacted>"));
    }
}
