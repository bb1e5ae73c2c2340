//! Informational responses: `/info`, `/api`, a kluster's info and the caller ([`Principal`]).

use serde::{Deserialize, Serialize};

/// `GET /info`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// Build version.
    #[serde(rename = "gitVersion")]
    pub git_version: String,
    /// Version used when a create request names none.
    #[serde(rename = "defaultClusterVersion")]
    pub default_cluster_version: String,
    /// Versions klusters may run.
    #[serde(
        default,
        rename = "supportedClusterVersions",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub supported_cluster_versions: Vec<String>,
    /// Versions new klusters may be created with.
    #[serde(
        default,
        rename = "availableClusterVersions",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub available_cluster_versions: Vec<String>,
}

/// `GET /api/v1/clusters/{name}/info`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KlusterInfo {
    /// `kubernikusctl auth init …` command.
    #[serde(rename = "setupCommand")]
    pub setup_command: String,
    /// Download links of client binaries.
    pub binaries: Vec<Binaries>,
}

/// Download links of one client binary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binaries {
    /// Binary name.
    pub name: String,
    /// One link per platform.
    pub links: Vec<Link>,
}

/// A platform's download link.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// e.g. linux.
    pub platform: String,
    /// URL.
    pub link: String,
}

/// `GET /api`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiVersions {
    /// Available API versions.
    pub versions: Vec<String>,
}

/// The authenticated caller.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principal {
    /// User name.
    pub name: String,
    /// User id.
    pub id: String,
    /// User's domain name.
    pub domain: String,
    /// Project id.
    pub account: String,
    /// Project name.
    pub account_name: String,
    /// Roles on the project.
    pub roles: Vec<String>,
    /// Groups of the user.
    #[serde(default)]
    pub groups: Vec<String>,
}
