//! The colour scheme: light, dark, or the system's (the default). The choice is a cookie
//! set by `POST /theme` (a plain form, no JavaScript needed); the page shell reads it and
//! puts `light`, `dark` or `system` on `<html>`, and the stylesheet's `dark:` variant
//! applies under `.dark`, or under `.system` when the system prefers dark.

use leptos::prelude::*;
use leptos_router::hooks::use_location;

use crate::components::style::{MUTED, SECONDARY_SMALL};

/// The cookie that keeps the choice (not a secret).
pub const COOKIE: &str = "mc-theme";

/// A colour scheme choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Always light.
    Light,
    /// Always dark.
    Dark,
    /// As the system prefers.
    #[default]
    System,
}

impl Theme {
    /// `light`, `dark` or `system`; anything else is `None`.
    pub fn parse(s: &str) -> Option<Theme> {
        match s.trim() {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            "system" => Some(Theme::System),
            _ => None,
        }
    }

    /// Its name (also the class on `<html>`).
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::System => "system",
        }
    }

    /// The page's `color-scheme` (form controls and scroll bars follow it).
    pub fn color_scheme(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::System => "light dark",
        }
    }

    /// The choice in a `Cookie` header's value; the system's when there is none.
    pub fn of_cookies(header: &str) -> Theme {
        header
            .split(';')
            .filter_map(|c| c.trim().split_once('='))
            .find(|(k, _)| *k == COOKIE)
            .and_then(|(_, v)| Theme::parse(v))
            .unwrap_or_default()
    }
}

/// The choice the request being rendered carries (on the server; the system's elsewhere).
pub fn requested() -> Theme {
    #[cfg(feature = "ssr")]
    {
        use_context::<http::request::Parts>()
            .and_then(|p| {
                let h = p.headers.get(http::header::COOKIE)?;
                Some(Theme::of_cookies(h.to_str().ok()?))
            })
            .unwrap_or_default()
    }
    #[cfg(not(feature = "ssr"))]
    {
        Theme::System
    }
}

/// Three buttons that post the choice to `/theme` and come back to this page.
#[component]
pub fn ThemePicker() -> impl IntoView {
    let location = use_location();
    let back = move || location.pathname.get();
    view! {
        <form method="post" action="/theme" class="flex items-center gap-1" aria-label="Colour scheme">
            <input type="hidden" name="back" value=back/>
            <span class=MUTED>"Theme"</span>
            {[Theme::Light, Theme::Dark, Theme::System].into_iter().map(|t| {
                let label = match t {
                    Theme::Light => "Light",
                    Theme::Dark => "Dark",
                    Theme::System => "System",
                };
                view! {
                    <button type="submit" name="theme" value=t.as_str() class=SECONDARY_SMALL>{label}</button>
                }
            }).collect_view()}
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_names_the_choice_and_anything_else_is_the_system() {
        assert_eq!(Theme::of_cookies("a=b; mc-theme=dark; c=d"), Theme::Dark);
        assert_eq!(Theme::of_cookies("mc-theme=light"), Theme::Light);
        assert_eq!(Theme::of_cookies("mc-theme=purple"), Theme::System);
        assert_eq!(Theme::of_cookies(""), Theme::System);
        assert_eq!(Theme::parse("dark").map(Theme::as_str), Some("dark"));
        assert_eq!(Theme::Dark.color_scheme(), "dark");
    }
}
