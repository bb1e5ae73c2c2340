//! The audit trail of the API: who changed which kluster how (spec before → after), and who
//! was issued credentials, with the request id and the client's address; and
//! `GET /api/v1/audit` to read it (project admins: their project; cloud admins: every
//! project, or one with `?project=`).
//!
//! The client address is the peer's, or, when the peer is one of
//! [`super::ApiSettings::trusted_proxies`] (the dashboards), the right-most untrusted
//! `X-Forwarded-For` hop: the dashboard forwards the browser's address there.

use std::net::SocketAddr;

use axum::{
    extract::{ConnectInfo, FromRequestParts, Query, State},
    http::{request::Parts, StatusCode},
    Json,
};
use kluster::{AuditRecord, SpecChange};
use serde::Deserialize;

use super::error::bad_query;
use super::request_context::RequestId;
use super::{ApiError, ApiState, Caller};
use crate::auth::{Permission, Principal};
use crate::store::{audit_time, AuditFilter};

/// Where a request came from: its id and the client's address.
#[derive(Clone, Debug, Default)]
pub struct Origin {
    /// `X-Request-Id` (the caller's, or the one this controller gave it).
    pub request_id: String,
    /// The client's address ("" when unknown).
    pub client_addr: String,
}

impl FromRequestParts<ApiState> for Origin {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, st: &ApiState) -> Result<Self, Self::Rejection> {
        let request_id = parts
            .extensions
            .get::<RequestId>()
            .map(|r| r.0.clone())
            .unwrap_or_default();
        let client_addr = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| {
                st.settings
                    .trusted_proxies
                    .client(c.0.ip(), &parts.headers)
                    .to_string()
            })
            .unwrap_or_default();
        Ok(Origin {
            request_id,
            client_addr,
        })
    }
}

/// What kind of update `changes` are: `upgrade` (the version moved), `scale` (only pool
/// sizes moved), else `update`.
pub fn classify(changes: &[SpecChange]) -> &'static str {
    let is_size = |f: &str| f.starts_with("spec.nodePools[") && f.ends_with("].size");
    if changes.iter().any(|c| c.field == "spec.version") {
        "upgrade"
    } else if !changes.is_empty() && changes.iter().all(|c| is_size(&c.field)) {
        "scale"
    } else {
        "update"
    }
}

/// Records an audit record of `who` doing `action` to `kluster`. A record that cannot be
/// stored is logged in full at error level (the change itself has happened).
pub async fn record(
    st: &ApiState,
    who: &Principal,
    origin: &Origin,
    kluster: &str,
    action: &str,
    changes: Vec<SpecChange>,
) {
    let rec = AuditRecord {
        project_id: who.account.clone(),
        project_name: who.account_name.clone(),
        kluster: kluster.to_string(),
        action: action.to_string(),
        user_id: who.id.clone(),
        user_name: who.name.clone(),
        user_domain: who.domain.clone(),
        changes,
        request_id: origin.request_id.clone(),
        client_addr: origin.client_addr.clone(),
        ..Default::default()
    };
    match st.store.audit(&rec).await {
        Ok(id) => {
            st.metrics.audited(action);
            tracing::info!(
                target: "controller::audit",
                audit_id = id,
                action,
                kluster,
                project = who.account,
                user = who.name,
                request_id = origin.request_id,
                client = origin.client_addr,
                "audit"
            );
        }
        Err(e) => tracing::error!(
            target: "controller::audit",
            error = %e,
            record = serde_json::to_string(&rec).unwrap_or_default(),
            "audit record not stored"
        ),
    }
}

/// Filters of `GET /api/v1/audit`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// Cloud admins: one project, by id or name (default: all). Others: their own project
    /// only.
    project: Option<String>,
    kluster: Option<String>,
    user: Option<String>,
    action: Option<String>,
    /// RFC 3339, `YYYY-MM-DDTHH:MM` (UTC) or `YYYY-MM-DD`.
    since: Option<String>,
    /// Records older than this id (paging).
    before: Option<i64>,
    /// 1–500, default 100.
    limit: Option<i64>,
}

