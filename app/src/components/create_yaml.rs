//! The YAML editor at create (`/klusters/new?yaml=1`): the kluster the form held, as YAML;
//! "Create kluster" makes it from the text, "Back to the form" fills the form from it. A
//! refusal keeps the text and says why, field by field. Works without JavaScript.

use leptos::prelude::*;

use crate::components::error_alert::ErrorAlert;
use crate::components::form_failure::{action_error, failure_list};
use crate::components::style::{INPUT, MUTED, PRIMARY, SECONDARY};
use crate::server_fns::{get_create_yaml, CreateKlusterYaml};

/// The editor, with the text kept in the session.
#[component]
pub fn CreateYamlEditor() -> impl IntoView {
    let action = ServerAction::<CreateKlusterYaml>::new();
    let failed = action_error(action);
    let data = crate::resource::load(move || action.version().get(), |_| get_create_yaml());
    view! {
        <Transition fallback=|| view! { <p class="mt-4">"Loading the YAML…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(y) => {
                        let kept = y.error.clone();
                        let error = move || failed.get().or_else(|| kept.clone()).map(|e| failure_list(&e));
                        view! {
                            <ActionForm action attr:class="mt-4 space-y-3">
                                <p class=format!("text-sm {MUTED}")>
                                    "The new kluster's name and spec, as the API takes them. Nothing is checked until you create it; going back to the form keeps what the form can show."
                                </p>
                                <label for="create-yaml" class="sr-only">"Kluster YAML"</label>
                                <textarea id="create-yaml" name="yaml" rows="22" spellcheck="false" aria-describedby="create-yaml-error"
                                    class=format!("{INPUT} font-mono text-xs")>{y.text}</textarea>
                                <div id="create-yaml-error" role="alert" class="text-sm text-red-700 dark:text-red-400">{error}</div>
                                <div class="flex items-center gap-3">
                                    <button type="submit" name="step" value="create" class=PRIMARY>"Create kluster"</button>
                                    <button type="submit" name="step" value="form" class=SECONDARY>"Back to the form"</button>
                                </div>
                            </ActionForm>
                        }.into_any()
                    }
                    Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                }
            })}
        </Transition>
    }
}
