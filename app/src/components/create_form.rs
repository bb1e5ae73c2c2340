//! The create form: validated as you type with the API's own rules (`crates/kluster`), a
//! quota summary before submit, cascading router → network → subnet pickers; a plain form
//! that also works without JavaScript (the server then shows its errors).

use leptos::prelude::*;

use crate::components::signed_in::{FIELD_ERROR, INPUT, PRIMARY, SECONDARY};
use crate::error::AppError;
use crate::model::{CreateContext, KlusterForm, Needs, PoolForm};
use crate::server_fns::CreateKluster;

fn default_pool(ctx: &CreateContext, n: usize) -> PoolForm {
    PoolForm {
        name: if n == 0 {
            "pool".into()
        } else {
            format!("pool{}", n + 1)
        },
        flavor: ctx
            .metadata
            .flavors
            .first()
            .map(|f| f.name.clone())
            .unwrap_or_default(),
        availability_zone: ctx
            .metadata
            .availability_zones
            .first()
            .map(|z| z.name.clone())
            .unwrap_or_default(),
        size: "2".into(),
        allow_reboot: Some("on".into()),
        allow_replace: Some("on".into()),
    }
}

/// The form, filled from `flash` (a rejected plain form post) or with defaults.
#[component]
pub fn CreateForm(ctx: CreateContext, flash: Option<(KlusterForm, AppError)>) -> impl IntoView {
    let (initial, server_error) = match flash {
        Some((f, e)) => (f, Some(e)),
        None => (
            KlusterForm {
                version: ctx.versions.first().cloned().unwrap_or_default(),
                pools: vec![default_pool(&ctx, 0)],
                ..Default::default()
            },
            None,
        ),
    };
    let action = ServerAction::<CreateKluster>::new();
    let form = RwSignal::new(initial.clone());
    let touched = RwSignal::new(std::collections::HashSet::<String>::new());
    let server_error = RwSignal::new(server_error);
    Effect::new(move |_| {
        if let Some(Err(e)) = action.value().get() {
            server_error.set(Some(e));
        }
    });
    let client_errors =
        Memo::new(move |_| form.with(|f| f.to_kluster().err().map(|e| e.0).unwrap_or_default()));
    // The message for `field`: the server's, else the rule's once the field was touched.
    let error_for = move |field: String| {
        let server = server_error.with(|e| e.as_ref().and_then(|e| e.for_field(&field)));
        server.or_else(|| {
            touched
                .with(|t| t.contains(&field))
                .then(|| {
                    client_errors.with(|errs| {
                        errs.iter()
                            .find(|e| e.field == field)
                            .map(|e| e.message.clone())
                    })
                })
                .flatten()
        })
    };
    // Editing a field replaces the server's verdict with the rules' live one.
    let touch = move |field: &str| {
        let field = field.to_string();
        touched.update(|t| {
            t.insert(field);
        });
        if server_error.with_untracked(Option::is_some) {
            server_error.set(None);
        }
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        let errs = client_errors.get_untracked();
        if !errs.is_empty() {
            ev.prevent_default();
            touched.update(|t| t.extend(errs.into_iter().map(|e| e.field)));
        } else {
            server_error.set(None);
        }
    };

    let meta = StoredValue::new(ctx.metadata.clone());
    let quota = ctx.quota;
    let needs =
        Memo::new(move |_| form.with(|f| meta.with_value(|m| Needs::of(&f.pools, &m.flavors))));
    let pool_count = Memo::new(move |_| form.with(|f| f.pools.len()));
    let versions = ctx.versions.clone();
    let ctx = StoredValue::new(ctx);

    // One text field bound to the form.
    let text = move |id: &'static str,
                     label: &'static str,
                     field: &'static str,
                     hint: &'static str,
                     get: fn(&KlusterForm) -> String,
                     set: fn(&mut KlusterForm, String)| {
        let name = format!("form[{id}]");
        let initial = get(&form.get_untracked());
        let describedby = format!("{id}-error");
        view! {
            <div>
                <label for=id class="block text-sm font-medium">{label}</label>
                <input id=id name=name value=initial placeholder=hint class=INPUT
                    aria-describedby=describedby.clone()
                    prop:value=move || form.with(get)
                    on:input=move |ev| { form.update(|f| set(f, event_target_value(&ev))); touch(field); }/>
                <p id=describedby class=FIELD_ERROR aria-live="polite">{move || error_for(field.to_string())}</p>
            </div>
        }
    };

    let pool_row = move |i: usize| {
        let initial = form.with_untracked(|f| f.pools.get(i).cloned().unwrap_or_default());
        let at = format!("spec.nodePools[{i}]");
        let field = move |suffix: &str| format!("{at}.{suffix}");
        let (f_name, f_size, f_flavor, f_zone) = (
            field("name"),
            field("size"),
            field("flavor"),
            field("availabilityZone"),
        );
        let name_id = format!("pool-{i}-name");
        let size_id = format!("pool-{i}-size");
        let flavor_id = format!("pool-{i}-flavor");
        let zone_id = format!("pool-{i}-zone");
        let get = move |g: fn(&PoolForm) -> String| {
            move || form.with(|f| f.pools.get(i).map(g).unwrap_or_default())
        };
        let set = move |s: fn(&mut PoolForm, String), touched_field: String| {
            move |ev: leptos::ev::Event| {
                let v = event_target_value(&ev);
                form.update(|f| {
                    if let Some(p) = f.pools.get_mut(i) {
                        s(p, v)
                    }
                });
                touch(&touched_field);
            }
        };
        let check = move |s: fn(&mut PoolForm, Option<String>)| {
            move |ev: leptos::ev::Event| {
                let on = event_target_checked(&ev);
                form.update(|f| {
                    if let Some(p) = f.pools.get_mut(i) {
                        s(p, on.then(|| "on".to_string()))
                    }
                });
            }
        };
        let flavors = meta.with_value(|m| m.flavors.clone());
        let zones = meta.with_value(|m| m.availability_zones.clone());
        let (fn1, fs1, ff1, fz1) = (
            f_name.clone(),
            f_size.clone(),
            f_flavor.clone(),
            f_zone.clone(),
        );
        view! {
            <fieldset class="grid grid-cols-2 gap-3 rounded-md border border-slate-200 p-3 sm:grid-cols-6 dark:border-slate-700" data-pool-row=i>
                <legend class="px-1 text-sm font-medium">{format!("Node pool {}", i + 1)}</legend>
                <div class="col-span-2 sm:col-span-1">
                    <label for=name_id.clone() class="block text-sm">"Pool name"</label>
                    <input id=name_id name=format!("form[pools][{i}][name]") value=initial.name.clone() class=INPUT
                        prop:value=get(|p| p.name.clone()) on:input=set(|p, v| p.name = v, f_name.clone())/>
                    <p class=FIELD_ERROR aria-live="polite">{move || error_for(fn1.clone())}</p>
                </div>
                <div class="col-span-2">
                    <label for=flavor_id.clone() class="block text-sm">"Flavor"</label>
                    <select id=flavor_id name=format!("form[pools][{i}][flavor]") class=INPUT
                        prop:value=get(|p| p.flavor.clone()) on:change=set(|p, v| p.flavor = v, f_flavor.clone())>
                        {flavors.into_iter().map(|fl| {
                            let selected = fl.name == initial.flavor;
                            let label = format!("{} — {} vCPU, {} GiB RAM", fl.name, fl.vcpus, fl.ram / 1024);
                            view! { <option value=fl.name selected=selected>{label}</option> }
                        }).collect_view()}
                    </select>
                    <p class=FIELD_ERROR>{move || error_for(ff1.clone())}</p>
                </div>
                <div>
                    <label for=zone_id.clone() class="block text-sm">"Zone"</label>
                    <select id=zone_id name=format!("form[pools][{i}][availability_zone]") class=INPUT
                        prop:value=get(|p| p.availability_zone.clone()) on:change=set(|p, v| p.availability_zone = v, f_zone.clone())>
                        {zones.into_iter().map(|z| {
                            let selected = z.name == initial.availability_zone;
                            view! { <option value=z.name.clone() selected=selected>{z.name.clone()}</option> }
                        }).collect_view()}
                    </select>
                    <p class=FIELD_ERROR>{move || error_for(fz1.clone())}</p>
                </div>
                <div>
                    <label for=size_id.clone() class="block text-sm">"Nodes"</label>
                    <input id=size_id name=format!("form[pools][{i}][size]") type="number" min="0" max="127" value=initial.size.clone() class=INPUT
                        prop:value=get(|p| p.size.clone()) on:input=set(|p, v| p.size = v, f_size.clone())/>
                    <p class=FIELD_ERROR aria-live="polite">{move || error_for(fs1.clone())}</p>
                </div>
                <div class="col-span-2 flex flex-col justify-center gap-1 text-sm sm:col-span-1">
                    <label><input type="checkbox" name=format!("form[pools][{i}][allow_reboot]") checked=initial.allow_reboot.is_some()
                        on:change=check(|p, v| p.allow_reboot = v)/>" Allow reboot"</label>
                    <label><input type="checkbox" name=format!("form[pools][{i}][allow_replace]") checked=initial.allow_replace.is_some()
                        on:change=check(|p, v| p.allow_replace = v)/>" Allow replace"</label>
                </div>
            </fieldset>
        }
    };

    let routers = meta.with_value(|m| m.routers.clone());
    let networks = move || {
        let chosen = form.with(|f| f.router_id.clone());
        meta.with_value(|m| {
            m.routers
                .iter()
                .filter(|r| chosen.is_empty() || r.id == chosen)
                .flat_map(|r| r.networks.clone())
                .collect::<Vec<_>>()
        })
    };
    let subnets = move || {
        let chosen = form.with(|f| f.network_id.clone());
        networks()
            .into_iter()
            .filter(|n| chosen.is_empty() || n.id == chosen)
            .flat_map(|n| n.subnets)
            .collect::<Vec<_>>()
    };
    let key_pairs = meta.with_value(|m| m.key_pairs.clone());
    let groups = meta.with_value(|m| m.security_groups.clone());
    let init = initial.clone();

    view! {
        <ActionForm action attr:class="mt-4 space-y-6" attr:novalidate=true on:submit=on_submit>
            <p role="alert" class="rounded bg-red-50 p-3 text-red-800 empty:hidden dark:bg-red-950 dark:text-red-200">
                {move || server_error.get().map(|e| match e {
                    AppError::Invalid(_) => "Please correct the marked fields.".to_string(),
                    e => e.to_string(),
                })}
            </p>
            <section class="grid gap-4 sm:grid-cols-2">
                {text("name", "Kluster name", "name", "lowercase letters, digits, dashes", |f| f.name.clone(), |f, v| f.name = v)}
                <div>
                    <label for="version" class="block text-sm font-medium">"Kubernetes version"</label>
                    <select id="version" name="form[version]" class=INPUT
                        prop:value=move || form.with(|f| f.version.clone())
                        on:change=move |ev| form.update(|f| f.version = event_target_value(&ev))>
                        {versions.into_iter().enumerate().map(|(i, v)| {
                            let selected = v == init.version;
                            let label = if i == 0 { format!("{v} (default)") } else { v.clone() };
                            view! { <option value=v selected=selected>{label}</option> }
                        }).collect_view()}
                    </select>
                    <p class=FIELD_ERROR>{move || error_for("spec.version".into())}</p>
                </div>
            </section>

            <section aria-labelledby="pools-h" class="space-y-3">
                <h2 id="pools-h" class="text-lg font-semibold">"Node pools"</h2>
                {move || (0..pool_count.get()).map(pool_row).collect_view()}
                <p class=FIELD_ERROR>{move || error_for("spec.nodePools".into())}</p>
                <div class="flex gap-2">
                    <button type="button" class=SECONDARY
                        on:click=move |_| form.update(|f| { let n = f.pools.len(); f.pools.push(ctx.with_value(|c| default_pool(c, n))); })>
                        "Add pool"
                    </button>
                    <button type="button" class=SECONDARY disabled=move || pool_count.get() <= 1
                        on:click=move |_| form.update(|f| { if f.pools.len() > 1 { f.pools.pop(); } })>
                        "Remove last pool"
                    </button>
                </div>
            </section>

            {quota.map(|q| view! {
                <section aria-labelledby="quota-h" aria-live="polite" class="rounded-md bg-slate-100 p-3 text-sm dark:bg-slate-800" id="quota-summary">
                    <h2 id="quota-h" class="font-semibold">"Quota"</h2>
                    <p>{move || {
                        let n = needs.get();
                        format!(
                            "These pools need {} instances, {} vCPUs and {} GiB RAM. The project has {} instances, {} vCPUs and {} GiB RAM left.",
                            n.instances, n.cores, n.ram / 1024,
                            q.instances.remaining(), q.cores.remaining(), q.ram.remaining() / 1024
                        )
                    }}</p>
                    {move || {
                        let short = needs.get().shortfalls(&q);
                        (!short.is_empty()).then(|| view! {
                            <p class="mt-1 font-medium text-amber-800 dark:text-amber-300">
                                "It does not fit — " {short.join("; ")}
                                ". Some nodes would fail to start: pick a smaller flavor or fewer nodes, or ask for more quota."
                            </p>
                        })
                    }}
                </section>
            })}

            <details class="rounded-md border border-slate-200 p-3 dark:border-slate-700">
                <summary class="cursor-pointer text-sm font-medium">"Advanced: network, security, SSH, CIDRs"</summary>
                <div class="mt-3 grid gap-4 sm:grid-cols-2">
                    <div>
                        <label for="router" class="block text-sm">"Router"</label>
                        <select id="router" name="form[router_id]" class=INPUT
                            on:change=move |ev| form.update(|f| { f.router_id = event_target_value(&ev); f.network_id.clear(); f.lb_subnet_id.clear(); })>
                            <option value="">"Automatic (the only one)"</option>
                            {routers.into_iter().map(|r| {
                                let selected = r.id == init.router_id;
                                view! { <option value=r.id.clone() selected=selected>{r.name.clone()}</option> }
                            }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label for="network" class="block text-sm">"Network"</label>
                        <select id="network" name="form[network_id]" class=INPUT
                            on:change=move |ev| form.update(|f| { f.network_id = event_target_value(&ev); f.lb_subnet_id.clear(); })>
                            <option value="">"Automatic"</option>
                            {move || networks().into_iter().map(|n| view! { <option value=n.id.clone()>{n.name.clone()}</option> }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label for="subnet" class="block text-sm">"Load-balancer subnet"</label>
                        <select id="subnet" name="form[lb_subnet_id]" class=INPUT
                            on:change=move |ev| form.update(|f| f.lb_subnet_id = event_target_value(&ev))>
                            <option value="">"Automatic"</option>
                            {move || subnets().into_iter().map(|s| view! { <option value=s.id.clone()>{format!("{} ({})", s.name, s.cidr)}</option> }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label for="secgroup" class="block text-sm">"Security group"</label>
                        <select id="secgroup" name="form[security_group_name]" class=INPUT>
                            <option value="">"default"</option>
                            {groups.into_iter().filter(|g| g.name != "default").map(|g| view! { <option value=g.name.clone()>{g.name.clone()}</option> }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label for="keypair" class="block text-sm">"Key pair"</label>
                        <select id="keypair" name="form[key_pair]" class=INPUT
                            on:change=move |ev| form.update(|f| f.key_pair = event_target_value(&ev))>
                            <option value="">"None"</option>
                            {key_pairs.into_iter().map(|k| view! { <option value=k.public_key.clone()>{k.name.clone()}</option> }).collect_view()}
                        </select>
                    </div>
                    <div class="sm:col-span-2">
                        <label for="ssh" class="block text-sm">"Or paste an SSH public key"</label>
                        <textarea id="ssh" name="form[ssh_public_key]" rows="2" class=INPUT
                            on:input=move |ev| { form.update(|f| f.ssh_public_key = event_target_value(&ev)); touch("spec.sshPublicKey"); }>
                            {init.ssh_public_key.clone()}
                        </textarea>
                        <p class=FIELD_ERROR>{move || error_for("spec.sshPublicKey".into())}</p>
                    </div>
                    {text("service_cidr", "Service CIDR", "spec.serviceCIDR", kluster::defaults::SERVICE_CIDR, |f| f.service_cidr.clone(), |f, v| f.service_cidr = v)}
                    {text("cluster_cidr", "Pod CIDR", "spec.clusterCIDR", kluster::defaults::CLUSTER_CIDR, |f| f.cluster_cidr.clone(), |f, v| f.cluster_cidr = v)}
                </div>
            </details>

            <div class="flex items-center gap-3">
                <button type="submit" class=PRIMARY disabled=move || action.pending().get()>
                    {move || if action.pending().get() { "Creating…" } else { "Create kluster" }}
                </button>
                <a href="/" class=SECONDARY>"Cancel"</a>
            </div>
        </ActionForm>
    }
}
