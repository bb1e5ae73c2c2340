//! Settings of the OpenStack provider: where Keystone is, the service user that signs in to
//! every kluster's project, which region and interface of the catalog to call, and how long
//! and how often to try. `Debug` never shows the password.

use std::time::Duration;

use super::super::CloudError;

/// Appended to a refused sign-in: the settings that name the service user.
pub const CREDENTIAL_KEYS: &str = " (check controller_openstack_user, \
     controller_openstack_user_domain and controller_openstack_password)";

/// Which of a service's catalog endpoints to call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interface {
    /// The endpoint users reach (Kubernikus's choice).
    #[default]
    Public,
    /// The endpoint inside the cloud's own network.
    Internal,
    /// The admin endpoint (old clouds).
    Admin,
}

impl Interface {
    /// The catalog's spelling: `public`, `internal` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            Interface::Public => "public",
            Interface::Internal => "internal",
            Interface::Admin => "admin",
        }
    }
}

impl std::str::FromStr for Interface {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "public" => Ok(Interface::Public),
            "internal" => Ok(Interface::Internal),
            "admin" => Ok(Interface::Admin),
            other => Err(format!(
                "interface {other:?}: expected public, internal or admin"
            )),
        }
    }
}

impl std::fmt::Display for Interface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the provider reaches OpenStack. Build it with [`OpenStackConfig::new`] and change
/// the fields that differ from the defaults.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenStackConfig {
    /// Keystone v3 endpoint, e.g. `https://identity.example.com/v3`.
    pub auth_url: String,
    /// The service user's name.
    pub user_name: String,
    /// Its password; never logged (`Debug` shows `<redacted>`).
    pub password: String,
    /// Name of the service user's domain.
    pub user_domain: String,
    /// The service user's own project (used by [`super::OpenStackCloud::verify`]); kluster
    /// projects are scoped by id, and the user needs a role on each of them.
    pub project: String,
    /// Name of that project's domain.
    pub project_domain: String,
    /// Region of the catalog's endpoints; empty: the first endpoint of any region.
    pub region: String,
    /// Which endpoint of each service to call.
    pub interface: Interface,
    /// Longest wait for one HTTP call (connect, send, answer).
    pub timeout: Duration,
    /// Tries of a GET that fails to connect or gets a 5xx (at least 1; other calls are
    /// sent once).
    pub attempts: u32,
    /// First pause between tries; it doubles each time (at most 5 s).
    pub retry_backoff: Duration,
    /// A token is renewed this long before it expires (at most half its lifetime).
    pub renew_before: Duration,
    /// Security group of new servers when the caller names none (Kubernikus: `default`).
    pub security_group: String,
    /// Name of the domain where each kluster gets a user of its own that boots its
    /// servers (Kubernikus: `kubernikus`); empty: the service user acts for klusters.
    pub kluster_user_domain: String,
    /// Roles the kluster users get on their kluster's project (e.g. `member`).
    pub kluster_user_roles: Vec<String>,
    /// A PEM file of CA certificates to trust beside the built-in and system ones (a
    /// private cloud's own CA), for Keystone and every service.
    pub ca_file: Option<std::path::PathBuf>,
    /// The cloud's message bus carrying Nova's notifications (`None`: poll only).
    pub notifications: Option<crate::notices::NoticeConfig>,
}

impl OpenStackConfig {
    /// Settings for Keystone at `auth_url` and the service user `user_name` in
    /// `user_domain` with its project `project` in the same domain; public interface, any
    /// region, 30 s calls, 3 tries of GETs, tokens renewed 5 minutes before expiry.
    pub fn new(
        auth_url: impl Into<String>,
        user_name: impl Into<String>,
        password: impl Into<String>,
        user_domain: impl Into<String>,
        project: impl Into<String>,
    ) -> Self {
        let user_domain = user_domain.into();
        OpenStackConfig {
            auth_url: auth_url.into(),
            user_name: user_name.into(),
            password: password.into(),
            project_domain: user_domain.clone(),
            user_domain,
            project: project.into(),
            region: String::new(),
            interface: Interface::Public,
            timeout: Duration::from_secs(30),
            attempts: 3,
            retry_backoff: Duration::from_millis(200),
            renew_before: Duration::from_secs(300),
            security_group: "default".into(),
            kluster_user_domain: String::new(),
            kluster_user_roles: vec!["member".into()],
            ca_file: None,
            notifications: None,
        }
    }

    /// Checks what cannot work before any call is made.
    pub fn validate(&self) -> Result<(), CloudError> {
        let bad = |what: &str| Err(CloudError::new(format!("OpenStack settings: {what}")));
        match url::Url::parse(&self.auth_url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => {
                return bad(&format!(
                    "auth URL {:?} is not an http(s) URL",
                    self.auth_url
                ))
            }
        }
        if self.user_name.is_empty() || self.user_domain.is_empty() {
            return bad("the service user and its domain must be set");
        }
        if self.password.is_empty() {
            return bad("the service user's password must be set");
        }
        if self.attempts == 0 {
            return bad("attempts must be at least 1");
        }
        if self.timeout.is_zero() {
            return bad("the call timeout must be longer than 0");
        }
        if !self.kluster_user_domain.is_empty() && self.kluster_user_roles.is_empty() {
            return bad(
                "kluster users need at least one role (controller_openstack_kluster_user_roles)",
            );
        }
        Ok(())
    }

    /// The client options toward Keystone and the services: the call timeout (at most
    /// 10 s to connect) and the CA file.
    pub fn client_options(&self) -> keystone::ClientOptions {
        keystone::ClientOptions {
            connect_timeout: self.timeout.min(Duration::from_secs(10)),
            timeout: self.timeout,
            ca_file: self.ca_file.clone(),
        }
    }

    /// The pause before try `attempt + 1` (after `attempt` failed tries, from 1).
    pub(super) fn backoff(&self, attempt: u32) -> Duration {
        let doubled = self
            .retry_backoff
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        doubled.min(Duration::from_secs(5))
    }
}

impl std::fmt::Debug for OpenStackConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenStackConfig")
            .field("auth_url", &self.auth_url)
            .field("user_name", &self.user_name)
            .field("password", &"<redacted>")
            .field("user_domain", &self.user_domain)
            .field("project", &self.project)
            .field("project_domain", &self.project_domain)
            .field("region", &self.region)
            .field("interface", &self.interface)
            .field("timeout", &self.timeout)
            .field("attempts", &self.attempts)
            .field("retry_backoff", &self.retry_backoff)
            .field("ca_file", &self.ca_file)
            .field("renew_before", &self.renew_before)
            .field("security_group", &self.security_group)
            .field("kluster_user_domain", &self.kluster_user_domain)
            .field("kluster_user_roles", &self.kluster_user_roles)
            .field("notifications", &self.notifications)
            .finish()
    }
}
