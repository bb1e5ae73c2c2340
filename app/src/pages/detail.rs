//! One kluster: spec, status, pools (with scaling for admins), events with next steps, the
//! setup command, the kubeconfig download, and deletion behind a typed confirmation.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::components::signed_in::{badge, SignedIn, FIELD_ERROR, INPUT, PRIMARY, SECONDARY};
use crate::error::AppError;
use crate::model::{next_step, KlusterDetail};
use crate::server_fns::{get_kluster_detail, DeleteKluster, EditKluster, ScalePool};

/// `/klusters/:name` (requires a session).
#[component]
pub fn DetailPage() -> impl IntoView {
    let params = use_params_map();
    let name = move || params.read().get("name").unwrap_or_default();
    view! {
        <Title text=name()/>
        <SignedIn content=move |_| view! { <Detail name=name()/> }/>
    }
}

#[component]
fn Detail(name: String) -> impl IntoView {
    let scale = ServerAction::<ScalePool>::new();
    let delete = ServerAction::<DeleteKluster>::new();
    let edit = ServerAction::<EditKluster>::new();
    // Live: refetch (debounced) when the kluster has news on the page's event stream.
    let live = crate::components::live::use_live();
    let changes = live.map(|l| l.changes(Some(name.clone()), 500));
    Effect::new(move |_| {
        if let Some(l) = live {
            l.start(None);
        }
    });
    let key = name.clone();
    let detail = Resource::new(
        move || {
            (
                scale.version().get(),
                edit.version().get(),
                changes.map(|c| c.get()),
            )
        },
        move |_| get_kluster_detail(key.clone()),
    );
    // A plain form post that failed comes back with an error code (never free text).
    let returned = use_query_map()
        .read_untracked()
        .get("error")
        .and_then(|c| AppError::message_for_code(&c));
    view! {
        <nav class="mb-4 text-sm"><a href="/" class="text-sky-700 underline dark:text-sky-400">"← All klusters"</a></nav>
        {returned.map(|m| view! { <p role="alert" class="mb-4 rounded bg-red-50 p-3 text-red-800 dark:bg-red-950 dark:text-red-200">{m}</p> })}
        <Transition fallback=|| view! { <p>"Loading the kluster…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(d) => view! { <Body d scale delete edit/> }.into_any(),
                    Err(e) => view! {
                        <p role="alert" class="rounded bg-red-50 p-4 text-red-800 dark:bg-red-950 dark:text-red-200">{e.to_string()}</p>
                    }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Body(
    d: KlusterDetail,
    scale: ServerAction<ScalePool>,
    delete: ServerAction<DeleteKluster>,
    edit: ServerAction<EditKluster>,
) -> impl IntoView {
    let k = d.kluster;
    let name = k.name.clone();
    let phase = k.status.phase;
    let s = &k.spec;
    let or_auto = |v: &str| {
        if v.is_empty() {
            "chosen automatically".to_string()
        } else {
            v.to_string()
        }
    };
    let facts: Vec<(&str, String)> = vec![
        ("Version (wanted)", s.version.clone()),
        (
            "Version (running)",
            if k.status.version.is_empty() {
                "not yet".into()
            } else {
                k.status.version.clone()
            },
        ),
        ("Service CIDR", s.service_cidr.clone()),
        ("Pod CIDR", s.cluster_cidr.clone().unwrap_or_default()),
        ("Router", or_auto(&s.openstack.router_id)),
        ("Network", or_auto(&s.openstack.network_id)),
        ("Load-balancer subnet", or_auto(&s.openstack.lb_subnet_id)),
        ("Security group", or_auto(&s.openstack.security_group_name)),
        (
            "SSH key",
            if d.ssh_fingerprint.is_empty() {
                "none".into()
            } else {
                d.ssh_fingerprint.clone()
            },
        ),
        ("API server", k.status.apiserver.clone()),
    ];
    let pools: Vec<_> = s
        .node_pools
        .iter()
        .map(|p| {
            let info = k
                .status
                .node_pools
                .iter()
                .find(|i| i.name == p.name)
                .cloned()
                .unwrap_or_default();
            (p.clone(), info)
        })
        .collect();
    let admin = d.is_admin;
    let download = format!("/klusters/{name}/kubeconfig");
    let setup = d.setup_command.clone();
    let copied = RwSignal::new(false);
    let copy_text = setup.clone();
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        {
            if let Some(w) = web_sys::window() {
                let _ = w.navigator().clipboard().write_text(&copy_text);
                copied.set(true);
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = &copy_text;
    };
    let scale_error = move || scale.value().get().and_then(|r| r.err());
    let edit_error = move || edit.value().get().and_then(|r| r.err());
    let upgrades = d.upgrades.clone();
    let flavors = d.flavors.clone();
    let zones = d.zones.clone();
    let edit_name = name.clone();
    let delete_error = move || delete.value().get().and_then(|r| r.err());
    let confirm_name = name.clone();
    view! {
        <div class="flex flex-wrap items-center justify-between gap-3">
            <h1 class="flex items-center gap-3 text-2xl font-semibold">
                {name.clone()}
                <span id="phase" role="status" aria-live="polite"
                    class=format!("rounded-full px-2 py-0.5 text-sm font-medium {}", badge(phase))>
                    {format!("{phase:?}")}
                </span>
            </h1>
            <a href=download download class=PRIMARY>"Download kubeconfig"</a>
        </div>
        {(!k.status.message.is_empty()).then(|| view! {
            <p role="alert" class="mt-4 rounded bg-red-50 p-3 text-red-800 dark:bg-red-950 dark:text-red-200">{k.status.message.clone()}</p>
        })}

        <section aria-labelledby="spec-h" class="mt-6 rounded-lg bg-white p-4 shadow dark:bg-slate-900">
            <h2 id="spec-h" class="text-lg font-semibold">"Specification"</h2>
            <dl class="mt-3 grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
                {facts.into_iter().map(|(label, value)| view! {
                    <div class="min-w-0">
                        <dt class="text-slate-500 dark:text-slate-400">{label}</dt>
                        <dd class="break-all font-mono">{value}</dd>
                    </div>
                }).collect_view()}
            </dl>
        </section>

        <section aria-labelledby="pools-h" class="mt-6 rounded-lg bg-white p-4 shadow dark:bg-slate-900">
            <h2 id="pools-h" class="text-lg font-semibold">"Node pools"</h2>
            <div class="mt-3 overflow-x-auto">
                <table class="min-w-full text-left text-sm">
                    <thead class="border-b border-slate-200 text-slate-600 dark:border-slate-700 dark:text-slate-400">
                        <tr>
                            <th scope="col" class="py-2 pr-4 font-medium">"Pool"</th>
                            <th scope="col" class="py-2 pr-4 font-medium">"Flavor"</th>
                            <th scope="col" class="py-2 pr-4 font-medium">"Zone"</th>
                            <th scope="col" class="py-2 pr-4 font-medium">"Running"</th>
                            <th scope="col" class="py-2 pr-4 font-medium">"Healthy"</th>
                            <th scope="col" class="py-2 pr-4 font-medium">"Schedulable"</th>
                            <th scope="col" class="py-2 pr-4 font-medium">"Size"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {pools.into_iter().map(|(p, info)| {
                            let kname = name.clone();
                            let input_id = format!("size-{}", p.name);
                            let pool_name = p.name.clone();
                            let size_label = format!("Size of pool {}", p.name);
                            view! {
                                <tr class="border-b border-slate-100 last:border-0 dark:border-slate-800" data-pool=p.name.clone()>
                                    <td class="py-2 pr-4 font-medium">{p.name.clone()}</td>
                                    <td class="py-2 pr-4">{p.flavor.clone()}</td>
                                    <td class="py-2 pr-4">{p.availability_zone.clone()}</td>
                                    <td class="py-2 pr-4" data-count="running">{info.running}</td>
                                    <td class="py-2 pr-4" data-count="healthy">{info.healthy}</td>
                                    <td class="py-2 pr-4" data-count="schedulable">{info.schedulable}</td>
                                    <td class="py-2 pr-4">
                                        {if admin {
                                            view! {
                                                <ActionForm action=scale attr:class="flex items-center gap-2">
                                                    <input type="hidden" name="name" value=kname/>
                                                    <input type="hidden" name="pool" value=pool_name/>
                                                    <label for=input_id.clone() class="sr-only">{size_label}</label>
                                                    <input id=input_id type="number" name="size" min="0" max="127" required
                                                        value=p.size.to_string() class="w-20 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm focus:outline-2 focus:outline-sky-600 dark:border-slate-600 dark:bg-slate-800"/>
                                                    <button type="submit" class=SECONDARY>"Scale"</button>
                                                </ActionForm>
                                                {(p.size == 0).then(|| {
                                                    let kname = name.clone();
                                                    let pool = p.name.clone();
                                                    view! {
                                                        <ActionForm action=edit attr:class="mt-1">
                                                            <input type="hidden" name="name" value=kname/>
                                                            <input type="hidden" name="edit[op]" value="remove_pool"/>
                                                            <input type="hidden" name="edit[pool]" value=pool.clone()/>
                                                            <button type="submit" class="text-sm text-red-700 underline dark:text-red-400">{format!("Remove pool {pool}")}</button>
                                                        </ActionForm>
                                                    }
                                                })}
                                            }.into_any()
                                        } else {
                                            view! { <span>{p.size}</span> }.into_any()
                                        }}
                                    </td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p role="alert" class=FIELD_ERROR>{move || scale_error().map(|e| e.for_field("size").unwrap_or_else(|| e.to_string()))}</p>
            {admin.then(|| {
                let kname = edit_name.clone();
                view! {
                    <p class="mt-2 text-sm text-slate-600 dark:text-slate-400">"To remove a pool, scale it to 0 first."</p>
                    <details class="mt-3">
                        <summary class="cursor-pointer text-sm font-medium">"Add a node pool…"</summary>
                        <ActionForm action=edit attr:class="mt-2 grid grid-cols-2 gap-3 sm:grid-cols-5">
                            <input type="hidden" name="name" value=kname/>
                            <input type="hidden" name="edit[op]" value="add_pool"/>
                            <label class="block text-sm">"Pool name"<input name="edit[pool]" required class=INPUT/></label>
                            <label class="col-span-2 block text-sm">"Flavor"
                                <select name="edit[flavor]" class=INPUT>
                                    {flavors.iter().map(|f| view! { <option value=f.name.clone()>{format!("{} — {} vCPU, {} GiB RAM", f.name, f.vcpus, f.ram / 1024)}</option> }).collect_view()}
                                </select>
                            </label>
                            <label class="block text-sm">"Zone"
                                <select name="edit[zone]" class=INPUT>
                                    {zones.iter().map(|z| view! { <option value=z.clone()>{z.clone()}</option> }).collect_view()}
                                </select>
                            </label>
                            <label class="block text-sm">"Nodes"<input name="edit[size]" type="number" min="0" max="127" value="1" class=INPUT/></label>
                            <div class="col-span-2 sm:col-span-5"><button type="submit" class=SECONDARY>"Add pool"</button></div>
                        </ActionForm>
                    </details>
                    <p role="alert" class=FIELD_ERROR>{move || edit_error().map(|e| match e {
                        AppError::Invalid(errs) => errs.into_iter().map(|e| e.message).collect::<Vec<_>>().join(" "),
                        e => e.to_string(),
                    })}</p>
                }
            })}
        </section>

        {admin.then(|| {
            let kname = name.clone();
            view! {
                <section aria-labelledby="version-h" class="mt-6 rounded-lg bg-white p-4 shadow dark:bg-slate-900">
                    <h2 id="version-h" class="text-lg font-semibold">"Kubernetes version"</h2>
                    {if upgrades.is_empty() {
                        view! { <p class="mt-2 text-sm">"No upgrade is available for this version."</p> }.into_any()
                    } else {
                        view! {
                            <ActionForm action=edit attr:class="mt-2 flex flex-wrap items-end gap-2">
                                <input type="hidden" name="name" value=kname/>
                                <input type="hidden" name="edit[op]" value="upgrade"/>
                                <label class="block text-sm">"Upgrade to"
                                    <select name="edit[version]" class=INPUT>
                                        {upgrades.iter().map(|v| view! { <option value=v.clone()>{v.clone()}</option> }).collect_view()}
                                    </select>
                                </label>
                                <button type="submit" class=SECONDARY>"Upgrade"</button>
                            </ActionForm>
                        }.into_any()
                    }}
                </section>
            }
        })}

        <section aria-labelledby="setup-h" class="mt-6 rounded-lg bg-white p-4 shadow dark:bg-slate-900">
            <h2 id="setup-h" class="text-lg font-semibold">"Set up kubectl"</h2>
            {if setup.is_empty() {
                view! { <p class="mt-2 text-sm">"The setup command is not available right now."</p> }.into_any()
            } else {
                view! {
                    <div class="mt-2 flex items-start gap-2">
                        <pre id="setup-command" class="min-w-0 flex-1 overflow-x-auto rounded bg-slate-100 p-3 text-xs dark:bg-slate-800">{setup.clone()}</pre>
                        <button type="button" class=SECONDARY on:click=copy>
                            {move || if copied.get() { "Copied" } else { "Copy" }}
                        </button>
                    </div>
                }.into_any()
            }}
        </section>

        <section aria-labelledby="events-h" class="mt-6 rounded-lg bg-white p-4 shadow dark:bg-slate-900">
            <h2 id="events-h" class="text-lg font-semibold">"Recent events"</h2>
            {if d.events.is_empty() {
                view! { <p class="mt-2 text-sm">"No events yet."</p> }.into_any()
            } else {
                view! {
                    <ol class="mt-3 space-y-2" aria-live="polite">
                        {d.events.into_iter().map(|e| {
                            let warning = e.kind == "Warning";
                            let step = next_step(&e.reason, &e.message);
                            view! {
                                <li class=if warning { "rounded border-l-4 border-amber-500 bg-amber-50 p-2 text-sm dark:bg-amber-950" } else { "rounded border-l-4 border-slate-300 p-2 text-sm dark:border-slate-600" }>
                                    <div class="flex flex-wrap items-baseline gap-x-3">
                                        <span class="font-medium">{e.reason.clone()}</span>
                                        {(e.count > 1).then(|| view! { <span class="text-xs text-slate-500">{format!("×{}", e.count)}</span> })}
                                        <time class="text-xs text-slate-500" datetime=e.last_timestamp.clone()>{e.last_timestamp.replace('T', " ").replace('Z', " UTC")}</time>
                                    </div>
                                    <p class="break-words">{e.message.clone()}</p>
                                    {step.map(|s| view! { <p class="mt-1 text-slate-700 dark:text-slate-300">{s}</p> })}
                                </li>
                            }
                        }).collect_view()}
                    </ol>
                }.into_any()
            }}
        </section>

        {admin.then(|| view! {
            <section aria-labelledby="delete-h" class="mt-6 rounded-lg border border-red-300 p-4 dark:border-red-800">
                <h2 id="delete-h" class="text-lg font-semibold text-red-800 dark:text-red-300">"Delete"</h2>
                <details class="mt-2">
                    <summary class="cursor-pointer text-sm">"Delete this kluster…"</summary>
                    <ActionForm action=delete attr:class="mt-3 space-y-2">
                        <input type="hidden" name="name" value=confirm_name.clone()/>
                        <label for="confirm" class="block text-sm">
                            "This deletes the kluster, its nodes and its volumes and load balancers. Type "
                            <strong class="font-mono">{confirm_name.clone()}</strong>" to confirm."
                        </label>
                        <input id="confirm" name="confirm" autocomplete="off" required class=INPUT/>
                        <p role="alert" class=FIELD_ERROR>{move || delete_error().map(|e| e.for_field("confirm").unwrap_or_else(|| e.to_string()))}</p>
                        <button type="submit" class="rounded-md bg-red-700 px-4 py-2 text-sm font-medium text-white hover:bg-red-600">"Delete kluster"</button>
                    </ActionForm>
                </details>
            </section>
        })}
    }
}
