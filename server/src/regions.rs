//! The region in the URL: with regions from the catalog (`controller_url = "catalog"`), a
//! page asked for with `?region=NAME` switches the session to that region before it
//! renders, so a link names the region it shows and the session keeps working there.

use axum::{
    body::Body,
    extract::State,
    http::{header, Method, Request, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use tower_sessions::Session;

use app::error::AppError;
use app::ssr::auth::{store_error, AuthRecord, AUTH_KEY};
use app::ssr::AppState;

/// Follows `?region=` of a `GET`: the signed-in session works in that region from now on
/// (its grants asked again from that region's controller). A region that is not in the
/// session's catalog is answered 400 in words, and nothing changes.
pub async fn follow_url(State(st): State<AppState>, req: Request<Body>, next: Next) -> Response {
    if st.regional.is_none() || req.method() != Method::GET {
        return next.run(req).await;
    }
    let Some(wanted) = region_param(req.uri().query()) else {
        return next.run(req).await;
    };
    let Some(session) = req.extensions().get::<Session>().cloned() else {
        return next.run(req).await;
    };
    match switch(&session, &st, &wanted).await {
        Ok(()) => next.run(req).await,
        Err(AppError::BadInput(m)) => refuse(StatusCode::BAD_REQUEST, format!("region: {m}")),
        Err(e) => refuse(
            StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            e.to_string(),
        ),
    }
}

/// The `region` parameter of a query string, if any.
fn region_param(query: Option<&str>) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "region")
        .map(|(_, v)| v.into_owned())
}

/// Switches the signed-in session to region `wanted` (nothing when nobody is signed in or
/// it works there already).
async fn switch(session: &Session, st: &AppState, wanted: &str) -> Result<(), AppError> {
    let Some(mut rec) = session
        .get::<AuthRecord>(AUTH_KEY)
        .await
        .map_err(store_error)?
    else {
        return Ok(());
    };
    if rec.region.as_deref() == Some(wanted) {
        return Ok(());
    }
    rec.choose_region(wanted)?;
    rec.ask_grants(st).await;
    session.insert(AUTH_KEY, &rec).await.map_err(store_error)?;
    tracing::info!(
        user = rec.user_name,
        project = rec.project_id,
        region = wanted,
        "switched region"
    );
    Ok(())
}

fn refuse(status: StatusCode, message: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        format!("{message}\n"),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_region_parameter_is_read_decoded() {
        assert_eq!(
            super::region_param(Some("q=a&region=Region%20Two")).as_deref(),
            Some("Region Two")
        );
        assert_eq!(super::region_param(Some("q=a")), None);
        assert_eq!(super::region_param(None), None);
    }
}
