//! Operations for node bootstrap and operators: `/bootstrap`, `/kubeadmsecret`, `/values`.

use axum::{
    extract::{Path, State},
    http::StatusCode,
    Json,
};

use super::clusters::{find, internal, kubeconfig_for, open_ca};
use super::{ApiError, ApiState, Caller};
use crate::auth::Permission;

/// Where nodes keep the CA that signs kubelet clients.
const KUBELET_CLIENTS_CA_FILE: &str = "/etc/kubernetes/certs/kubelet-clients-ca.pem";

/// `GET /api/v1/clusters/{name}/bootstrap` (GetBootstrapConfig): what a new node needs —
/// a bootstrap kubeconfig (24 h certificate, `O=system:bootstrappers`), the kubelet clients
/// CA and a kubelet configuration.
pub async fn bootstrap(
    State(st): State<ApiState>,
    caller: Caller,
    origin: super::audit::Origin,
    Path(name): Path<String>,
) -> Result<Json<kluster::BootstrapConfig>, ApiError> {
    let who = caller.allow(&st, Permission::GetBootstrapConfig)?;
    let user = format!("system:bootstrap:{name}");
    let orgs = ["system:bootstrappers".to_string()];
    let (k, kubeconfig, ca_pem) = kubeconfig_for(&st, &who.account, &name, &user, &orgs).await?;
    super::audit::record(
        &st,
        &who,
        &origin,
        &name,
        "bootstrap_credentials",
        Vec::new(),
    )
    .await;
    let config = format!(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDomain: {}\nclusterDNS:\n- {}\n\
         authentication:\n  x509:\n    clientCAFile: {KUBELET_CLIENTS_CA_FILE}\n",
        k.spec.dns_domain, k.spec.dns_address
    );
    Ok(Json(kluster::BootstrapConfig {
        kubeconfig,
        kubelet_clients_ca: ca_pem,
        kubelet_clients_ca_file: KUBELET_CLIENTS_CA_FILE.into(),
        config,
    }))
}

/// `GET /api/v1/clusters/{name}/kubeadmsecret` (GetClusterKubeadmSecret): the CA bundle
/// (certificate and key) for klusters whose control plane runs with kubeadm
/// (`spec.seedKubeadm`); 404 for every other kluster.
pub async fn kubeadm_secret(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<kluster::KubeadmSecret>, ApiError> {
    let who = caller.allow(&st, Permission::GetClusterKubeadmSecret)?;
    let k = find(&st, &who.account, &name).await?.kluster;
    if !k.spec.seed_kubeadm {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "This kluster has no kubeadm secret: it is not a seedKubeadm kluster",
        ));
    }
    let ca = open_ca(&st, &who.account, &name).await?;
    let secret = format!("{}{}", ca.cert_pem, ca.key_pem().map_err(internal)?);
    tracing::warn!(
        kluster = name,
        project = who.account,
        user = who.name,
        "kubeadm CA secret handed out"
    );
    Ok(Json(kluster::KubeadmSecret { secret }))
}

/// The body of `GET /api/v1/{account}/clusters/{name}/values`.
#[derive(serde::Serialize)]
pub struct Values {
    /// Chart values (YAML).
    pub values: String,
}

/// `GET /api/v1/{account}/clusters/{name}/values` (GetClusterValues, cloud admins only):
/// the chart values of any project's kluster. Holds no secrets.
pub async fn values(
    State(st): State<ApiState>,
    caller: Caller,
    Path((account, name)): Path<(String, String)>,
) -> Result<Json<Values>, ApiError> {
    caller.allow(&st, Permission::GetClusterValues)?;
    let k = find(&st, &account, &name).await?.kluster;
    let s = &k.spec;
    let q = |v: &str| serde_json::to_string(v).unwrap_or_default(); // JSON strings are YAML strings
    let mut y = format!(
        "name: {}\naccount: {}\nversion: {}\napi:\n  apiserverHost: {}\n  advertiseAddress: {}\n  advertisePort: {}\n\
         serviceCIDR: {}\nclusterCIDR: {}\ndnsAddress: {}\ndnsDomain: {}\nopenstack:\n  routerID: {}\n  networkID: {}\n  \
         lbSubnetID: {}\n  lbFloatingNetworkID: {}\n  securityGroupName: {}\nnodePools:\n",
        q(&k.name),
        q(&account),
        q(&s.version),
        q(&k.status.apiserver),
        q(&s.advertise_address),
        s.advertise_port,
        q(&s.service_cidr),
        q(s.cluster_cidr.as_deref().unwrap_or_default()),
        q(&s.dns_address),
        q(&s.dns_domain),
        q(&s.openstack.router_id),
        q(&s.openstack.network_id),
        q(&s.openstack.lb_subnet_id),
        q(&s.openstack.lb_floating_network_id),
        q(&s.openstack.security_group_name),
    );
    if s.node_pools.is_empty() {
        y = y.replace("nodePools:\n", "nodePools: []\n");
    }
    for p in &s.node_pools {
        y.push_str(&format!(
            "- name: {}\n  size: {}\n  flavor: {}\n  image: {}\n  availabilityZone: {}\n",
            q(&p.name),
            p.size,
            q(&p.flavor),
            q(&p.image),
            q(&p.availability_zone)
        ));
    }
    Ok(Json(Values { values: y }))
}
