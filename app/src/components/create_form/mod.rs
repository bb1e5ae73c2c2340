//! The create form: validated as you type with the API's own rules (`crates/kluster`), a
//! quota summary before submit, cascading router → network → subnet pickers; a plain form
//! that also works without JavaScript (the server then shows its errors). Its parts:
//! [`state`] (values, touched fields, verdicts), [`fields`] (name, version, CIDR fields),
//! [`pools`] (node pool rows, with [`pool_lists`]: labels and taints), [`quota`] (the summary), [`network`] and [`advanced`].

pub mod advanced;
pub mod fields;
pub mod network;
pub mod pool_lists;
pub mod pools;
pub mod quota;
pub mod state;

use leptos::prelude::*;

use crate::components::error_alert::ErrorAlert;
use crate::components::style::{NOTICE, PRIMARY, SECONDARY};
use crate::error::AppError;
use crate::model::{Copied, CreateContext, KlusterForm};
use crate::server_fns::CreateKluster;
use advanced::AdvancedSettings;
use fields::{TextField, VersionSelect};
use pools::NodePools;
use quota::QuotaSummary;
use state::{default_pool, FormState};

/// The form, filled from `flash` (a rejected plain form post), else from `copy` (another
/// kluster, with a sentence that says what was copied), else with defaults.
#[component]
pub fn CreateForm(
    ctx: CreateContext,
    flash: Option<(KlusterForm, AppError)>,
    copy: Option<Copied>,
) -> impl IntoView {
    let notice = copy.as_ref().map(|c| c.notice.clone());
    let copied = copy.and_then(|c| c.form);
    let (initial, server_error) = match (flash, copied) {
        (Some((f, e)), _) => (f, Some(e)),
        (None, Some(f)) => (f, None),
        (None, None) => (
            KlusterForm {
                version: ctx.versions.first().cloned().unwrap_or_default(),
                pools: vec![default_pool(&ctx.metadata, 0)],
                ..Default::default()
            },
            None,
        ),
    };
    let action = ServerAction::<CreateKluster>::new();
    let state = FormState::new(initial.clone(), server_error, ctx.metadata);
    Effect::new(move |_| {
        if let Some(Err(e)) = action.value().get() {
            state.server_error.set(Some(e));
        }
    });
    // In the capture phase, before `ActionForm` sends the form: a refused check keeps it.
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        // "Edit as YAML" takes the values as they are, finished or not.
        let to_yaml = ev
            .submitter()
            .and_then(|b| b.get_attribute("value"))
            .is_some_and(|v| v == "yaml");
        if !to_yaml && !state.ready_to_submit() {
            ev.prevent_default();
        }
    };
    let pending = action.pending();
    view! {
        <ActionForm action attr:class="mt-4 space-y-6" attr:novalidate=true on:submit:capture=on_submit>
            {notice.map(|n| view! { <p id="copy-notice" role="status" class=NOTICE>{n}</p> })}
            // The fields carry their own messages; this says what went wrong overall.
            <ErrorAlert>{move || state.server_error.get().map(|e| e.to_string())}</ErrorAlert>
            <section class="grid gap-4 sm:grid-cols-2">
                <TextField state id="name" label="Kluster name" field="name"
                    hint="lowercase letters, digits, dashes" get=|f| f.name.clone() set=|f, v| f.name = v/>
                <VersionSelect state versions=ctx.versions initial=initial.version.clone()/>
            </section>
            <NodePools state/>
            {ctx.quota.map(|quota| view! { <QuotaSummary state quota/> })}
            <AdvancedSettings state initial_router=initial.router_id.clone() initial_ssh_key=initial.ssh_public_key.clone()/>
            <div class="flex items-center gap-3">
                <button type="submit" class=PRIMARY disabled=move || pending.get()>
                    {move || if pending.get() { "Creating…" } else { "Create kluster" }}
                </button>
                <button type="submit" name="to" value="yaml" class=SECONDARY>"Edit as YAML"</button>
                <a href="/" class=SECONDARY>"Cancel"</a>
            </div>
        </ActionForm>
    }
}
