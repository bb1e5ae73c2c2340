//! The kluster list's controls, all plain links and a GET form so they work without
//! JavaScript (with it, the router navigates): search and phase filter, sortable column
//! headers, and the pager.

use kluster::listing::PHASES;
use leptos::prelude::*;
use leptos_router::components::Form;

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
            <Form method="GET" action="/">
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
            </Form>
        </div>
    }
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
