//! Application credentials: signing in with one (the token is scoped to the credential's
//! project), and creating and deleting them (`/v3/users/{id}/application_credentials`).

use reqwest::Method;
use serde::Deserialize;
use serde_json::json;
use time::OffsetDateTime;

use crate::client::{check, AUTH_TOKEN};
use crate::{Client, Error, Token, TokenSecret};

/// An application credential's secret, as Keystone returns it once at creation. `Debug`
/// never shows it and it has no `Display`: call [`CredentialSecret::expose`] to send it.
#[derive(Clone, PartialEq, Eq)]
pub struct CredentialSecret(String);

impl CredentialSecret {
    /// Wraps a raw secret.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The raw secret, for a sign-in request.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for CredentialSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CredentialSecret(<redacted>)")
    }
}

/// How a user is named in an application-credential sign-in by name.
#[derive(Clone, Copy, Debug)]
pub enum UserRef<'a> {
    /// By id.
    Id(&'a str),
    /// By name within a domain (by name).
    Name {
        /// User name.
        name: &'a str,
        /// Name of the user's domain.
        domain: &'a str,
    },
}

/// Which application credential signs in: by id, or by name and its owner.
#[derive(Clone, Copy, Debug)]
pub enum CredentialRef<'a> {
    /// By the credential's id.
    Id(&'a str),
    /// By the credential's name; names are unique per user only, so the user is named too.
    Name {
        /// The credential's name.
        name: &'a str,
        /// Its owner.
        user: UserRef<'a>,
    },
}

/// An application credential and its secret, for [`Client::application_credential_auth`].
/// No scope is given: the token is scoped to the credential's project. `Debug` hides the
/// secret.
#[derive(Clone, Copy)]
pub struct ApplicationCredentialAuth<'a> {
    /// The credential.
    pub credential: CredentialRef<'a>,
    /// Its secret; never logged.
    pub secret: &'a str,
}

impl std::fmt::Debug for ApplicationCredentialAuth<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApplicationCredentialAuth")
            .field("credential", &self.credential)
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// What to create with [`Client::create_application_credential`]. It gets the roles the
/// creating token has on its project, and is restricted (it cannot create other
/// application credentials or trusts).
#[derive(Clone, Copy, Debug)]
pub struct NewApplicationCredential<'a> {
    /// Name, unique among the user's credentials.
    pub name: &'a str,
    /// Free text shown in listings.
    pub description: Option<&'a str>,
    /// When it stops working; `None`: never.
    pub expires_at: Option<OffsetDateTime>,
}

/// A freshly created application credential.
#[derive(Clone, Debug)]
pub struct ApplicationCredential {
    /// Keystone's id (what a sign-in names).
    pub id: String,
    /// Its name.
    pub name: String,
    /// The project its tokens are scoped to.
    pub project_id: String,
    /// When it stops working, if ever.
    pub expires_at: Option<OffsetDateTime>,
    /// The secret: Keystone stores only a hash, so this is the one chance to read it.
    pub secret: CredentialSecret,
}

#[derive(Deserialize)]
struct CreatedBody {
    application_credential: Created,
}

#[derive(Deserialize)]
struct Created {
    id: String,
    name: String,
    project_id: String,
    #[serde(default)]
    expires_at: Option<String>,
    secret: String,
}

impl Client {
    /// Issues a token with an application credential (`POST /v3/auth/tokens`, method
    /// `application_credential`), scoped to the credential's project. A wrong secret and an
    /// unknown (deleted) credential are both [`Error::Unauthorized`]: the caller cannot tell
    /// which, so ids cannot be probed.
    pub async fn application_credential_auth(
        &self,
        auth: &ApplicationCredentialAuth<'_>,
    ) -> Result<Token, Error> {
        let credential = match auth.credential {
            CredentialRef::Id(id) => json!({ "id": id, "secret": auth.secret }),
            CredentialRef::Name { name, user } => {
                let user = match user {
                    UserRef::Id(id) => json!({ "id": id }),
                    UserRef::Name { name, domain } => {
                        json!({ "name": name, "domain": { "name": domain } })
                    }
                };
                json!({ "name": name, "user": user, "secret": auth.secret })
            }
        };
        let body = json!({ "auth": { "identity": {
            "methods": ["application_credential"],
            "application_credential": credential,
        }}});
        match self.issue(body).await {
            Err(Error::NotFound) => Err(Error::Unauthorized),
            other => other,
        }
    }

    /// Creates an application credential for `user_id` in the project `token` is scoped to
    /// (`POST /v3/users/{user_id}/application_credentials`; the token must be the user's
    /// own, and not itself one of an application credential).
    pub async fn create_application_credential(
        &self,
        token: &TokenSecret,
        user_id: &str,
        new: &NewApplicationCredential<'_>,
    ) -> Result<ApplicationCredential, Error> {
        let mut body = json!({ "name": new.name });
        if let Some(d) = new.description {
            body["description"] = json!(d);
        }
        if let Some(at) = new.expires_at {
            let at = at
                .format(&time::format_description::well_known::Rfc3339)
                .map_err(|e| Error::BadUrl(format!("expires_at: {e}")))?;
            body["expires_at"] = json!(at);
        }
        let path = format!("users/{}/application_credentials", segment(user_id)?);
        let resp = self
            .request(Method::POST, &path)?
            .header(AUTH_TOKEN, token.expose())
            .json(&json!({ "application_credential": body }))
            .send()
            .await
            .map_err(Error::from_transport)?;
        let created: CreatedBody = check(resp)
            .await?
            .json()
            .await
            .map_err(|e| Error::Decode(e.without_url().to_string()))?;
        let c = created.application_credential;
        let expires_at = c.expires_at.as_deref().map(utc_time).transpose()?;
        Ok(ApplicationCredential {
            id: c.id,
            name: c.name,
            project_id: c.project_id,
            expires_at,
            secret: CredentialSecret::new(c.secret),
        })
    }

    /// Deletes application credential `id` of `user_id`
    /// (`DELETE /v3/users/{user_id}/application_credentials/{id}`): it stops signing in and
    /// the tokens issued with it stop being accepted.
    pub async fn delete_application_credential(
        &self,
        token: &TokenSecret,
        user_id: &str,
        id: &str,
    ) -> Result<(), Error> {
        let path = format!(
            "users/{}/application_credentials/{}",
            segment(user_id)?,
            segment(id)?
        );
        let resp = self
            .request(Method::DELETE, &path)?
            .header(AUTH_TOKEN, token.expose())
            .send()
            .await
            .map_err(Error::from_transport)?;
        check(resp).await.map(drop)
    }
}

/// An ISO 8601 time; Keystone gives application credentials' expiry without an offset,
/// meaning UTC.
fn utc_time(s: &str) -> Result<OffsetDateTime, Error> {
    use time::format_description::well_known::Iso8601;
    OffsetDateTime::parse(s, &Iso8601::DEFAULT)
        .or_else(|_| time::PrimitiveDateTime::parse(s, &Iso8601::DEFAULT).map(|t| t.assume_utc()))
        .map_err(|e| Error::Decode(format!("expires_at {s:?}: {e}")))
}

/// `s` percent-encoded as one URL path segment (letters, digits, `-` and `_` kept), so an
/// id cannot reach another path; empty and dot-only values (which URLs treat as `.` and
/// `..` however they are encoded) are refused.
fn segment(s: &str) -> Result<String, Error> {
    if s.chars().all(|c| c == '.') {
        return Err(Error::BadUrl(format!("{s:?} is not an id")));
    }
    Ok(s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect())
}

#[cfg(test)]
#[path = "app_credential_tests.rs"]
mod tests;
