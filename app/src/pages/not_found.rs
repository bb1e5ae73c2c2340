//! The 404 page.

use leptos::prelude::*;
use leptos_meta::Title;

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
            <h1 class="text-2xl font-semibold">"Page not found"</h1>
            <a class="mt-4 inline-block text-sky-700 underline dark:text-sky-400" href="/">"Back to the dashboard"</a>
        </main>
    }
}
