//! The "Pool settings" card of a kluster: each pool's labels, taints and update policy
//! (allow reboot, allow replace), with the API's rule in words, and its image and root
//! disk (fixed at create, shown only); for admins a form per pool that changes the
//! former, checked as you type with the API's own rules (`crates/kluster`), and that works
//! as a plain form post (a refused one comes back with what was typed).

use leptos::prelude::*;

use super::pool_drafts::{PoolDraft, PoolDrafts};
use super::VersionField;
use crate::components::form_failure::action_error;
use crate::components::style::{
    BOX, FIELD_ERROR, H2, INPUT, LABEL, META, MUTED, SECONDARY, SECTION, SUMMARY,
};
use crate::error::AppError;
use crate::kluster_edit::{PoolFlash, PoolOptions};
use crate::server_fns::EditKluster;

/// The API's rule for labels, taints and the update policy, in words.
pub const RULE: &str = "A change reaches nodes created after it.";

/// The card: one box per pool (`[data-pool-options=<name>]`).
#[component]
pub fn PoolSettings(
    /// Kluster name.
    kluster: String,
    /// The spec's pools.
    pools: Vec<kluster::NodePool>,
    /// Whether the user may change them.
    admin: bool,
    /// The page's edit action.
    edit: ServerAction<EditKluster>,
    /// The page's unsaved forms.
    drafts: PoolDrafts,
    /// What a refused plain post left: what was typed and why.
    flash: Option<PoolFlash>,
) -> impl IntoView {
    let boxes = pools
        .into_iter()
        .enumerate()
        .map(|(i, pool)| {
            // A refused post of this pool's form: what was typed, and why.
            let typed = flash
                .as_ref()
                .filter(|f| f.pool == pool.name)
                .map(|f| (f.options.clone(), f.error.clone()));
            let kluster = kluster.clone();
            view! { <PoolBox kluster pool i admin edit drafts typed/> }
        })
        .collect_view();
    view! {
        <section aria-labelledby="pool-settings-h" class=SECTION>
            <h2 id="pool-settings-h" class=H2>"Pool settings"</h2>
            <p class=format!("mt-1 text-sm {MUTED}")>
                "Labels, taints and the update policy of each pool. " {RULE}
                " Image and root disk are fixed when the pool is created."
            </p>
            <div class="mt-3 space-y-3">{boxes}</div>
        </section>
    }
}

/// One pool's settings as they are, and (admins) the form that changes them.
#[component]
fn PoolBox(
    kluster: String,
    pool: kluster::NodePool,
    i: usize,
    admin: bool,
    edit: ServerAction<EditKluster>,
    drafts: PoolDrafts,
    typed: Option<(PoolOptions, AppError)>,
) -> impl IntoView {
    let now = PoolOptions::of(&pool);
    // Plain text, one `, ` between items: the page's WASM stays small.
    let list = |items: &[String]| match items.is_empty() {
        true => "none".to_string(),
        false => items.join(", "),
    };
    let yes_no = |on: bool| if on { "allowed" } else { "not allowed" };
    // Set when the pool was created; no form changes them.
    let image = match pool.image.is_empty() {
        true => kluster::defaults::IMAGE.to_string(),
        false => pool.image.clone(),
    };
    let disk = match pool.custom_root_disk_size {
        Some(gb) => format!("{gb} GB"),
        None => "the flavor's own disk".to_string(),
    };
    let form = admin.then(|| {
        let draft = drafts.of(&pool.name, typed.as_ref().map(|(o, _)| o));
        // The checkboxes as posted when a plain post was refused, else as saved.
        let ticks = |o: &PoolOptions| (o.allow_reboot.is_some(), o.allow_replace.is_some());
        let ticked = typed.as_ref().map_or(ticks(&now), |(o, _)| ticks(o));
        let refused = typed.map(|(_, e)| e);
        view! { <PoolForm kluster name=pool.name.clone() i now=now.clone() ticked edit drafts draft refused/> }
    });
    view! {
        <div class=BOX data-pool-options=pool.name.clone()>
            <h3 class="text-sm font-semibold">{format!("Pool {}", pool.name)}</h3>
            <dl class="mt-2 grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
                <div><dt class=MUTED>"Labels"</dt><dd data-field="labels" class="break-all font-mono">{list(&pool.labels)}</dd></div>
                <div><dt class=MUTED>"Taints"</dt><dd data-field="taints" class="break-all font-mono">{list(&pool.taints)}</dd></div>
                <div><dt class=MUTED>"Reboot for updates"</dt><dd data-field="allow-reboot">{yes_no(now.allow_reboot.is_some())}</dd></div>
                <div><dt class=MUTED>"Replace for updates"</dt><dd data-field="allow-replace">{yes_no(now.allow_replace.is_some())}</dd></div>
                <div><dt class=MUTED>"Image (fixed)"</dt><dd data-field="image" class="break-all font-mono">{image}</dd></div>
                <div><dt class=MUTED>"Root disk (fixed)"</dt><dd data-field="root-disk">{disk}</dd></div>
            </dl>
            {form}
        </div>
    }
}

