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

/// Room for `cargo leptos build --split` to move read-only data into the lazy modules.
///
/// The splitter (wasm_split_cli_support 0.2) lays each module's share of `.rodata` out anew
/// and must fit it in the linked segment's length; data the linker tail-merged (format
/// strings shared by two modules) is then written twice. When that outgrows the segment, the
/// splitter keeps the whole `.rodata` (135 KB, every lazy page's strings) in the main module:
/// +22 KB gzip on the first page (349.7 instead of 335 KiB, 2026-12-05). This block is kept
/// by the linker (`#[used]`) but read by no code, so the splitter puts it in no module, and
/// its length is the room. It costs nothing in the split build; 16 KiB of zeros otherwise.
#[cfg(all(feature = "hydrate", target_arch = "wasm32"))]
#[used]
static SPLIT_ROOM: [u8; 16 * 1024] = [0; 16 * 1024];

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
