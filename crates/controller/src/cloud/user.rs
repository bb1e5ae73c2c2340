//! A kluster's own OpenStack user, as the cloud is asked to make it.

/// A kluster's own OpenStack user (Kubernikus's per-kluster service user): it boots the
/// kluster's servers with a token scoped to the kluster's project. `Debug` hides the
/// password.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct KlusterUser {
    /// User name, unique in its domain (`kubernikus-<kluster>-<project id>`).
    pub name: String,
    /// Name of the domain it lives in.
    pub domain: String,
    /// Its password (sealed in the store).
    pub password: String,
}

impl KlusterUser {
    /// The user name of kluster `kluster` in `project`: names are DNS labels and project
    /// ids hex, so one kluster's name never equals another's.
    pub fn name_for(kluster: &str, project: &str) -> String {
        format!("kubernikus-{kluster}-{project}")
    }
}

impl std::fmt::Debug for KlusterUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KlusterUser")
            .field("name", &self.name)
            .field("domain", &self.domain)
            .field("password", &"<redacted>")
            .finish()
    }
}
