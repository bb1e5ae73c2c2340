//! `/api/v1/clusters` and `/api/v1/clusters/{name}`: list, create, show, update, terminate.

use axum::{
    body::Bytes,
    extract::{
        rejection::{BytesRejection, QueryRejection},
        Path, Query, State,
    },
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use kluster::listing::{ListQuery, TOTAL_HEADER};
use kluster::{Kluster, KlusterPhase};

use super::audit::{self, Origin};
use super::catalog::{self, Catalog};
use super::versions::{versioned, IfMatch};
use super::{admission, ApiError, ApiState, Caller};
use crate::auth::Permission;
use crate::pki::{self, KlusterCa};
use crate::store::{CaRecord, NewEvent, StoredKluster};

/// `GET /api/v1/clusters` (ListClusters): the caller's project's klusters. Extension: the
/// list query `?q=&phase=&sort=&limit=&offset=` (`kluster::listing`) searches, filters,
/// sorts and pages them, and `X-Total-Count` says how many matched before paging;
/// `fields=summary` answers each as a [`kluster::KlusterSummary`]. Without parameters
/// every kluster, by name, as Kubernikus answers.
pub async fn list(
    State(st): State<ApiState>,
    caller: Caller,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
    let who = caller.allow(&st, Permission::ListClusters)?;
    let Query(pairs) = query.map_err(super::error::bad_query)?;
    let query = ListQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, m))?;
    let listed = st.store.list_query(&who.account, &query).await?;
    let total = [(TOTAL_HEADER, listed.total.to_string())];
    Ok(if query.summary {
        let rows: Vec<kluster::KlusterSummary> = listed.items.into_iter().map(Into::into).collect();
        (total, Json(rows)).into_response()
    } else {
        (total, Json(listed.items)).into_response()
    })
}

/// `POST /api/v1/clusters` (CreateCluster): admission (validation, defaults, version, the
/// cloud's catalog, then name and CIDRs among the project's klusters, one create per
/// project at a time), a CA and the stored kluster; 201 with its `ETag`.
pub async fn create(
    State(st): State<ApiState>,
    caller: Caller,
    origin: Origin,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let who = caller.allow(&st, Permission::CreateCluster)?;
    let request = admission::prepare(parse(body)?, &st.settings)?;
    let catalog = Catalog::of(&st, &who.account).await?;
    catalog::check_new(&request, &catalog)?;
    let ca = KlusterCa::generate(&request.name, &who.account).map_err(internal)?;
    let ca = CaRecord {
        key_sealed: ca.sealed_key(&st.sealer).map_err(internal)?,
        cert_pem: ca.cert_pem,
    };
    let creator = format!("{}/{}", who.name, who.domain);
    let stored = st
        .store
        .create(&who.account, &ca, |others| {
            Ok::<_, ApiError>(StoredKluster {
                kluster: admission::place(
                    request,
                    others,
                    &catalog.routes,
                    &st.settings,
                    &who.account,
                )?,
                creator,
                termination_protected: false,
            })
        })
        .await??;
    let changes = kluster::diff::spec_changes(None, Some(&stored.kluster.spec));
    audit::record(&st, &who, &origin, &stored.kluster.name, "create", changes).await;
    tracing::info!(
        kluster = stored.kluster.name,
        project = who.account,
        user = who.name,
        "kluster created"
    );
    Ok(versioned(StatusCode::CREATED, stored.kluster))
}

/// `GET /api/v1/clusters/{name}` (ShowCluster), with its `ETag`.
pub async fn show(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let who = caller.allow(&st, Permission::ShowCluster)?;
    let k = find(&st, &who.account, &name).await?.kluster;
    Ok(versioned(StatusCode::OK, k))
}

/// `PUT /api/v1/clusters/{name}` (UpdateCluster): the Kubernikus update rules; with
/// `If-Match`, only while the kluster is at a version it names (else 412). Answers the
/// kluster with its new `ETag`.
pub async fn update(
    State(st): State<ApiState>,
    caller: Caller,
    origin: Origin,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let who = caller.allow(&st, Permission::UpdateCluster)?;
    let req = parse(body)?;
    let if_match = IfMatch::of(&headers);
    // Pools the update adds and a new security group are checked against the cloud's
    // catalog (read only then).
    let current = find(&st, &who.account, &name).await?.kluster;
    let catalog = match catalog::update_needs_catalog(&current, &req) {
        true => Some(Catalog::of(&st, &who.account).await?),
        false => None,
    };
    // Only the spec changes; the status stays the reconcilers' (read and written at once,
    // so the version compared is the one overwritten).
    let mut before = None;
    let changed = st
        .store
        .modify(&who.account, &name, |cur| {
            if let Some(m) = &if_match {
                let version = cur.metadata.as_ref().map(|m| m.resource_version.as_str());
                m.check(version.unwrap_or_default())?;
            }
            let next =
                kluster::update::apply(cur, &req, cur.status.phase).map_err(ApiError::invalid)?;
            if let Some(c) = &catalog {
                catalog::check_update(cur, &next, c)?;
            }
            before = Some(cur.spec.clone());
            cur.spec = next.spec;
            Ok::<(), ApiError>(())
        })
        .await?;
    let k = match changed {
        None => return Err(ApiError::not_found(&name)),
        Some(result) => result?,
    };
    let changes = kluster::diff::spec_changes(before.as_ref(), Some(&k.spec));
    if !changes.is_empty() {
        let action = audit::classify(&changes);
        audit::record(&st, &who, &origin, &name, action, changes).await;
    }
    Ok(versioned(StatusCode::OK, k))
}

