//! Adding and removing node pools (admins): the "Add a node pool…" form and the "Remove
//! pool" button of a pool scaled to 0. Both go through the page's edit action.

use leptos::prelude::*;

use super::VersionField;
use crate::components::style::{DANGER_LINK, INPUT, LABEL, SECONDARY, SUMMARY};
use crate::server_fns::EditKluster;

/// "Add a node pool…": name, flavor (with vCPUs and RAM), zone, size, image and root disk
/// (empty: the flavor's), labels and taints (one a line) and the update policy (ticked as
/// the API defaults it).
#[component]
pub fn AddPoolForm(
    /// The page's edit action.
    action: ServerAction<EditKluster>,
    /// Kluster name.
    kluster: String,
    /// Flavors to choose from.
    flavors: Vec<kluster::Flavor>,
    /// Availability zones to choose from.
    zones: Vec<String>,
    /// Images to choose from (empty: the default only).
    images: Vec<String>,
) -> impl IntoView {
    let images = match images.is_empty() {
        true => vec![kluster::defaults::IMAGE.to_string()],
        false => images,
    };
    view! {
        <details class="mt-3">
            <summary class=SUMMARY>"Add a node pool…"</summary>
            <ActionForm action attr:class="mt-2 grid grid-cols-2 gap-3 sm:grid-cols-5">
                <input type="hidden" name="name" value=kluster/>
                <input type="hidden" name="edit[op]" value="add_pool"/>
                <VersionField/>
                <label class=LABEL>"Pool name"<input name="edit[pool]" required class=INPUT/></label>
                <label class=format!("col-span-2 {LABEL}")>"Flavor"
                    <select name="edit[flavor]" class=INPUT>
                        {flavors.into_iter().map(|f| {
                            let label = format!("{} — {} vCPU, {} GiB RAM", f.name, f.vcpus, f.ram / 1024);
                            view! { <option value=f.name>{label}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label class=LABEL>"Zone"
                    <select name="edit[zone]" class=INPUT>
                        {zones.into_iter().map(|z| view! { <option value=z.clone()>{z.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label class=LABEL>"Nodes"<input name="edit[size]" type="number" min="0" max="127" value="1" class=INPUT/></label>
                <label class=format!("col-span-2 {LABEL}")>"Image"
                    <select name="edit[image]" class=INPUT>
                        {images.into_iter().map(|i| {
                            let selected = i == kluster::defaults::IMAGE;
                            view! { <option value=i.clone() selected=selected>{i.clone()}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label class=LABEL>"Root disk (GB)"
                    <input name="edit[root_disk]" type="number" min="64" max="1024" placeholder="flavor's" class=INPUT/>
                </label>
                <label class=format!("col-span-2 {LABEL}")>"Labels, one key=value a line"
                    <textarea name="edit[options][labels]" rows="2" spellcheck="false" class=format!("{INPUT} font-mono")></textarea>
                </label>
                <label class=format!("col-span-2 {LABEL}")>"Taints, one key=value:Effect a line"
                    <textarea name="edit[options][taints]" rows="2" spellcheck="false" class=format!("{INPUT} font-mono")></textarea>
                </label>
                <div class="col-span-2 flex flex-col justify-center gap-1 text-sm sm:col-span-1">
                    <label><input type="checkbox" name="edit[options][allow_reboot]" checked=kluster::defaults::ALLOW_REBOOT/>" Allow reboot"</label>
                    <label><input type="checkbox" name="edit[options][allow_replace]" checked=kluster::defaults::ALLOW_REPLACE/>" Allow replace"</label>
                </div>
                <div class="col-span-2 sm:col-span-5"><button type="submit" class=SECONDARY>"Add pool"</button></div>
            </ActionForm>
        </details>
    }
}

/// "Remove pool <pool>" (offered once the pool is at 0 nodes).
#[component]
pub fn RemovePoolForm(
    /// The page's edit action.
    action: ServerAction<EditKluster>,
    /// Kluster name.
    kluster: String,
    /// Pool name.
    pool: String,
) -> impl IntoView {
    let label = format!("Remove pool {pool}");
    view! {
        <ActionForm action attr:class="mt-1">
            <input type="hidden" name="name" value=kluster/>
            <input type="hidden" name="edit[op]" value="remove_pool"/>
            <VersionField/>
            <input type="hidden" name="edit[pool]" value=pool/>
            <button type="submit" class=DANGER_LINK>{label}</button>
        </ActionForm>
    }
}
