//! The audit trail (controller extension `GET /api/v1/audit`).

use leptos::prelude::*;

use crate::error::AppError;

/// Audit records, newest first, filtered by kluster, user, action, time (`since`) and, for
/// cloud admins, project (empty: no filter). The controller scopes them: a project admin
/// sees the session's project; anyone else gets its 403 in words.
#[server(endpoint = "audit_records")]
pub async fn audit_records(
    kluster: String,
    user: String,
    action: String,
    since: String,
    project: String,
) -> Result<Vec<kluster::AuditRecord>, AppError> {
    use crate::ssr::auth::{require, session};
    use crate::ssr::{fail, state};
    let st = state();
    let rec = require(&session().await?, &st).await.map_err(fail)?;
    if !since_is_valid(&since) {
        return Err(fail(AppError::BadInput(format!(
            "\"{}\" is not a time: use a date (2024-05-01) or a date and time (2024-05-01T10:00, UTC).",
            since.chars().take(40).collect::<String>()
        ))));
    }
    // Each filter trimmed and at most 128 characters; empty: no filter.
    let filter = |v: &str| {
        let v = v.trim();
        (!v.is_empty()).then(|| v.chars().take(128).collect::<String>())
    };
    let q = kubernikus_client::AuditQuery {
        limit: Some(200),
        kluster: filter(&kluster),
        user: filter(&user),
        action: filter(&action),
        since: filter(&since),
        project: filter(&project),
    };
    st.controller_for(&rec)
        .map_err(fail)?
        .audit(&rec.token, &q)
        .await
        .map_err(|e| fail(e.into()))
}

/// Whether `since` is a date (`2024-05-01`) or a date and time (`2024-05-01T10:00`, UTC),
/// as the filter form's inputs send them, or empty.
pub fn since_is_valid(since: &str) -> bool {
    let s = since.trim().as_bytes();
    let digits = |r: std::ops::Range<usize>| s[r].iter().all(u8::is_ascii_digit);
    let date = s.len() >= 10
        && digits(0..4)
        && s[4] == b'-'
        && digits(5..7)
        && s[7] == b'-'
        && digits(8..10);
    match s.len() {
        0 => true,
        10 => date,
        16 => date && s[10] == b'T' && digits(11..13) && s[13] == b':' && digits(14..16),
        _ => false,
    }
}