/// `DELETE /api/v1/clusters/{name}` (TerminateCluster): 202 and phase Terminating.
pub async fn terminate(
    State(st): State<ApiState>,
    caller: Caller,
    origin: Origin,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    let who = caller.allow(&st, Permission::TerminateCluster)?;
    let stored = find(&st, &who.account, &name).await?;
    if stored.termination_protected {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("Termination protection enabled: a kubernetes_admin turns it off (PUT /api/v1/clusters/{name}/termination-protection with {{\"enabled\": false}}) before this kluster can be deleted"),
        )
        .because(kluster::ErrorReason::TerminationProtected));
    }
    let mut phase_before = KlusterPhase::Terminating;
    let terminating = st
        .store
        .modify(&who.account, &name, |cur| {
            phase_before = cur.status.phase;
            cur.status.phase = KlusterPhase::Terminating;
            Ok::<(), ApiError>(())
        })
        .await?;
    if terminating.is_none() {
        return Err(ApiError::not_found(&name));
    }
    let change = kluster::SpecChange {
        field: "status.phase".into(),
        before: format!("{:?}", phase_before.as_str()),
        after: format!("{:?}", KlusterPhase::Terminating.as_str()),
    };
    audit::record(&st, &who, &origin, &name, "delete", vec![change]).await;
    // The phase change is the API's, so the event is too (deorbit reports the rest).
    let uid = stored.kluster.metadata.as_ref().map(|m| m.uid.as_str());
    st.store
        .record_event_counted(NewEvent {
            project: &who.account,
            kluster: &name,
            uid,
            kind: kluster::EventType::Normal,
            reason: &kluster::EventReason::Terminating,
            detail: None,
            message: &format!("Kluster {name} is terminating"),
        })
        .await?;
    st.metrics.event(
        kluster::EventReason::Terminating.as_str(),
        kluster::EventType::Normal.as_str(),
    );
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
    let who = caller.allow(&st, Permission::GetClusterEvents)?;
    let k = find(&st, &who.account, &name).await?.kluster;
    let uid = k.metadata.as_ref().map(|m| m.uid.as_str());
    Ok(Json(st.store.events(&who.account, &name, uid).await?))
}

/// `GET /api/v1/clusters/{name}/info` (GetClusterInfo): the `kubernikusctl` setup command
/// (with the URL users reach this API at) and, when configured, where to get kubernikusctl.
pub async fn info(
    State(st): State<ApiState>,
    caller: Caller,
    Path(name): Path<String>,
) -> Result<Json<kluster::KlusterInfo>, ApiError> {
    let who = caller.allow(&st, Permission::GetClusterInfo)?;
    find(&st, &who.account, &name).await?;
    let setup_command = format!(
        "kubernikusctl auth init --username {} --user-domain-name {} --project-id {} --auth-url {} --url {} --name {}",
        who.name, who.domain, who.account, st.settings.auth_url, st.settings.public_url, name
    );
    Ok(Json(kluster::KlusterInfo {
        setup_command,
        binaries: binaries(&st.settings.binaries_url),
    }))
}

/// kubernikusctl for each platform under `base` (Kubernikus's layout:
/// `<base>/<os>/amd64/kubernikusctl`); nothing without a base.
fn binaries(base: &str) -> Vec<kluster::Binaries> {
    if base.is_empty() {
        return Vec::new();
    }
    let base = base.trim_end_matches('/');
    let link = |os: &str, file: &str| kluster::Link {
        platform: os.into(),
        link: format!("{base}/{os}/amd64/{file}"),
    };
    vec![kluster::Binaries {
        name: "kubernikusctl".into(),
        links: vec![
            link("linux", "kubernikusctl"),
            link("darwin", "kubernikusctl"),
            link("windows", "kubernikusctl.exe"),
        ],
    }]
}

/// `GET /api/v1/clusters/{name}/credentials` (GetClusterCredentials): a kubeconfig with a
/// new client certificate, valid 24 h, `CN=<user>@<domain>`, `O=os:<role>` per role.
pub async fn credentials(
    State(st): State<ApiState>,
    caller: Caller,
    origin: Origin,
    Path(name): Path<String>,
) -> Result<Json<kluster::Credentials>, ApiError> {
    let who = caller.allow(&st, Permission::GetClusterCredentials)?;
    let user = format!("{}@{}", who.name, who.domain);
    let orgs: Vec<String> = who.roles.iter().map(|r| format!("os:{r}")).collect();
    let (_, kubeconfig, _) = kubeconfig_for(&st, &who.account, &name, &user, &orgs).await?;
    audit::record(&st, &who, &origin, &name, "credentials", Vec::new()).await;
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
    let who = caller.allow(&st, Permission::GetClusterCredentialsOIDC)?;
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
