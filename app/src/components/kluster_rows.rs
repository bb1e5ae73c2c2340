//! The kluster table's rows, kept per kluster: each row reads its own signal, and the table
//! is a keyed `<For>`, so a live update re-renders only the rows whose kluster changed
//! (and adds or drops rows whose kluster came or went), not the table.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::components::style::{phase_badge, LINK, MUTED, ROW};
use crate::model::{KlusterPage, KlusterRow};

/// The rows of the page on screen, with the page's counts. Row signals are reference
/// counted (`ArcRwSignal`), not owned by the render that made them: a row made by one fetch
/// stays valid when a later render or fetch reuses it.
#[derive(Clone, Copy)]
pub struct RowStore {
    order: RwSignal<Vec<String>>,
    rows: StoredValue<HashMap<String, ArcRwSignal<KlusterRow>>>,
    /// Klusters matching the search and filter, all pages.
    pub total: RwSignal<usize>,
    /// The page's number, from 1.
    pub page: RwSignal<usize>,
    /// How many pages there are.
    pub pages: RwSignal<usize>,
}

impl RowStore {
    /// An empty store.
    pub fn new() -> Self {
        Self {
            order: RwSignal::new(Vec::new()),
            rows: StoredValue::new(HashMap::new()),
            total: RwSignal::new(0),
            page: RwSignal::new(1),
            pages: RwSignal::new(1),
        }
    }

    /// Takes in a fetched page: a row whose kluster changed is set (only its cells
    /// re-render), new klusters get a signal, and the order changes only when it did.
    /// Does nothing once the list is gone (a fetch that finished after it).
    pub fn sync(self, page: KlusterPage) {
        let counts = [page.total, page.page, page.pages];
        let fetched = page.into_rows();
        let names: Vec<String> = fetched.iter().map(|r| r.name.clone()).collect();
        let kept = self.rows.try_update_value(|rows| {
            for row in fetched {
                match rows.get(&row.name) {
                    Some(s) => {
                        if s.with_untracked(|old| *old != row) {
                            s.set(row);
                        }
                    }
                    None => {
                        rows.insert(row.name.clone(), ArcRwSignal::new(row));
                    }
                }
            }
            rows.retain(|name, _| names.contains(name));
        });
        if kept.is_none() {
            return;
        }
        if self.order.try_with_untracked(|o| *o != names) == Some(true) {
            self.order.try_set(names);
        }
        for (signal, value) in [self.total, self.page, self.pages].into_iter().zip(counts) {
            if signal.try_get_untracked().is_some_and(|v| v != value) {
                signal.try_set(value);
            }
        }
    }

    /// The signal of kluster `name`'s row.
    fn row(self, name: &str) -> ArcRwSignal<KlusterRow> {
        self.rows
            .try_with_value(|rows| rows.get(name).cloned())
            .flatten()
            .unwrap_or_else(|| ArcRwSignal::new(KlusterRow::default()))
    }
}

impl Default for RowStore {
    fn default() -> Self {
        Self::new()
    }
}

/// "name: running/size running, healthy, schedulable" per pool ("node health unknown" in
/// place of the last two when the controller cannot tell).
pub fn pools(k: &KlusterRow) -> String {
    if k.pools.is_empty() {
        return "no pools".into();
    }
    k.pools
        .iter()
        .map(|p| match p.running {
            Some(running) if p.health_unknown => format!(
                "{}: {running}/{} running, node health unknown",
                p.name, p.size
            ),
            Some(running) => format!(
                "{}: {running}/{} running, {} healthy, {} schedulable",
                p.name, p.size, p.healthy, p.schedulable
            ),
            None => format!("{}: {} nodes", p.name, p.size),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The table body: one keyed row per kluster of the page.
#[component]
pub fn Rows(store: RowStore) -> impl IntoView {
    view! {
        <For
            each=move || store.order.get()
            key=|name: &String| name.clone()
            children=move |name: String| view! { <Row row=store.row(&name)/> }
        />
    }
    .into_any()
}

/// One kluster's row; each cell reads the row's signal.
#[component]
fn Row(row: ArcRwSignal<KlusterRow>) -> impl IntoView {
    let name = row.with_untracked(|r| r.name.clone());
    let download = format!("/klusters/{name}/kubeconfig");
    let detail = format!("/klusters/{name}");
    let key = name.clone();
    let (r1, r2, r3, r4) = (row.clone(), row.clone(), row.clone(), row.clone());
    let (r5, r6) = (row.clone(), row);
    view! {
        <tr class=ROW data-kluster=key>
            <td class="px-4 py-2 font-medium"><a href=detail class=LINK>{name}</a></td>
            <td class="px-4 py-2">
                <span class=move || phase_badge(r1.with(|r| r.phase), "text-xs")>
                    {move || r2.with(|r| r.phase.as_str())}
                </span>
            </td>
            <td class="px-4 py-2">{move || r3.with(|r| r.version.clone())}</td>
            <td class=format!("px-4 py-2 {MUTED}")>{move || r4.with(pools)}</td>
            <td class="whitespace-nowrap px-4 py-2">
                {move || r5.with(|r| r.created.clone())}
                {move || r6.with(|r| (!r.created_by.is_empty()).then(|| view! {
                    <span class=format!("block text-xs {MUTED}")>{format!("by {}", r.created_by)}</span>
                }))}
            </td>
            <td class="px-4 py-2">
                <a href=download download class=format!("whitespace-nowrap {LINK}")>
                    "Download kubeconfig"
                </a>
            </td>
        </tr>
    }
    .into_any()
}
