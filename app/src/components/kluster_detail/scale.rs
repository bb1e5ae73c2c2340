//! Scaling a node pool: the size input and "Scale" button in the pool's row.

use leptos::prelude::*;

use super::VersionField;
use crate::components::style::{INPUT_NARROW, SECONDARY};
use crate::server_fns::ScalePool;

/// A plain form (`name`, `pool`, `size`) that sets the pool's size; its input is labelled
/// "Size of pool <pool>" for screen readers.
#[component]
pub fn ScaleForm(
    /// The scale action of the page (its failure shows under the pools).
    action: ServerAction<ScalePool>,
    /// Kluster name.
    kluster: String,
    /// Pool name.
    pool: String,
    /// The pool's wanted size now.
    size: i64,
) -> impl IntoView {
    let input_id = format!("size-{pool}");
    let label = format!("Size of pool {pool}");
    view! {
        <ActionForm action attr:class="flex items-center gap-2">
            <input type="hidden" name="name" value=kluster/>
            <input type="hidden" name="pool" value=pool/>
            <VersionField/>
            <label for=input_id.clone() class="sr-only">{label}</label>
            <input id=input_id type="number" name="size" min="0" max="127" required
                value=size.to_string() class=INPUT_NARROW/>
            <button type="submit" class=SECONDARY>"Scale"</button>
        </ActionForm>
    }
}
