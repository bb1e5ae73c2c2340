//! The project's klusters as a table: name, phase, version and node pools.

use leptos::prelude::*;

use crate::components::error_alert::ErrorAlert;
use crate::components::style::{
    phase_badge, H1_LIST, LINK, MUTED, PRIMARY, ROW, SECONDARY, SURFACE, TABLE, THEAD,
};
use crate::model::KlusterRow;
use crate::server_fns::list_klusters;

/// "name: running/size running, healthy, schedulable" per pool.
fn pools(k: &KlusterRow) -> String {
    if k.pools.is_empty() {
        return "no pools".into();
    }
    k.pools
        .iter()
        .map(|p| match p.running {
            Some(running) => format!(
                "{}: {running}/{} running, {} healthy, {} schedulable",
                p.name, p.size, p.healthy, p.schedulable
            ),
            None => format!("{}: {} nodes", p.name, p.size),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The klusters of the session's project, with an empty state and errors in words;
/// `admin` shows the create button.
#[component]
pub fn KlusterList(project: String, admin: bool) -> impl IntoView {
    // Live: refetch (debounced) when any kluster of the project has news.
    let live = crate::components::live::use_live();
    let changes = live.map(|l| l.changes(None, 700));
    Effect::new(move |_| {
        if let Some(l) = live {
            l.start(None);
        }
    });
    let klusters = Resource::new(move || changes.map(|c| c.get()), |_| list_klusters());
    view! {
        <section aria-labelledby="klusters-heading">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <h1 id="klusters-heading" class=H1_LIST>"Klusters in " {project}</h1>
                <div class="flex gap-2">
                    <a href="/" class=SECONDARY>"Refresh"</a>
                    {admin.then(|| view! { <a href="/klusters/new" class=PRIMARY>"New kluster"</a> })}
                </div>
            </div>
            <Transition fallback=|| view! { <p class="mt-4 text-sm">"Loading klusters…"</p> }>
                {move || Suspend::new(async move {
                    match klusters.await {
                        Ok(list) if list.is_empty() => view! {
                            <div class="mt-6 rounded-lg border border-dashed border-slate-300 p-6 text-center text-slate-600 dark:border-slate-700 dark:text-slate-400">
                                <p>"No klusters in this project yet."</p>
                                {if admin {
                                    view! { <p class="mt-3"><a href="/klusters/new" class=PRIMARY>"Create your first kluster"</a></p> }.into_any()
                                } else {
                                    view! { <p class="mt-2 text-sm">"A project admin (role kubernetes_admin) can create one."</p> }.into_any()
                                }}
                            </div>
                        }.into_any(),
                        Ok(list) => view! {
                            <div class=format!("mt-4 overflow-x-auto {SURFACE}")>
                                <table class=TABLE>
                                    <thead class=THEAD>
                                        <tr>
                                            <th scope="col" class="px-4 py-2 font-medium">"Name"</th>
                                            <th scope="col" class="px-4 py-2 font-medium">"Phase"</th>
                                            <th scope="col" class="px-4 py-2 font-medium">"Version"</th>
                                            <th scope="col" class="px-4 py-2 font-medium">"Node pools"</th>
                                            <th scope="col" class="px-4 py-2 font-medium">"Age"</th>
                                            <th scope="col" class="px-4 py-2 font-medium"><span class="sr-only">"Actions"</span></th>
                                        </tr>
                                    </thead>
                                    <tbody>
                                        {list.into_iter().map(|k| {
                                            let phase = k.phase;
                                            let version = k.version.clone();
                                            let pools = pools(&k);
                                            let (age, created_by) = (k.age.clone(), k.created_by.clone());
                                            let download = format!("/klusters/{}/kubeconfig", k.name);
                                            let detail = format!("/klusters/{}", k.name);
                                            view! {
                                                <tr class=ROW>
                                                    <td class="px-4 py-2 font-medium"><a href=detail class=LINK>{k.name}</a></td>
                                                    <td class="px-4 py-2">
                                                        <span class=phase_badge(phase, "text-xs")>
                                                            {format!("{phase:?}")}
                                                        </span>
                                                    </td>
                                                    <td class="px-4 py-2">{version}</td>
                                                    <td class=format!("px-4 py-2 {MUTED}")>{pools}</td>
                                                    <td class="px-4 py-2 whitespace-nowrap" title=created_by.clone()>
                                                        {if age.is_empty() { "–".to_string() } else { age }}
                                                        {(!created_by.is_empty()).then(|| view! {
                                                            <span class="sr-only">{format!(" (created by {created_by})")}</span>
                                                        })}
                                                    </td>
                                                    <td class="px-4 py-2">
                                                        <a href=download download
                                                            class=format!("whitespace-nowrap {LINK}")>
                                                            "Download kubeconfig"
                                                        </a>
                                                    </td>
                                                </tr>
                                            }
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            </div>
                        }.into_any(),
                        Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
