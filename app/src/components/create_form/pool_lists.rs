//! A create-form pool's labels and taints: two text boxes, one item a line, read by the
//! shared `kluster::validate::lines` and checked with the API's rules as you type.

use leptos::prelude::*;

use super::state::FormState;
use crate::components::style::{FIELD_ERROR, INPUT, LABEL, META};
use crate::model::PoolForm;

/// "Labels" and "Taints" of pool row `i` (`form[pools][i][labels|taints]`); the first
/// refused item shows below its box, named by its JSON path.
#[component]
pub fn PoolLists(state: FormState, i: usize) -> impl IntoView {
    view! {
        <ListBox state i list="labels" label="Labels" hint="One key=value a line, e.g. team=payments."
            get=|p| p.labels.clone() set=|p, v| p.labels = v/>
        <ListBox state i list="taints" label="Taints"
            hint="One key=value:Effect a line; Effect is NoSchedule, PreferNoSchedule or NoExecute."
            get=|p| p.taints.clone() set=|p, v| p.taints = v/>
    }
}

/// One list's text box (`#pool-<i>-<list>`), its hint and its error line.
#[component]
fn ListBox(
    state: FormState,
    i: usize,
    list: &'static str,
    label: &'static str,
    hint: &'static str,
    get: fn(&PoolForm) -> String,
    set: fn(&mut PoolForm, String),
) -> impl IntoView {
    let form = state.form;
    let id = format!("pool-{i}-{list}");
    let (hint_id, error_id) = (format!("{id}-hint"), format!("{id}-error"));
    let field = format!("spec.nodePools[{i}].{list}");
    let initial = form.with_untracked(|f| f.pools.get(i).map(get).unwrap_or_default());
    let touched = field.clone();
    let on_input = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        form.update(|f| {
            if let Some(p) = f.pools.get_mut(i) {
                set(p, v)
            }
        });
        state.touch(&touched);
    };
    view! {
        <div class="col-span-2 sm:col-span-3">
            <label for=id.clone() class=LABEL>{label}</label>
            <textarea id=id name=format!("form[pools][{i}][{list}]") rows="2" class=format!("{INPUT} font-mono")
                aria-describedby=format!("{hint_id} {error_id}") spellcheck="false" on:input=on_input>
                {initial}
            </textarea>
            <p id=hint_id class=META>{hint}</p>
            <p id=error_id class=FIELD_ERROR aria-live="polite">{move || state.error_in_list(&field)}</p>
        </div>
    }
}