/// "Change settings of pool <name>…": labels and taints one a line, the two checkboxes,
/// the first refused item named by its JSON path under its box. What is typed lives in the
/// page's draft of the pool, so a redraw keeps it (`pool_drafts`).
#[component]
fn PoolForm(
    kluster: String,
    name: String,
    i: usize,
    now: PoolOptions,
    ticked: (bool, bool),
    edit: ServerAction<EditKluster>,
    drafts: PoolDrafts,
    draft: PoolDraft,
    refused: Option<AppError>,
) -> impl IntoView {
    let PoolDraft {
        labels,
        taints,
        touched,
        open,
    } = draft;
    let failed = action_error(edit);
    let (saved_labels, saved_taints) = (now.labels.clone(), now.taints.clone());
    let typed_now = move || PoolOptions {
        labels: labels.get().unwrap_or_else(|| saved_labels.clone()),
        taints: taints.get().unwrap_or_else(|| saved_taints.clone()),
        ..Default::default()
    };
    let shown = untrack(&typed_now);
    // The API's rules on what is typed now; before anything is typed, the server's answer
    // (this page's last edit, else the refused plain post's).
    // (Nothing made in this component's scope is read by its handlers: a redraw drops that
    // scope while the form may still be in use.)
    let checked = typed_now.clone();
    let message = move |list: &'static str, refused: Option<AppError>| {
        let prefix = format!("spec.nodePools[{i}].{list}[");
        let typed_now = checked.clone();
        move || {
            let error = match touched.get() {
                true => typed_now().check(i).err(),
                false => failed.get().or_else(|| refused.clone()),
            };
            match error {
                Some(AppError::Invalid(errs)) => errs
                    .iter()
                    .find(|f| f.field.starts_with(&prefix))
                    .map(|f| format!("{}: {}", f.field, f.message)),
                _ => None,
            }
        }
    };
    // Runs in the capture phase, before `ActionForm` sends the form: a refused check keeps
    // it here.
    let pool = name.clone();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        touched.set(true);
        if untrack(&typed_now).check(i).is_err() {
            ev.prevent_default();
        } else {
            drafts.sending(&pool);
        }
    };
    let input = move |s: RwSignal<Option<String>>| {
        move |ev: leptos::ev::Event| {
            s.set(Some(event_target_value(&ev)));
            touched.set(true);
        }
    };
    // Opened or closed by the user: a redraw keeps it so.
    let on_toggle = move |_ev: leptos::ev::Event| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            if let Some(el) = _ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                open.set(el.has_attribute("open"));
            }
        }
    };
    let id = |what: &str| format!("pool-{i}-opt-{what}");
    let (labels_id, taints_id) = (id("labels"), id("taints"));
    let (labels_err, taints_err) = (id("labels-error"), id("taints-error"));
    view! {
        <details class="mt-3" open=move || open.get() on:toggle=on_toggle>
            <summary class=SUMMARY>{format!("Change settings of pool {name}…")}</summary>
            <ActionForm action=edit attr:class="mt-2 grid gap-3 sm:grid-cols-2" on:submit:capture=on_submit>
                <input type="hidden" name="name" value=kluster/>
                <input type="hidden" name="edit[op]" value="set_pool_options"/>
                <input type="hidden" name="edit[pool]" value=name/>
                <VersionField/>
                <div>
                    <label for=labels_id.clone() class=LABEL>"Labels"</label>
                    <textarea id=labels_id name="edit[options][labels]" rows="3" spellcheck="false" class=format!("{INPUT} font-mono")
                        aria-describedby=labels_err.clone() on:input=input(labels)>{shown.labels}</textarea>
                    <p class=META>"One key=value a line."</p>
                    <p id=labels_err class=FIELD_ERROR aria-live="polite">{message("labels", refused.clone())}</p>
                </div>
                <div>
                    <label for=taints_id.clone() class=LABEL>"Taints"</label>
                    <textarea id=taints_id name="edit[options][taints]" rows="3" spellcheck="false" class=format!("{INPUT} font-mono")
                        aria-describedby=taints_err.clone() on:input=input(taints)>{shown.taints}</textarea>
                    <p class=META>"One key=value:Effect a line (NoSchedule, PreferNoSchedule, NoExecute)."</p>
                    <p id=taints_err class=FIELD_ERROR aria-live="polite">{message("taints", refused)}</p>
                </div>
                <div class="flex flex-wrap gap-4 text-sm sm:col-span-2">
                    <label><input type="checkbox" name="edit[options][allow_reboot]" checked=ticked.0/>" Allow reboot"</label>
                    <label><input type="checkbox" name="edit[options][allow_replace]" checked=ticked.1/>" Allow replace"</label>
                </div>
                <p class=format!("text-sm sm:col-span-2 {MUTED}")>{RULE}</p>
                <div class="sm:col-span-2"><button type="submit" class=SECONDARY>"Save settings"</button></div>
            </ActionForm>
        </details>
    }
}
