//! `/ops` and `/ops/timeline`: the cloud admins' view across every project — the klusters
//! that need attention, each project's quota use, and the all-projects timeline (project
//! column and filter in the URL; refreshed every 5 s once the page is hydrated, and by the
//! Refresh link without JavaScript). The controller decides who may see them: anyone else
//! gets its 403 in words and nothing of any project.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::error_alert::ErrorAlert;
use crate::components::scroll_region::ScrollRegion;
use crate::components::signed_in::SignedIn;
use crate::components::style::{
    H1_LIST, H2, INPUT, LABEL, LINK_SMALL, META, MUTED, PRIMARY, ROW, SECONDARY, SECTION, SURFACE,
    TABLE, THEAD,
};
use crate::error::AppError;
use crate::server_fns::{ops_attention, ops_events, ops_quotas};

/// The operator overview (requires a session; cloud admins only, the controller decides).
#[component]
pub fn OpsPage() -> impl IntoView {
    // Made before the frame's `<Transition>`, which may run its content more than once
    // (see `SignedIn`).
    let attention = crate::resource::load(|| (), |_| ops_attention());
    let quotas = crate::resource::load(|| (), |_| ops_quotas());
    view! {
        <Title text="Operations"/>
        <SignedIn content=move |_| view! { <Overview attention quotas/> }/>
    }
}

/// The all-projects timeline (requires a session; cloud admins only).
#[component]
pub fn OpsTimelinePage() -> impl IntoView {
    // Made before the frame's `<Transition>`, which may run its content more than once
    // (see `SignedIn`).
    let query = use_query_map();
    let project = Memo::new(move |_| query.with(|q| q.get("project").unwrap_or_default()));
    let tick = RwSignal::new(0u32);
    // Hydrated: refresh every 5 s (effects run only in the browser).
    Effect::new(move |_| {
        if let Ok(h) = set_interval_with_handle(
            move || tick.update(|t| *t = t.wrapping_add(1)),
            std::time::Duration::from_secs(5),
        ) {
            on_cleanup(move || h.clear());
        }
    });
    let events = crate::resource::load(move || (project.get(), tick.get()), |(p, _)| ops_events(p));
    view! {
        <Title text="All projects' timeline"/>
        <SignedIn content=move |_| view! { <AllEvents project events/> }/>
    }
}

/// A project as shown: its name when known, else its id.
fn project_label(name: &str, id: &str) -> String {
    if name.is_empty() {
        id.to_string()
    } else {
        name.to_string()
    }
}

/// "used / limit" with the share in percent.
fn usage(u: &kluster::Usage) -> String {
    if u.limit > 0 {
        format!("{} / {} ({}%)", u.used, u.limit, u.used * 100 / u.limit)
    } else {
        format!("{} / {}", u.used, u.limit)
    }
}

#[component]
fn Overview(
    attention: crate::resource::Loaded<Result<Vec<kluster::Attention>, AppError>>,
    quotas: crate::resource::Loaded<Result<Vec<kluster::ProjectQuota>, AppError>>,
) -> impl IntoView {
    let th = "px-3 py-2 font-medium";
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <h1 class=H1_LIST>"Operations: every project"</h1>
            <div class="flex gap-2">
                <a href="/ops/timeline" class=PRIMARY>"All projects' timeline"</a>
                <a href="/ops" class=SECONDARY>"Refresh"</a>
            </div>
        </div>
        <section class=SECTION aria-labelledby="attention-heading">
            <h2 id="attention-heading" class=H2>"Needs attention"</h2>
            <p class=format!("text-sm {MUTED}")>
                "Klusters stuck in Creating or Terminating past their timeout, node pools below their size, warnings that keep repeating (3 times or more within the hour)."
            </p>
            <Transition fallback=|| view! { <p class="mt-2 text-sm">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match attention.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class="mt-3 text-sm" id="attention-empty">"Nothing needs attention."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ScrollRegion label="Klusters that need attention" class=format!("mt-3 {SURFACE}")>
                                <table class=TABLE id="attention-table">
                                    <thead class=THEAD><tr>
                                        <th scope="col" class=th>"Project"</th>
                                        <th scope="col" class=th>"Kluster"</th>
                                        <th scope="col" class=th>"Phase"</th>
                                        <th scope="col" class=th>"Problem"</th>
                                        <th scope="col" class=th>"Detail"</th>
                                    </tr></thead>
                                    <tbody>
                                        {list.into_iter().map(|a| view! {
                                            <tr class=ROW>
                                                <td class="px-3 py-2">{project_label(&a.project_name, &a.project_id)}</td>
                                                <td class="whitespace-nowrap px-3 py-2 font-medium">{a.kluster}</td>
                                                <td class="px-3 py-2">{a.phase}</td>
                                                <td class="whitespace-nowrap px-3 py-2">{a.problem.replace('_', " ")}</td>
                                                <td class=format!("px-3 py-2 {MUTED}")>{a.detail}</td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            </ScrollRegion>
                        }.into_any(),
                        Err(e) => view! { <ErrorAlert spacing="mt-3">{e.to_string()}</ErrorAlert> }.into_any(),
                    }
                })}
            </Transition>
        </section>
        <Transition fallback=|| view! { <p class="mt-2 text-sm">"Loading…"</p> }>
            {move || Suspend::new(async move {
                let quotas = quotas.await;
                if matches!(quotas, Err(AppError::Forbidden(_))) {
                    // The attention section already says why; no second section saying it.
                    return ().into_any();
                }
                view! {
                    <section class=SECTION aria-labelledby="quota-heading">
                        <h2 id="quota-heading" class=H2>"Quota use by project"</h2>
                        {
                            match quotas {
                                Ok(list) if list.is_empty() => view! {
                                    <p class="mt-3 text-sm">"No project has klusters."</p>
                                }.into_any(),
                                Ok(list) => view! {
                                    <ScrollRegion label="Quota use per project" class=format!("mt-3 {SURFACE}")>
                                        <table class=TABLE id="quota-table">
                                            <thead class=THEAD><tr>
                                                <th scope="col" class=th>"Project"</th>
                                                <th scope="col" class=th>"Klusters"</th>
                                                <th scope="col" class=th>"Instances"</th>
                                                <th scope="col" class=th>"vCPUs"</th>
                                                <th scope="col" class=th>"RAM (MiB)"</th>
                                            </tr></thead>
                                            <tbody>
                                                {list.into_iter().map(|p| {
                                                    let cells = match &p.quota {
                                                        Some(q) => [usage(&q.instances), usage(&q.cores), usage(&q.ram)],
                                                        None => [p.error.clone(), String::new(), String::new()],
                                                    };
                                                    let [i, c, r] = cells;
                                                    view! {
                                                        <tr class=ROW>
                                                            <td class="px-3 py-2">{project_label(&p.project_name, &p.project_id)}</td>
                                                            <td class="px-3 py-2">{p.klusters}</td>
                                                            <td class="px-3 py-2">{i}</td>
                                                            <td class="px-3 py-2">{c}</td>
                                                            <td class="px-3 py-2">{r}</td>
                                                        </tr>
                                                    }
                                                }).collect_view()}
                                            </tbody>
                                        </table>
                                    </ScrollRegion>
                                }.into_any(),
                                Err(e) => view! { <ErrorAlert spacing="mt-3">{e.to_string()}</ErrorAlert> }.into_any(),
                            }
                        }
                    </section>
                }.into_any()
            })}
        </Transition>
    }
}