/// Parses a `since` value into the audit's time form; `None` when it is none of the forms.
pub fn parse_since(s: &str) -> Option<String> {
    use time::format_description::well_known::Rfc3339;
    let s = s.trim();
    if let Ok(t) = time::OffsetDateTime::parse(s, &Rfc3339) {
        return Some(audit_time(t));
    }
    let full = match s.len() {
        10 => format!("{s}T00:00:00Z"),
        16 => format!("{s}:00Z"),
        19 => format!("{s}Z"),
        _ => return None,
    };
    time::OffsetDateTime::parse(&full, &Rfc3339)
        .ok()
        .map(audit_time)
}

/// `GET /api/v1/audit`: audit records, newest first.
pub async fn list(
    State(st): State<ApiState>,
    caller: Caller,
    query: Result<Query<AuditQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<AuditRecord>>, ApiError> {
    let who = caller.0;
    let Query(q) = query.map_err(bad_query)?;
    let cloud_admin = st.permits(&who, Permission::CloudAdmin);
    let project = match (cloud_admin, q.project) {
        (true, p) => super::ops::project_filter(&st, p.unwrap_or_default()).await,
        (false, Some(p))
            if !p.trim().is_empty()
                && p != who.account
                && !p.eq_ignore_ascii_case(&who.account_name) =>
        {
            return Err(super::caller::denied(
                &who,
                &[Permission::CloudAdmin],
                "Another project's audit trail",
            ))
        }
        (false, _) => {
            if !st.permits(&who, Permission::ProjectAdmin) {
                return Err(super::caller::denied(
                    &who,
                    &[Permission::ProjectAdmin, Permission::CloudAdmin],
                    "The audit trail",
                ));
            }
            who.account.clone()
        }
    };
    let since = match q.since.as_deref().filter(|s| !s.trim().is_empty()) {
        None => String::new(),
        Some(s) => parse_since(s).ok_or_else(|| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                format!(
                    "since {s:?} is not a time: use RFC 3339 (2024-05-01T10:00:00Z), \
                     2024-05-01T10:00 (UTC) or 2024-05-01"
                ),
            )
        })?,
    };
    let text = |v: Option<String>| v.unwrap_or_default().trim().chars().take(128).collect();
    let filter = AuditFilter {
        project,
        kluster: text(q.kluster),
        user: text(q.user),
        action: text(q.action),
        since,
        before: q.before.unwrap_or(0).max(0),
        limit: q.limit.unwrap_or(100).clamp(1, 500),
    };
    Ok(Json(st.store.audit_records(&filter).await?))
}

#[cfg(test)]
mod tests {
    use super::*;

    use kluster::diff::spec_changes as diff;
    use kluster::KlusterSpec;

    #[test]
    fn diffs_name_the_fields_and_classify_the_update() {
        let mut a = KlusterSpec {
            version: "1.31.8".into(),
            ..Default::default()
        };
        a.node_pools.push(kluster::NodePool {
            name: "p".into(),
            size: 1,
            ..Default::default()
        });
        let mut b = a.clone();
        b.node_pools[0].size = 3;
        let d = diff(Some(&a), Some(&b));
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            (
                d[0].field.as_str(),
                d[0].before.as_str(),
                d[0].after.as_str()
            ),
            ("spec.nodePools[0].size", "1", "3")
        );
        assert_eq!(classify(&d), "scale");
        b.version = "1.32.4".into();
        let d = diff(Some(&a), Some(&b));
        assert_eq!(classify(&d), "upgrade");
        assert!(d
            .iter()
            .any(|c| c.field == "spec.version" && c.after == "\"1.32.4\""));
        b.ssh_public_key = "ssh-ed25519 AAAA".into();
        b.version = a.version.clone();
        b.node_pools[0].size = 1;
        assert_eq!(classify(&diff(Some(&a), Some(&b))), "update");
        let created = diff(None, Some(&a));
        assert!(created
            .iter()
            .any(|c| c.field == "spec.nodePools[0].name" && c.before.is_empty()));
    }

    #[test]
    fn since_accepts_the_forms_a_form_sends() {
        assert_eq!(
            parse_since("2024-05-01").as_deref(),
            Some("2024-05-01T00:00:00.000Z")
        );
        assert_eq!(
            parse_since("2024-05-01T10:30").as_deref(),
            Some("2024-05-01T10:30:00.000Z")
        );
        assert_eq!(
            parse_since("2024-05-01T10:30:00+02:00").as_deref(),
            Some("2024-05-01T08:30:00.000Z")
        );
        assert_eq!(parse_since("yesterday"), None);
    }
}
