//! The 404 page.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::style::{H1, LINK};

/// Shown for unknown paths, with a 404 status on the server.
#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(res) = use_context::<leptos_axum::ResponseOptions>() {
        res.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found"/>
        <main class="mx-auto max-w-md p-8 text-center">
            <h1 class=H1>"Page not found"</h1>
            <a class=format!("mt-4 inline-block {LINK}") href="/">"Back to the dashboard"</a>
        </main>
    }
}