#[component]
fn AllEvents(
    project: Memo<String>,
    events: crate::resource::Loaded<Result<Vec<kluster::OpsEvent>, crate::error::AppError>>,
) -> impl IntoView {
    let project = move || project.get();
    let th = "px-3 py-2 font-medium";
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <h1 class=H1_LIST>"All projects' timeline"</h1>
            <div class="flex gap-2 items-center">
                <a href="/ops" class=LINK_SMALL>"← Operations"</a>
                <a href=move || format!("/ops/timeline{}", if project().is_empty() { String::new() } else { format!("?project={}", project()) })
                    class=SECONDARY>"Refresh"</a>
            </div>
        </div>
        <form method="get" action="/ops/timeline" aria-label="Filter by project" class="mt-4 flex items-end gap-2">
            <label class=LABEL>"Project name or id (empty: all)"
                <input name="project" class=INPUT value=project/>
            </label>
            <button type="submit" class=PRIMARY>"Filter"</button>
        </form>
        <Transition fallback=|| view! { <p class="mt-4 text-sm">"Loading events…"</p> }>
            {move || Suspend::new(async move {
                match events.await {
                    Ok(list) if list.is_empty() => view! { <p class="mt-4 text-sm">"No events."</p> }.into_any(),
                    Ok(mut list) => {
                        list.reverse();
                        view! {
                            <ScrollRegion label="Events of every project" class=format!("mt-4 {SURFACE}")>
                                <table class=TABLE id="ops-events">
                                    <thead class=THEAD><tr>
                                        <th scope="col" class=th>"Last seen (UTC)"</th>
                                        <th scope="col" class=th>"Project"</th>
                                        <th scope="col" class=th>"Kluster"</th>
                                        <th scope="col" class=th>"Type"</th>
                                        <th scope="col" class=th>"Reason"</th>
                                        <th scope="col" class=th>"Message"</th>
                                        <th scope="col" class=th>"Count"</th>
                                    </tr></thead>
                                    <tbody>
                                        {list.into_iter().map(|e| {
                                            let warning = e.event.event.kind == "Warning";
                                            let href = format!("/ops/timeline?project={}", e.project_id);
                                            view! {
                                                <tr class=ROW>
                                                    <td class=format!("whitespace-nowrap px-3 py-2 {META}")>{e.event.event.last_timestamp.replace('T', " ").trim_end_matches('Z').to_string()}</td>
                                                    <td class="px-3 py-2"><a href=href class=LINK_SMALL>{project_label(&e.project_name, &e.project_id)}</a></td>
                                                    <td class="whitespace-nowrap px-3 py-2 font-medium">{e.event.kluster.clone()}</td>
                                                    <td class=if warning { "px-3 py-2 font-semibold text-amber-800 dark:text-amber-200" } else { "px-3 py-2" }>{e.event.event.kind.clone()}</td>
                                                    <td class="px-3 py-2">{e.event.event.reason.clone()}</td>
                                                    <td class=format!("px-3 py-2 {MUTED}")>{e.event.event.message.clone()}</td>
                                                    <td class="px-3 py-2">{e.event.event.count}</td>
                                                </tr>
                                            }
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            </ScrollRegion>
                        }.into_any()
                    }
                    Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                }
            })}
        </Transition>
    }
}
