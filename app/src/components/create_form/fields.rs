//! The create form's top fields: a text field bound to the form (name, CIDRs) and the
//! Kubernetes version picker.

use leptos::prelude::*;

use super::state::FormState;
use crate::components::style::{FIELD_ERROR, INPUT, LABEL_STRONG};
use crate::model::KlusterForm;

/// A text input bound to one field of the form, with its rule or server message below
/// (`<id>-error`).
#[component]
pub fn TextField(
    /// The form.
    state: FormState,
    /// Element id (the input posts as `form[<id>]`).
    id: &'static str,
    /// Label text.
    label: &'static str,
    /// The field's JSON path in the API's messages.
    field: &'static str,
    /// Placeholder.
    hint: &'static str,
    /// Reads the field.
    get: fn(&KlusterForm) -> String,
    /// Writes the field.
    set: fn(&mut KlusterForm, String),
) -> impl IntoView {
    let form = state.form;
    let name = format!("form[{id}]");
    let initial = form.with_untracked(get);
    let describedby = format!("{id}-error");
    view! {
        <div>
            <label for=id class=LABEL_STRONG>{label}</label>
            <input id=id name=name value=initial placeholder=hint class=INPUT
                aria-describedby=describedby.clone()
                prop:value=move || form.with(get)
                on:input=move |ev| { form.update(|f| set(f, event_target_value(&ev))); state.touch(field); }/>
            <p id=describedby class=FIELD_ERROR aria-live="polite">{move || state.error_for(field)}</p>
        </div>
    }
}

/// The Kubernetes version picker; the first version is the default.
#[component]
pub fn VersionSelect(
    /// The form.
    state: FormState,
    /// Versions new klusters may use, the default first.
    versions: Vec<String>,
    /// The version chosen when the form was rendered.
    initial: String,
) -> impl IntoView {
    let form = state.form;
    view! {
        <div>
            <label for="version" class=LABEL_STRONG>"Kubernetes version"</label>
            <select id="version" name="form[version]" class=INPUT
                prop:value=move || form.with(|f| f.version.clone())
                on:change=move |ev| form.update(|f| f.version = event_target_value(&ev))>
                {versions.into_iter().enumerate().map(|(i, v)| {
                    let selected = v == initial;
                    let label = if i == 0 { format!("{v} (default)") } else { v.clone() };
                    view! { <option value=v selected=selected>{label}</option> }
                }).collect_view()}
            </select>
            <p class=FIELD_ERROR>{move || state.error_for("spec.version")}</p>
        </div>
    }
}
