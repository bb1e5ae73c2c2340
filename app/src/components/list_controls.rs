//! The kluster list's controls, all plain links and a GET form so they work without
//! JavaScript (with it, the router navigates): search and phase filter, sortable column
//! headers, and the pager.

use kluster::listing::PHASES;
use leptos::prelude::*;

use crate::components::kluster_rows::RowStore;
use crate::components::style::{INPUT, LABEL, LINK, LINK_SMALL, MUTED, SECONDARY};
use crate::model::ListParams;

/// The search box and the phase filter (`GET /?q=&phase=`, keeping the sort).
#[component]
pub fn SearchForm(params: Memo<ListParams>) -> impl IntoView {
    let q = move || params.with(|p| p.q.clone());
    let phase = move || params.with(|p| p.phase.clone());
    let sort = move || params.with(|p| p.sort.clone());
    let filtered = move || params.with(|p| !p.q.is_empty() || !p.phase.is_empty());
    view! {
        <div class="mt-4">
            <form method="get" action="/" on:submit=search_in_place()>
                <div role="search" class="flex flex-wrap items-end gap-2">
                    <label class=LABEL>
                        "Search names"
                        <input type="search" name="q" maxlength="64" value=q prop:value=q
                            class=format!("{INPUT} w-44")/>
                    </label>
                    <label class=LABEL>
                        "Phase"
                        <select name="phase" aria-label="Phase" class=format!("{INPUT} w-36") prop:value=phase>
                            <option value="" selected=move || phase().is_empty()>"All phases"</option>
                            {PHASES.into_iter().map(|p| view! {
                                <option value=p.as_str()
                                    selected=move || phase().eq_ignore_ascii_case(p.as_str())>
                                    {p.as_str()}
                                </option>
                            }).collect_view()}
                        </select>
                    </label>
                    <input type="hidden" name="sort" value=sort prop:value=sort/>
                    <button type="submit" class=SECONDARY>"Search"</button>
                    <Show when=filtered>
                        <a href=move || params.with(|p| ListParams { sort: p.sort.clone(), ..Default::default() }.href(1))
                            class=LINK_SMALL>"Clear"</a>
                    </Show>
                </div>
            </form>
        </div>
    }
    // Erased: the list page's view type nests deep enough without this one's.
    .into_any()
}

/// Once hydrated, a search navigates in the page (the router) to the URL the plain GET
/// would load, empty fields left out. (The router's own `<Form>` does this for any form,
/// at a few KB of WASM more on the first load.)
fn search_in_place() -> impl Fn(leptos::ev::SubmitEvent) + 'static {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let navigate = leptos_router::hooks::use_navigate();
        move |ev: leptos::ev::SubmitEvent| {
            let Some(form) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlFormElement>().ok())
            else {
                return;
            };
            let Ok(data) = web_sys::FormData::new_with_form(&form) else {
                return;
            };
            let field = |name: &str| data.get(name).as_string().unwrap_or_default();
            let wanted = ListParams {
                q: field("q"),
                phase: field("phase"),
                sort: field("sort"),
                page: 1,
            };
            ev.prevent_default();
            navigate(&wanted.href(1), Default::default());
        }
    }
    #[cfg(not(feature = "hydrate"))]
    |_: leptos::ev::SubmitEvent| {}
}

/// A column header that sorts by `by` when clicked (again: the other way round).
#[component]
pub fn SortHeader(
    params: Memo<ListParams>,
    by: &'static str,
    label: &'static str,
) -> impl IntoView {
    let state = move || {
        params.with(|p| match p.sort.as_str() {
            s if s == by || (s.is_empty() && by == "name") => "ascending",
            s if s.strip_prefix('-') == Some(by) => "descending",
            _ => "none",
        })
    };
    let arrow = move || match state() {
        "ascending" => " ▲",
        "descending" => " ▼",
        _ => "",
    };
    view! {
        <th scope="col" class="px-4 py-2 font-medium" aria-sort=state>
            <a href=move || params.with(|p| p.sorted_by(by).href(1)) class="hover:underline">
                {label}<span aria-hidden="true">{arrow}</span>
            </a>
        </th>
    }
    .into_any()
}

/// "Page 2 of 40 · 2,000 klusters" with links to the first, previous, next and last page.
#[component]
pub fn Pager(params: Memo<ListParams>, store: RowStore) -> impl IntoView {
    let link = move |to: usize, label: &'static str, rel: &'static str| {
        let (page, pages) = (store.page.get(), store.pages.get());
        let off = to == page || to == 0 || to > pages;
        if off {
            view! { <span class=MUTED aria-disabled="true">{label}</span> }.into_any()
        } else {
            let href = params.with(|p| p.href(to));
            view! { <a href=href rel=rel class=LINK>{label}</a> }.into_any()
        }
    };
    view! {
        <nav aria-label="Pages" class="mt-3 flex flex-wrap items-center justify-between gap-2 text-sm">
            <p class=MUTED aria-live="polite">
                {move || {
                    let total = store.total.get();
                    let noun = if total == 1 { "kluster" } else { "klusters" };
                    format!("Page {} of {} · {} {noun}", store.page.get(), store.pages.get(), thousands(total))
                }}
            </p>
            <p class="flex gap-3">
                {move || link(1, "« First", "first")}
                {move || link(store.page.get().saturating_sub(1), "‹ Previous", "prev")}
                {move || link(store.page.get() + 1, "Next ›", "next")}
                {move || link(store.pages.get(), "Last »", "last")}
            </p>
        </nav>
    }
}

/// 2000 → "2,000".
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_grouped() {
        assert_eq!(super::thousands(2000), "2,000");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
