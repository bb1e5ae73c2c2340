//! "Copy": puts a text on the clipboard (with JavaScript) and says "Copied".

use leptos::prelude::*;

use crate::components::style::SECONDARY;

/// A button that copies `text` to the clipboard; without JavaScript it does nothing, and the
/// text beside it stays selectable.
#[component]
pub fn CopyButton(
    /// What to copy.
    text: String,
) -> impl IntoView {
    let copied = RwSignal::new(false);
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(w) = web_sys::window() {
            let _ = w.navigator().clipboard().write_text(&text);
            copied.set(true);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = &text;
    };
    view! {
        <button type="button" class=SECONDARY on:click=copy>
            {move || if copied.get() { "Copied" } else { "Copy" }}
        </button>
    }
}
