//! The wrapper of a table wider than a phone: it scrolls sideways, is positioned (a visually
//! hidden header inside does not widen the page) and is a named, keyboard-reachable region
//! (axe's `scrollable-region-focusable`).

use leptos::prelude::*;

/// A horizontally scrolling region named `label`; `class` adds spacing and surface.
#[component]
pub fn ScrollRegion(
    /// The region's accessible name.
    label: &'static str,
    /// Further classes (margin, surface).
    #[prop(into, optional)]
    class: String,
    /// The table.
    children: Children,
) -> impl IntoView {
    view! {
        <div class=format!("relative overflow-x-auto {class}") tabindex="0" role="region" aria-label=label>
            {children()}
        </div>
    }
}
