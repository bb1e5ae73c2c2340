//! The create form's node pools: one row per pool (name, flavor with vCPUs and RAM, zone,
//! size, allow reboot/replace, image and root disk, labels and taints:
//! [`super::pool_lists`]) and the buttons that add and remove rows.

use leptos::prelude::*;

use super::pool_lists::PoolLists;
use super::state::{default_pool, FormState};
use crate::components::style::{BOX, FIELD_ERROR, H2, INPUT, LABEL, META, SECONDARY};
use crate::model::PoolForm;

/// The "Node pools" section: the rows, the pools' own error, "Add pool" and "Remove last
/// pool" (one pool at least).
#[component]
pub fn NodePools(state: FormState) -> impl IntoView {
    let form = state.form;
    let pool_count = Memo::new(move |_| form.with(|f| f.pools.len()));
    let add = move |_| {
        form.update(|f| {
            let n = f.pools.len();
            f.pools.push(state.meta.with_value(|m| default_pool(m, n)));
        })
    };
    let remove = move |_| {
        form.update(|f| {
            if f.pools.len() > 1 {
                f.pools.pop();
            }
        })
    };
    view! {
        <section aria-labelledby="pools-h" class="space-y-3">
            <h2 id="pools-h" class=H2>"Node pools"</h2>
            {move || (0..pool_count.get()).map(|i| view! { <PoolRow state i/> }).collect_view()}
            <p class=FIELD_ERROR>{move || state.error_for("spec.nodePools")}</p>
            <div class="flex gap-2">
                <button type="button" class=SECONDARY on:click=add>"Add pool"</button>
                <button type="button" class=SECONDARY disabled=move || pool_count.get() <= 1 on:click=remove>
                    "Remove last pool"
                </button>
            </div>
        </section>
    }
}

/// Row `i` of the pools (`form[pools][i][…]`, errors under `spec.nodePools[i].…`).
#[component]
pub fn PoolRow(state: FormState, i: usize) -> impl IntoView {
    let form = state.form;
    let initial = form.with_untracked(|f| f.pools.get(i).cloned().unwrap_or_default());
    let field = move |suffix: &str| format!("spec.nodePools[{i}].{suffix}");
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
            state.touch(&touched_field);
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
    let error = move |suffix: &'static str| {
        let f = field(suffix);
        move || state.error_for(&f)
    };
    let flavors = state.meta.with_value(|m| m.flavors.clone());
    let zones = state.meta.with_value(|m| m.availability_zones.clone());
    let (name_id, size_id) = (format!("pool-{i}-name"), format!("pool-{i}-size"));
    let (flavor_id, zone_id) = (format!("pool-{i}-flavor"), format!("pool-{i}-zone"));
    view! {
        <fieldset class=format!("grid grid-cols-2 gap-3 sm:grid-cols-6 {BOX}") data-pool-row=i>
            <legend class="px-1 text-sm font-medium">{format!("Node pool {}", i + 1)}</legend>
            <div class="col-span-2 sm:col-span-1">
                <label for=name_id.clone() class=LABEL>"Pool name"</label>
                <input id=name_id name=format!("form[pools][{i}][name]") value=initial.name.clone() class=INPUT
                    prop:value=get(|p| p.name.clone()) on:input=set(|p, v| p.name = v, field("name"))/>
                <p class=FIELD_ERROR aria-live="polite">{error("name")}</p>
            </div>
            <div class="col-span-2">
                <label for=flavor_id.clone() class=LABEL>"Flavor"</label>
                <select id=flavor_id name=format!("form[pools][{i}][flavor]") class=INPUT
                    prop:value=get(|p| p.flavor.clone()) on:change=set(|p, v| p.flavor = v, field("flavor"))>
                    {flavors.into_iter().map(|fl| {
                        let selected = fl.name == initial.flavor;
                        let label = format!("{} — {} vCPU, {} GiB RAM", fl.name, fl.vcpus, fl.ram / 1024);
                        view! { <option value=fl.name selected=selected>{label}</option> }
                    }).collect_view()}
                </select>
                <p class=FIELD_ERROR>{error("flavor")}</p>
            </div>
            <div>
                <label for=zone_id.clone() class=LABEL>"Zone"</label>
                <select id=zone_id name=format!("form[pools][{i}][availability_zone]") class=INPUT
                    prop:value=get(|p| p.availability_zone.clone())
                    on:change=set(|p, v| p.availability_zone = v, field("availabilityZone"))>
                    {zones.into_iter().map(|z| {
                        let selected = z.name == initial.availability_zone;
                        view! { <option value=z.name.clone() selected=selected>{z.name.clone()}</option> }
                    }).collect_view()}
                </select>
                <p class=FIELD_ERROR>{error("availabilityZone")}</p>
            </div>
            <div>
                <label for=size_id.clone() class=LABEL>"Nodes"</label>
                <input id=size_id name=format!("form[pools][{i}][size]") type="number" min="0" max="127" value=initial.size.clone() class=INPUT
                    prop:value=get(|p| p.size.clone()) on:input=set(|p, v| p.size = v, field("size"))/>
                <p class=FIELD_ERROR aria-live="polite">{error("size")}</p>
            </div>
            <div class="col-span-2 flex flex-col justify-center gap-1 text-sm sm:col-span-1">
                <label><input type="checkbox" name=format!("form[pools][{i}][allow_reboot]") checked=initial.allow_reboot.is_some()
                    on:change=check(|p, v| p.allow_reboot = v)/>" Allow reboot"</label>
                <label><input type="checkbox" name=format!("form[pools][{i}][allow_replace]") checked=initial.allow_replace.is_some()
                    on:change=check(|p, v| p.allow_replace = v)/>" Allow replace"</label>
            </div>
            <ImageAndDisk state i/>
            <PoolLists state i/>
        </fieldset>
    }
}

