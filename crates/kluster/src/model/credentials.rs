//! Credential responses of a kluster: kubeconfig, bootstrap config and kubeadm secret.

use serde::{Deserialize, Serialize};

/// `GET /api/v1/clusters/{name}/credentials` (and `/oidc`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    /// Kubeconfig YAML.
    pub kubeconfig: String,
}

/// `GET /api/v1/clusters/{name}/bootstrap`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BootstrapConfig {
    /// Bootstrap kubeconfig.
    pub kubeconfig: String,
    /// CA of kubelet clients (PEM).
    #[serde(rename = "kubeletClientsCA")]
    pub kubelet_clients_ca: String,
    /// Path of that CA on the node.
    #[serde(rename = "kubeletClientsCAFile")]
    pub kubelet_clients_ca_file: String,
    /// Kubelet configuration.
    pub config: String,
}

/// `GET /api/v1/clusters/{name}/kubeadmsecret`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubeadmSecret {
    /// The secret.
    pub secret: String,
}
