//! [`Permission`]: the rules of the Kubernikus policy the API asks for, typed.

use serde::{Deserialize, Serialize};

use crate::{Creds, Policy};

/// One rule of the policy a request can need: an API operation (named as its swagger
/// `operationId`) or one of the policy's groups of people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Permission {
    /// List the project's klusters.
    ListClusters,
    /// Read one kluster.
    ShowCluster,
    /// Create a kluster.
    CreateCluster,
    /// Change a kluster (pools, version, protection).
    UpdateCluster,
    /// Delete a kluster.
    TerminateCluster,
    /// Read a kluster's or the project's events.
    GetClusterEvents,
    /// Read a kluster's info (versions, links).
    GetClusterInfo,
    /// Download a kubeconfig.
    GetClusterCredentials,
    /// Download an OIDC kubeconfig.
    GetClusterCredentialsOIDC,
    /// Read the cloud's metadata (flavors, networks, images) and quota.
    GetOpenstackMetadata,
    /// Read a node's bootstrap configuration.
    GetBootstrapConfig,
    /// Read a kluster's Helm values (cloud admins in the default policy).
    GetClusterValues,
    /// Read a kluster's kubeadm secret.
    GetClusterKubeadmSecret,
    /// The policy's `kubernetes_user` group: users of the project.
    ProjectUser,
    /// The policy's `kubernetes_admin` group: admins of the project.
    ProjectAdmin,
    /// The policy's `kubernetes_cloud_admin` group: cloud admins, across projects.
    CloudAdmin,
}

impl Permission {
    /// Every permission, in a fixed order.
    pub const ALL: [Permission; 16] = [
        Permission::ListClusters,
        Permission::ShowCluster,
        Permission::CreateCluster,
        Permission::UpdateCluster,
        Permission::TerminateCluster,
        Permission::GetClusterEvents,
        Permission::GetClusterInfo,
        Permission::GetClusterCredentials,
        Permission::GetClusterCredentialsOIDC,
        Permission::GetOpenstackMetadata,
        Permission::GetBootstrapConfig,
        Permission::GetClusterValues,
        Permission::GetClusterKubeadmSecret,
        Permission::ProjectUser,
        Permission::ProjectAdmin,
        Permission::CloudAdmin,
    ];

    /// The rule's name in the policy file.
    pub fn rule(self) -> &'static str {
        match self {
            Permission::ListClusters => "ListClusters",
            Permission::ShowCluster => "ShowCluster",
            Permission::CreateCluster => "CreateCluster",
            Permission::UpdateCluster => "UpdateCluster",
            Permission::TerminateCluster => "TerminateCluster",
            Permission::GetClusterEvents => "GetClusterEvents",
            Permission::GetClusterInfo => "GetClusterInfo",
            Permission::GetClusterCredentials => "GetClusterCredentials",
            Permission::GetClusterCredentialsOIDC => "GetClusterCredentialsOIDC",
            Permission::GetOpenstackMetadata => "GetOpenstackMetadata",
            Permission::GetBootstrapConfig => "GetBootstrapConfig",
            Permission::GetClusterValues => "GetClusterValues",
            Permission::GetClusterKubeadmSecret => "GetClusterKubeadmSecret",
            Permission::ProjectUser => "kubernetes_user",
            Permission::ProjectAdmin => "kubernetes_admin",
            Permission::CloudAdmin => "kubernetes_cloud_admin",
        }
    }

    /// The permission a policy rule name stands for, if the API asks for it.
    pub fn from_rule(name: &str) -> Option<Permission> {
        Permission::ALL.into_iter().find(|p| p.rule() == name)
    }

    /// For a group, who belongs to it in the default policy, in words (`None` for an
    /// operation: its refusal names the operation instead).
    pub fn group(self) -> Option<&'static str> {
        match self {
            Permission::ProjectUser => {
                Some("users of the project (role kubernetes_member or kubernetes_admin)")
            }
            Permission::ProjectAdmin => Some("admins of the project (role kubernetes_admin)"),
            Permission::CloudAdmin => Some(
                "cloud admins only (the policy's kubernetes_cloud_admin rule: project cloud_admin)",
            ),
            _ => None,
        }
    }
}

impl Policy {
    /// Whether `creds` have `permission`.
    pub fn permits(&self, permission: Permission, creds: &Creds) -> bool {
        self.allows(permission.rule(), creds)
    }

    /// Every permission `creds` have, in [`Permission::ALL`]'s order.
    pub fn granted(&self, creds: &Creds) -> Vec<Permission> {
        Permission::ALL
            .into_iter()
            .filter(|p| self.permits(*p, creds))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::KUBERNIKUS_POLICY;

    fn creds(roles: &[&str], project: &str, domain: &str) -> Creds {
        Creds {
            user_id: "u".into(),
            project_id: "p".into(),
            project_name: project.into(),
            domain_name: domain.into(),
            roles: roles.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn every_permission_is_a_rule_of_the_built_in_policy_and_round_trips() {
        let policy = KUBERNIKUS_POLICY;
        for p in Permission::ALL {
            assert!(policy.contains(&format!("\"{}\":", p.rule())), "{p:?}");
            assert_eq!(Permission::from_rule(p.rule()), Some(p));
        }
        assert_eq!(Permission::from_rule("DeleteEverything"), None);
    }

    #[test]
    fn the_default_policy_grants_members_reading_admins_changing_and_cloud_admins_values() {
        let policy = Policy::kubernikus();
        let member = policy.granted(&creds(&["kubernetes_member"], "demo", "Default"));
        assert!(member.contains(&Permission::ListClusters));
        assert!(member.contains(&Permission::ProjectUser));
        assert!(!member.contains(&Permission::CreateCluster));
        assert!(!member.contains(&Permission::ProjectAdmin));
        let admin = policy.granted(&creds(&["kubernetes_admin"], "demo", "Default"));
        for p in [Permission::CreateCluster, Permission::TerminateCluster] {
            assert!(admin.contains(&p), "{p:?}");
        }
        assert!(!admin.contains(&Permission::CloudAdmin));
        assert!(!admin.contains(&Permission::GetClusterValues));
        let cloud = policy.granted(&creds(&[], "cloud_admin", "ccadmin"));
        assert_eq!(
            cloud,
            [Permission::GetClusterValues, Permission::CloudAdmin]
        );
        assert!(policy.granted(&creds(&[], "demo", "Default")).is_empty());
    }
}