/// Row `i`'s image (the cloud's images; the API's default alone when the cloud lists none)
/// and root disk size (empty: the flavor's own disk; `#pool-<i>-disk-error`). Both are
/// fixed once the pool exists.
#[component]
fn ImageAndDisk(state: FormState, i: usize) -> impl IntoView {
    let form = state.form;
    let initial = form.with_untracked(|f| f.pools.get(i).cloned().unwrap_or_default());
    let images = state.meta.with_value(|m| m.images.clone());
    let (image_id, disk_id) = (format!("pool-{i}-image"), format!("pool-{i}-disk"));
    let (hint_id, error_id) = (format!("{disk_id}-hint"), format!("{disk_id}-error"));
    let disk_field = format!("spec.nodePools[{i}].customRootDiskSize");
    let image_field = format!("spec.nodePools[{i}].image");
    let touched = disk_field.clone();
    let options = match images.is_empty() {
        true => {
            view! { <option value="">{format!("{} (default)", kluster::defaults::IMAGE)}</option> }
                .into_any()
        }
        false => images
            .into_iter()
            .map(|im| {
                let selected = im == initial.image;
                let label = match im == kluster::defaults::IMAGE {
                    true => format!("{im} (default)"),
                    false => im.clone(),
                };
                view! { <option value=im selected=selected>{label}</option> }
            })
            .collect_view()
            .into_any(),
    };
    let update = move |f: fn(&mut PoolForm, String), v: String| {
        form.update(|form| {
            if let Some(p) = form.pools.get_mut(i) {
                f(p, v)
            }
        })
    };
    view! {
        <div class="col-span-2 sm:col-span-3">
            <label for=image_id.clone() class=LABEL>"Image"</label>
            <select id=image_id name=format!("form[pools][{i}][image]") class=INPUT
                on:change=move |ev| update(|p, v| p.image = v, event_target_value(&ev))>
                {options}
            </select>
            <p class=FIELD_ERROR>{move || state.error_for(&image_field)}</p>
        </div>
        <div class="col-span-2 sm:col-span-3">
            <label for=disk_id.clone() class=LABEL>"Root disk (GB)"</label>
            <input id=disk_id name=format!("form[pools][{i}][root_disk]") type="number" min="64" max="1024"
                value=initial.root_disk class=INPUT aria-describedby=format!("{hint_id} {error_id}")
                on:input=move |ev| { update(|p, v| p.root_disk = v, event_target_value(&ev)); state.touch(&touched); }/>
            <p id=hint_id class=META>"64 to 1024 GB; empty: the flavor's own disk."</p>
            <p id=error_id class=FIELD_ERROR aria-live="polite">{move || state.error_for(&disk_field)}</p>
        </div>
    }
}
