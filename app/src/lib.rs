//! Mission Control's UI: Leptos pages, components and server functions.
//!
//! Built twice: with `ssr` into the server (rendering + server functions) and with
//! `hydrate` into the browser's WASM module. Server-only code lives in [`ssr`] and
//! inside `#[server]` bodies, so the WASM build never sees the Keystone token.

pub mod advice;
pub mod app;
pub mod components;
pub mod duplicate;
pub mod error;
pub mod form_model;
pub mod kluster_edit;
pub mod list_model;
pub mod model;
pub mod pages;
pub mod resource;
pub mod server_fns;
#[cfg(feature = "ssr")]
pub mod ssr;

/// Browser entry point: hydrates the server-rendered page. Hydration is asynchronous
/// because a lazy route's module is loaded first; once the page is interactive the body
/// gets `data-hydrated` (tests wait for it before relying on client-side behaviour).
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    let Some(body) = leptos::prelude::document().body() else {
        return;
    };
    // The browser's own executor drives the first future; hydration starts Leptos's.
    wasm_bindgen_futures::spawn_local(async move {
        leptos::mount::hydrate_from_async(body.clone(), app::App)
            .await
            .forget();
        let _ = body.set_attribute("data-hydrated", "true");
    });
}
