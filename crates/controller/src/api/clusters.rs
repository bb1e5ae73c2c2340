//! `/api/v1/clusters` and `/api/v1/clusters/{name}`: list, create, show, update, terminate.

use axum::{
    body::Bytes,
    extract::{
        rejection::{BytesRejection, QueryRejection},
        Path, Query, State,
    },
    http::StatusCode,
    response::IntoResponse,
    Json,
};
use kluster::listing::{ListQuery, TOTAL_HEADER};
use kluster::{Kluster, KlusterPhase};

use super::admission::admit;
use super::{ApiError, ApiState, Caller};
use crate::pki::{self, KlusterCa};
use crate::store::{CaRecord, StoredKluster};

/// `GET /api/v1/clusters` (ListClusters): the caller's project's klusters. Extension: the
/// list query `?q=&phase=&sort=&limit=&offset=` (`kluster::listing`) searches, filters,
/// sorts and pages them, and `X-Total-Count` says how many matched before paging; without
/// parameters every kluster, by name, as Kubernikus answers.
pub async fn list(
    State(st): State<ApiState>,
    caller: Caller,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let who = caller.allow(&st, "ListClusters")?;
    let Query(pairs) = query.map_err(super::error::bad_query)?;
    let query = ListQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, m))?;
    let listed = st.store.list_query(&who.account, &query).await?;
    Ok((
        [(TOTAL_HEADER, listed.total.to_string())],
        Json(listed.items),
    ))
}

/// `POST /api/v1/clusters` (CreateCluster): admission (validation, defaults, version, name
/// and CIDRs), then a CA and the stored kluster.
pub async fn create(
    State(st): State<ApiState>,
    caller: Caller,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Kluster>), ApiError> {
    let who = caller.allow(&st, "CreateCluster")?;
    let request = parse(body)?;
    let others: Vec<Kluster> = st
        .store
        .list(&who.account)
        .await?
        .into_iter()
        .map(|o| o.kluster)
        .collect();
    let k = admit(request, &others, &st.settings, &who.account)?;
    let ca = KlusterCa::generate(&k.name, &who.account).map_err(internal)?;
    let ca = CaRecord {
        key_sealed: ca.sealed_key(&st.sealer).map_err(internal)?,
        cert_pem: ca.cert_pem,
    };
    let stored = StoredKluster {
        kluster: k,
        creator: format!("{}/{}", who.name, who.domain),
        termination_protected: false,
    };
    st.store.insert(&who.account, &stored, &ca).await?;
    tracing::info!(
        kluster = stored.kluster.name,
        project = who.account,
        user = who.name,
        "kluster created"
    );
    Ok((StatusCode::CREATED, Json(stored.kluster)))
}

/// `GET /api/v1/clusters/{name}` (ShowCluster).
pub async fn show(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<Kluster>, ApiError> {
    let who = caller.allow(&st, "ShowCluster")?;
    Ok(Json(find(&st, &who.account, &name).await?.kluster))
}

/// `PUT /api/v1/clusters/{name}` (UpdateCluster): the Kubernikus update rules.
pub async fn update(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Kluster>, ApiError> {
    let who = caller.allow(&st, "UpdateCluster")?;
    let req = parse(body)?;
    // Only the spec changes; the status stays the reconcilers' (read and written at once).
    let changed = st
        .store
        .modify(&who.account, &name, |cur| {
            let next = kluster::update::apply(cur, &req, cur.status.phase)
                .map_err(|e| ApiError::unprocessable(e.to_string()))?;
            cur.spec = next.spec;
            Ok(())
        })
        .await?;
    match changed {
        None => Err(ApiError::not_found(&name)),
        Some(result) => result.map(Json),
    }
}

/// `DELETE /api/v1/clusters/{name}` (TerminateCluster): 202 and phase Terminating.
pub async fn terminate(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let who = caller.allow(&st, "TerminateCluster")?;
    let stored = find(&st, &who.account, &name).await?;
    if stored.termination_protected {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "Termination protection enabled",
        ));
    }
    let terminating = st
        .store
        .modify(&who.account, &name, |cur| {
            cur.status.phase = KlusterPhase::Terminating;
            Ok::<(), ApiError>(())
        })
        .await?;
    if terminating.is_none() {
        return Err(ApiError::not_found(&name));
    }
    // The phase change is the API's, so the event is too (deorbit reports the rest).
    st.store
        .record_event(
            &who.account,
            &name,
            kluster::EventType::Normal,
            &kluster::EventReason::Terminating,
            &format!("Kluster {name} is terminating"),
        )
        .await?;
    tracing::info!(
        kluster = name,
        project = who.account,
        user = who.name,
        "kluster terminating"
    );
    Ok(StatusCode::ACCEPTED)
}

