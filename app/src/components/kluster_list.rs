//! The project's klusters as a table: name, phase, version, node pools and creation time,
//! one page at a time, searched, filtered and sorted on the server (`/?q=&phase=&sort=&page=`).
//! A live change refetches the page and updates only the rows that changed.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::components::error_alert::ErrorAlert;
use crate::components::kluster_rows::{RowStore, Rows};
use crate::components::list_controls::{Pager, SearchForm, SortHeader};
use crate::components::scroll_region::ScrollRegion;
use crate::components::style::{H1_LIST, PRIMARY, SECONDARY, SURFACE, TABLE, THEAD};
use crate::error::AppError;
use crate::model::{KlusterPage, ListParams};
use crate::server_fns::list_klusters;

/// The list's query, from the URL, and the page it selects (fetched again when the query
/// changes). Made by the page before its frame's `<Transition>` (see
/// [`SignedIn`](crate::components::signed_in::SignedIn)), so the page is fetched once, and
/// at once, beside the session check.
pub fn list_resource() -> (
    Memo<ListParams>,
    crate::resource::Loaded<Result<KlusterPage, AppError>>,
) {
    let query = use_query_map();
    let params = Memo::new(move |_| {
        query.with(|m| ListParams {
            q: m.get("q").unwrap_or_default(),
            phase: m.get("phase").unwrap_or_default(),
            sort: m.get("sort").unwrap_or_default(),
            page: m
                .get("page")
                .and_then(|p| p.trim().parse().ok())
                .unwrap_or(1),
        })
    });
    (
        params,
        crate::resource::load(move || params.get(), list_klusters),
    )
}

/// The klusters of the session's project (`klusters`, the page `params` selects, from
/// [`list_resource`]), with an empty state and errors in words; `admin` shows the create
/// button.
#[component]
pub fn KlusterList(
    project: String,
    admin: bool,
    params: Memo<ListParams>,
    klusters: crate::resource::Loaded<Result<KlusterPage, AppError>>,
) -> impl IntoView {
    let store = RowStore::new();

    // Live: when any kluster of the project has news (debounced), fetch the page again and
    // update the rows in place.
    let live = crate::components::live::use_live();
    let changes = live.map(|l| l.changes(None, 700));
    Effect::new(move |_| {
        if let Some(l) = live {
            l.start(None);
        }
    });
    Effect::new(move |seen: Option<u64>| {
        let tick = changes.map(|c| c.get()).unwrap_or(0);
        if seen.is_some_and(|s| s != tick) {
            let asked = params.get_untracked();
            leptos::task::spawn_local(async move {
                if let Ok(page) = list_klusters(asked.clone()).await {
                    // Not when the page moved on (or is gone) meanwhile.
                    if params.try_get_untracked().as_ref() == Some(&asked) {
                        store.sync(page);
                    }
                }
            });
        }
        tick
    });

    let filtered = move || params.with(|p| !p.q.trim().is_empty() || !p.phase.is_empty());
    view! {
        <section aria-labelledby="klusters-heading">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <h1 id="klusters-heading" class=H1_LIST>"Klusters in " {project}</h1>
                <div class="flex gap-2">
                    <a href=move || params.with(|p| p.href(p.page)) class=SECONDARY>"Refresh"</a>
                    {admin.then(|| view! { <a href="/klusters/new" class=PRIMARY>"New kluster"</a> })}
                </div>
            </div>
            <SearchForm params/>
            <Transition fallback=|| view! { <p class="mt-4 text-sm">"Loading klusters…"</p> }>
                {move || Suspend::new(async move {
                    match klusters.await {
                        Ok(page) => {
                            store.sync(page);
                            view! {
                                <Show when=move || { store.total.get() > 0 } fallback=move || view! { <Empty admin filtered=filtered()/> }>
                                    <Table params store/>
                                </Show>
                            }.into_any()
                        }
                        Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The table of the page's klusters, with sortable headers and the pager.
#[component]
fn Table(params: Memo<ListParams>, store: RowStore) -> impl IntoView {
    view! {
        <ScrollRegion label="Klusters" class=format!("mt-4 max-w-full {SURFACE}")>
            <table class=TABLE>
                <thead class=THEAD>
                    <tr>
                        <SortHeader params by="name" label="Name"/>
                        <SortHeader params by="phase" label="Phase"/>
                        <th scope="col" class="px-4 py-2 font-medium">"Version"</th>
                        <SortHeader params by="nodes" label="Node pools"/>
                        <SortHeader params by="created" label="Created (UTC)"/>
                        <th scope="col" class="px-4 py-2 font-medium"><span class="sr-only">"Actions"</span></th>
                    </tr>
                </thead>
                <tbody><Rows store/></tbody>
            </table>
        </ScrollRegion>
        <Pager params store/>
    }
    .into_any()
}

/// No klusters at all, or none matching the search and filter.
#[component]
fn Empty(admin: bool, filtered: bool) -> impl IntoView {
    view! {
        <div class="mt-6 rounded-lg border border-dashed border-slate-300 p-6 text-center text-slate-600 dark:border-slate-700 dark:text-slate-400">
            {if filtered {
                view! { <p>"No kluster matches this search." <a href="/" class="ml-1 underline">"Show all"</a></p> }.into_any()
            } else if admin {
                view! {
                    <p>"No klusters in this project yet."</p>
                    <p class="mt-3"><a href="/klusters/new" class=PRIMARY>"Create your first kluster"</a></p>
                }.into_any()
            } else {
                view! {
                    <p>"No klusters in this project yet."</p>
                    <p class="mt-2 text-sm">"A project admin (role kubernetes_admin) can create one."</p>
                }.into_any()
            }}
        </div>
    }
}
