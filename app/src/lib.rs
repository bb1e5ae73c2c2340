//! Mission Control's UI: Leptos pages, components and server functions.
//!
//! Built twice: with `ssr` into the server (rendering + server functions) and with
//! `hydrate` into the browser's WASM module. Server-only code lives in [`ssr`] and
//! inside `#[server]` bodies, so the WASM build never sees the Keystone token.

pub mod advice;
pub mod app;
pub mod components;
pub mod error;
pub mod model;
pub mod pages;
pub mod server_fns;
#[cfg(feature = "ssr")]
pub mod ssr;

/// Browser entry point: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
