//! `POST /theme`: the colour scheme a visitor chose (light, dark, or the system's), kept in
//! a cookie for a year, so every page is rendered in it from the first byte (the shell puts
//! it on `<html>`; no script needed). A plain form post: it works without JavaScript.

use axum::{
    extract::Form,
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Redirect, Response},
};
use serde::Deserialize;

/// The cookie that keeps the choice (not a secret; read by the page shell).
pub const COOKIE: &str = app::components::theme::COOKIE;

/// The form: the choice and the page to go back to.
#[derive(Debug, Deserialize)]
pub struct ThemeForm {
    /// `light`, `dark` or `system`.
    theme: String,
    /// The path the form was on (only a path of this site is followed).
    #[serde(default)]
    back: String,
}

/// Sets the cookie and goes back (303); an unknown choice is 400 in words.
pub async fn set(https: bool, Form(f): Form<ThemeForm>) -> Response {
    let Some(theme) = app::components::theme::Theme::parse(&f.theme) else {
        return (
            StatusCode::BAD_REQUEST,
            "Unknown colour scheme: choose light, dark or system.",
        )
            .into_response();
    };
    let secure = if https { "; Secure" } else { "" };
    let cookie = format!(
        "{COOKIE}={}; Path=/; Max-Age=31536000; SameSite=Lax{secure}",
        theme.as_str()
    );
    let mut res = Redirect::to(local_path(&f.back)).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
    res
}

/// `back` if it is a path of this site (`/…`, not `//host` or `/\host`), else `/`.
fn local_path(back: &str) -> &str {
    let ok = back.starts_with('/')
        && !back.starts_with("//")
        && !back.starts_with("/\\")
        && !back.chars().any(|c| c.is_control());
    if ok {
        back
    } else {
        "/"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_this_site_are_followed_back() {
        assert_eq!(local_path("/klusters/a?x=1"), "/klusters/a?x=1");
        for bad in [
            "",
            "https://evil.example/",
            "//evil.example",
            "/\\evil",
            "/a\r\nb",
        ] {
            assert_eq!(local_path(bad), "/", "{bad:?}");
        }
    }
}