/// `GET /api/v1/clusters/{name}/events` (GetClusterEvents).
pub async fn events(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<Vec<kluster::Event>>, ApiError> {
    let who = caller.allow(&st, "GetClusterEvents")?;
    find(&st, &who.account, &name).await?;
    Ok(Json(st.store.events(&who.account, &name).await?))
}

/// `GET /api/v1/clusters/{name}/info` (GetClusterInfo): the `kubernikusctl` setup command.
pub async fn info(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<kluster::KlusterInfo>, ApiError> {
    let who = caller.allow(&st, "GetClusterInfo")?;
    find(&st, &who.account, &name).await?;
    let setup_command = format!(
        "kubernikusctl auth init --username {} --user-domain-name {} --project-id {} --auth-url {} --url {} --name {}",
        who.name, who.domain, who.account, st.settings.auth_url, st.settings.public_url, name
    );
    Ok(Json(kluster::KlusterInfo {
        setup_command,
        binaries: Vec::new(),
    }))
}

/// `GET /api/v1/clusters/{name}/credentials` (GetClusterCredentials): a kubeconfig with a
/// new client certificate, valid 24 h, `CN=<user>@<domain>`, `O=os:<role>` per role.
pub async fn credentials(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<kluster::Credentials>, ApiError> {
    let who = caller.allow(&st, "GetClusterCredentials")?;
    let user = format!("{}@{}", who.name, who.domain);
    let orgs: Vec<String> = who.roles.iter().map(|r| format!("os:{r}")).collect();
    let (_, kubeconfig, _) = kubeconfig_for(&st, &who.account, &name, &user, &orgs).await?;
    tracing::info!(
        kluster = name,
        project = who.account,
        user,
        "client certificate issued"
    );
    Ok(Json(kluster::Credentials { kubeconfig }))
}

/// Mints a client certificate of kluster `name` for `user` (`O` = `orgs`) and wraps it in a
/// kubeconfig; returns the kluster, the kubeconfig and the CA certificate (PEM).
pub(super) async fn kubeconfig_for(
    st: &ApiState,
    account: &str,
    name: &str,
    user: &str,
    orgs: &[String],
) -> Result<(Kluster, String, String), ApiError> {
    let k = find(st, account, name).await?.kluster;
    let ca = open_ca(st, account, name).await?;
    let (cert_pem, key_pem) = ca
        .client_cert(user, orgs, pki::CLIENT_VALIDITY)
        .map_err(internal)?;
    let kubeconfig = pki::kubeconfig(&pki::KubeconfigParts {
        kluster: name,
        server: &k.status.apiserver,
        user,
        ca_pem: &ca.cert_pem,
        cert_pem: &cert_pem,
        key_pem: &key_pem,
    });
    Ok((k, kubeconfig, ca.cert_pem))
}

/// The kluster's CA, unsealed.
pub(super) async fn open_ca(
    st: &ApiState,
    account: &str,
    name: &str,
) -> Result<KlusterCa, ApiError> {
    let rec = st.store.ca(account, name).await?.ok_or_else(|| {
        ApiError::new(
            StatusCode::CONFLICT,
            "This kluster has no certificate authority yet; try again shortly",
        )
    })?;
    KlusterCa::open(&rec.cert_pem, &rec.key_sealed, &st.sealer).map_err(internal)
}

/// Logs a PKI fault and answers 500 without its details.
pub(super) fn internal(e: pki::PkiError) -> ApiError {
    tracing::error!(error = %e, "pki failure");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Internal error; it has been logged",
    )
}

/// `GET /api/v1/clusters/{name}/credentials/oidc` (GetClusterCredentialsOIDC): 404, as
/// Kubernikus answers when neither OIDC nor dex is configured (this stack runs no dex).
pub async fn credentials_oidc(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<kluster::Credentials>, ApiError> {
    let who = caller.allow(&st, "GetClusterCredentialsOIDC")?;
    find(&st, &who.account, &name).await?;
    Err(ApiError::new(
        StatusCode::NOT_FOUND,
        "OIDC is not configured for this kluster; use /credentials",
    ))
}

pub(super) async fn find(
    st: &ApiState,
    account: &str,
    name: &str,
) -> Result<StoredKluster, ApiError> {
    if kluster::validate::kluster_name(name).is_err() {
        return Err(ApiError::not_found(name));
    }
    st.store
        .get(account, name)
        .await?
        .ok_or_else(|| ApiError::not_found(name))
}

/// Decodes a JSON body; malformed JSON, wrong types and unknown fields are 422, an
/// oversized body 413.
fn parse(body: Result<Bytes, BytesRejection>) -> Result<Kluster, ApiError> {
    let bytes = body.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::unprocessable(format!("Invalid kluster JSON: {e}")))
}
