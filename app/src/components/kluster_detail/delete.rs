//! The "Delete" card (admins): deletion behind typing the kluster's name.

use leptos::prelude::*;

use crate::components::form_failure::{action_error, ActionError};
use crate::components::style::SECONDARY;
use crate::components::style::{DANGER, INPUT, LABEL};
use crate::server_fns::{DeleteKluster, SetTerminationProtection};

/// "Delete this kluster…": what goes with it, the name to type (`#confirm`), and the
/// server's answer (a wrong name, termination protection) under the field.
#[component]
pub fn DeleteSection(
    /// The page's delete action.
    action: ServerAction<DeleteKluster>,
    /// Kluster name.
    kluster: String,
    /// The page's termination-protection action.
    protect: ServerAction<SetTerminationProtection>,
    /// Whether termination protection is on.
    protected: bool,
) -> impl IntoView {
    let (state, button, next) = if protected {
        (
            "Termination protection is on: this kluster cannot be deleted until it is turned off.",
            "Turn off termination protection",
            "false",
        )
    } else {
        (
            "Termination protection is off. Turn it on to refuse deletion until it is turned off again.",
            "Turn on termination protection",
            "true",
        )
    };
    let protect_name = kluster.clone();
    view! {
        <section aria-labelledby="delete-h" class="mt-6 rounded-lg border border-red-300 p-4 dark:border-red-800">
            <h2 id="delete-h" class="text-lg font-semibold text-red-800 dark:text-red-300">"Delete"</h2>
            <ActionForm action=protect attr:class="mt-2 flex flex-wrap items-center gap-2">
                <input type="hidden" name="name" value=protect_name/>
                <input type="hidden" name="enabled" value=next/>
                <p id="protection-state" class="text-sm">{state}</p>
                <button type="submit" class=SECONDARY>{button}</button>
            </ActionForm>
            <details class="mt-2">
                <summary class="cursor-pointer text-sm">"Delete this kluster…"</summary>
                <ActionForm action attr:class="mt-3 space-y-2">
                    <input type="hidden" name="name" value=kluster.clone()/>
                    <label for="confirm" class=LABEL>
                        "This deletes the kluster, its nodes and its volumes and load balancers. Type "
                        <strong class="font-mono">{kluster}</strong>" to confirm."
                    </label>
                    <input id="confirm" name="confirm" autocomplete="off" required class=INPUT/>
                    <ActionError error=action_error(action) field="confirm"/>
                    <button type="submit" class=DANGER>"Delete kluster"</button>
                </ActionForm>
            </details>
        </section>
    }
}
