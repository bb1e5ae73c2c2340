//! The region switcher (with regions from the catalog): a plain `GET /?region=NAME` form,
//! so the region is in the URL, the server switches the session to it before the page
//! renders, and it works without JavaScript.

use leptos::prelude::*;

use crate::components::style::{MUTED, SECONDARY_SMALL, SELECT_SMALL};

/// The switcher among `regions`, `current` chosen; nothing without regions.
#[component]
pub fn RegionPicker(regions: Vec<String>, current: Option<String>) -> impl IntoView {
    (!regions.is_empty()).then(|| {
        view! {
            <form method="get" action="/" class="flex items-center gap-2" aria-label="Switch region">
                <label for="region-switch" class=format!("text-sm {MUTED}")>"Region"</label>
                <select id="region-switch" name="region" class=SELECT_SMALL>
                    {regions.into_iter().map(|r| {
                        let selected = current.as_deref() == Some(r.as_str());
                        view! { <option value=r.clone() selected=selected>{r.clone()}</option> }
                    }).collect_view()}
                </select>
                <button type="submit" class=SECONDARY_SMALL>"Go"</button>
            </form>
        }
    })
}
