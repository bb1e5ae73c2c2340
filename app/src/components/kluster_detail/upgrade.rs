//! The "Kubernetes version" card (admins): upgrade to a version the update rules allow.

use leptos::prelude::*;

use super::VersionField;
use crate::components::style::{H2, INPUT, LABEL, SECONDARY, SECTION};
use crate::server_fns::EditKluster;

/// "Upgrade to" with the allowed versions, or that none is available; a failure shows
/// under the pools (the edit action's line).
#[component]
pub fn UpgradeSection(
    /// The page's edit action.
    action: ServerAction<EditKluster>,
    /// Kluster name.
    kluster: String,
    /// Versions the update rules allow from the current one.
    upgrades: Vec<String>,
) -> impl IntoView {
    let body = if upgrades.is_empty() {
        view! { <p class="mt-2 text-sm">"No upgrade is available for this version."</p> }.into_any()
    } else {
        view! {
            <ActionForm action attr:class="mt-2 flex flex-wrap items-end gap-2">
                <input type="hidden" name="name" value=kluster/>
                <input type="hidden" name="edit[op]" value="upgrade"/>
                <VersionField/>
                <label class=LABEL>"Upgrade to"
                    <select name="edit[version]" class=INPUT>
                        {upgrades.into_iter().map(|v| view! { <option value=v.clone()>{v.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <button type="submit" class=SECONDARY>"Upgrade"</button>
            </ActionForm>
        }
        .into_any()
    };
    view! {
        <section aria-labelledby="version-h" class=SECTION>
            <h2 id="version-h" class=H2>"Kubernetes version"</h2>
            {body}
        </section>
    }
}
