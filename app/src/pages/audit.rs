//! `/audit`: who changed which kluster how, and who was issued credentials, newest first,
//! filtered by kluster, user, action, time and (cloud admins) project. The filters live in
//! the URL (a plain GET form), so the page works without JavaScript and can be linked.

use kubernikus_policy::Permission;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::error_alert::ErrorAlert;
use crate::components::scroll_region::ScrollRegion;
use crate::components::signed_in::SignedIn;
use crate::components::style::{
    H1_LIST, INPUT, LABEL, META, MUTED, PRIMARY, ROW, SECONDARY, SURFACE, TABLE, THEAD,
};
use crate::server_fns::audit_records;

/// The actions a record can have, for the filter.
const ACTIONS: [&str; 7] = [
    "create",
    "update",
    "scale",
    "upgrade",
    "delete",
    "credentials",
    "bootstrap_credentials",
];

/// The audit trail (requires a session; the controller lets project admins see their
/// project and cloud admins every project).
#[component]
pub fn AuditPage() -> impl IntoView {
    // Made before the frame's `<Transition>`, which may run its content more than once
    // (see `SignedIn`).
    let query = use_query_map();
    let get = move |k: &'static str| query.with(|q| q.get(k).unwrap_or_default());
    let records = crate::resource::load(
        move || {
            (
                get("kluster"),
                get("user"),
                get("action"),
                get("since"),
                get("project"),
            )
        },
        |(k, u, a, s, p)| audit_records(k, u, a, s, p),
    );
    view! {
        <Title text="Audit"/>
        <SignedIn content=move |info| {
            let cloud = info.may(Permission::CloudAdmin);
            view! { <Audit cloud project=info.project_name records/> }
        }/>
    }
}

/// "spec.nodePools[0].size: 2 → 3; …"; a creation (nothing before) lists what was set,
/// the node pools and the version first, as "field = value".
fn changes(r: &kluster::AuditRecord) -> String {
    if r.changes.is_empty() {
        return "–".into();
    }
    let created = r.changes.iter().all(|c| c.before.is_empty());
    let mut changes: Vec<&kluster::SpecChange> = r.changes.iter().collect();
    if created {
        let key = |c: &&kluster::SpecChange| {
            !(c.field.contains("nodePools") || c.field.contains("version"))
        };
        changes.sort_by_key(key);
    }
    let shown: Vec<String> = changes
        .iter()
        .take(8)
        .map(|c| {
            let v = |s: &str| {
                if s.is_empty() {
                    "∅".to_string()
                } else {
                    s.to_string()
                }
            };
            if created {
                format!("{} = {}", c.field, v(&c.after))
            } else {
                format!("{}: {} → {}", c.field, v(&c.before), v(&c.after))
            }
        })
        .collect();
    let more = r.changes.len().saturating_sub(8);
    if more > 0 {
        format!("{}; and {more} more", shown.join("; "))
    } else {
        shown.join("; ")
    }
}

#[component]
fn Audit(
    cloud: bool,
    project: String,
    records: crate::resource::Loaded<Result<Vec<kluster::AuditRecord>, crate::error::AppError>>,
) -> impl IntoView {
    let query = use_query_map();
    let get = move |k: &'static str| query.with(|q| q.get(k).unwrap_or_default());
    let scope = if cloud {
        "every project (cloud admin)".to_string()
    } else {
        format!("project {project}")
    };
    view! {
        <section aria-labelledby="audit-heading">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <h1 id="audit-heading" class=H1_LIST>"Audit trail"</h1>
                <a href="/audit" class=SECONDARY>"Clear filters"</a>
            </div>
            <p class=format!("mt-1 text-sm {MUTED}")>
                "Every change to a kluster and every kubeconfig issued in " {scope} ", newest first."
            </p>
            <form method="get" action="/audit" aria-label="Filter the audit trail"
                class="mt-4 grid items-end gap-3 sm:grid-cols-3 lg:grid-cols-6">
                <label class=LABEL>"Kluster"
                    <input name="kluster" class=INPUT value=move || get("kluster")/>
                </label>
                <label class=LABEL>"User (name or id)"
                    <input name="user" class=INPUT value=move || get("user")/>
                </label>
                <label class=LABEL>"Action"
                    <select name="action" class=INPUT>
                        <option value="">"any"</option>
                        {ACTIONS.iter().map(|a| {
                            let selected = move || get("action") == *a;
                            view! { <option value=*a selected=selected>{*a}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label class=LABEL>"Since (UTC)"
                    <input name="since" type="datetime-local" class=INPUT value=move || get("since")/>
                </label>
                {cloud.then(|| view! {
                    <label class=LABEL>"Project name or id"
                        <input name="project" class=INPUT value=move || get("project")/>
                    </label>
                })}
                <div><button type="submit" class=PRIMARY>"Filter"</button></div>
            </form>
            <Transition fallback=|| view! { <p class="mt-4 text-sm">"Loading the audit trail…"</p> }>
                {move || Suspend::new(async move {
                    match records.await {
                        Ok(list) if list.is_empty() => view! {
                            <p class=format!("mt-6 text-sm {MUTED}")>"No audit records match."</p>
                        }.into_any(),
                        Ok(list) => view! {
                            <ScrollRegion label="Audit records" class=format!("mt-4 {SURFACE}")>
                                <table class=TABLE id="audit-table">
                                    <thead class=THEAD>
                                        <tr>
                                            <th scope="col" class="px-3 py-2 font-medium">"When (UTC)"</th>
                                            {cloud.then(|| view! { <th scope="col" class="px-3 py-2 font-medium">"Project"</th> })}
                                            <th scope="col" class="px-3 py-2 font-medium">"Kluster"</th>
                                            <th scope="col" class="px-3 py-2 font-medium">"Action"</th>
                                            <th scope="col" class="px-3 py-2 font-medium">"Who"</th>
                                            <th scope="col" class="px-3 py-2 font-medium">"What changed"</th>
                                            <th scope="col" class="px-3 py-2 font-medium">"Request · client"</th>
                                        </tr>
                                    </thead>
                                    <tbody>
                                        {list.into_iter().map(|r| {
                                            let what = changes(&r);
                                            let when = r.at.replace('T', " ").trim_end_matches('Z').to_string();
                                            view! {
                                                <tr class=ROW>
                                                    <td class="whitespace-nowrap px-3 py-2">{when}</td>
                                                    {cloud.then(|| view! { <td class="px-3 py-2">{r.project_name.clone()}</td> })}
                                                    <td class="whitespace-nowrap px-3 py-2 font-medium">{r.kluster.clone()}</td>
                                                    <td class="px-3 py-2">{r.action.clone()}</td>
                                                    <td class="px-3 py-2">{format!("{}@{}", r.user_name, r.user_domain)}</td>
                                                    <td class="max-w-md break-words px-3 py-2 font-mono text-xs">{what}</td>
                                                    <td class=format!("px-3 py-2 {META}")>
                                                        <span class="font-mono">{r.request_id.clone()}</span>
                                                        <br/>{r.client_addr.clone()}
                                                    </td>
                                                </tr>
                                            }
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            </ScrollRegion>
                        }.into_any(),
                        Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
