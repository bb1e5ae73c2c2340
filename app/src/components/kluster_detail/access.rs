//! The "Access and audit" card (admins): change the kluster's SSH key, security group and
//! audit destination, which Kubernikus takes on update; nodes created after the change get
//! the new key and group. Works as a plain form post.

use leptos::prelude::*;

use super::VersionField;
use crate::components::form_failure::action_error;
use crate::components::style::{FIELD_ERROR, H2, INPUT, LABEL, MUTED, SECONDARY, SECTION, SUMMARY};
use crate::form_model::AUDIT_CHOICES;
use crate::server_fns::EditKluster;

/// What the change reaches, in words.
pub const RULE: &str = "Nodes created after a change get the new SSH key and security group.";

/// The fields the card sets, as the API names them.
const FIELDS: [&str; 3] = [
    "spec.sshPublicKey",
    "spec.openstack.securityGroupName",
    "spec.audit",
];

/// The card, with the form behind "Change access or audit…" (`[data-access]`).
#[component]
pub fn AccessSection(
    /// The page's edit action.
    action: ServerAction<EditKluster>,
    /// Kluster name.
    kluster: String,
    /// The spec as the page shows it.
    spec: kluster::KlusterSpec,
    /// The project's security groups.
    groups: Vec<String>,
) -> impl IntoView {
    let failed = action_error(action);
    // The first refusal of one of this card's fields, with its path.
    let refused = move || {
        let e = failed.get()?;
        FIELDS
            .iter()
            .find_map(|f| e.for_field(f).map(|m| format!("{f}: {m}")))
    };
    let current = crate::form_model::group_choice(&spec.openstack.security_group_name).to_string();
    // The current group stays choosable even when the cloud no longer lists it.
    let mut choices: Vec<String> = groups.into_iter().filter(|g| g != "default").collect();
    if !current.is_empty() && !choices.contains(&current) {
        choices.insert(0, current.clone());
    }
    let audit = spec.audit.clone().unwrap_or_default();
    view! {
        <section aria-labelledby="access-h" class=SECTION data-access="">
            <h2 id="access-h" class=H2>"Access and audit"</h2>
            <p class=format!("mt-1 text-sm {MUTED}")>{RULE}</p>
            <details class="mt-3" open=move || refused().is_some()>
                <summary class=SUMMARY>"Change access or audit…"</summary>
                <ActionForm action attr:class="mt-2 grid gap-3 sm:grid-cols-2">
                    <input type="hidden" name="name" value=kluster/>
                    <input type="hidden" name="edit[op]" value="set_access"/>
                    <VersionField/>
                    <div class="sm:col-span-2">
                        <label for="access-ssh" class=LABEL>"SSH public key"</label>
                        <textarea id="access-ssh" name="edit[ssh_public_key]" rows="2" spellcheck="false"
                            class=format!("{INPUT} font-mono")>{spec.ssh_public_key.clone()}</textarea>
                    </div>
                    <label class=LABEL>"Security group"
                        <select name="edit[security_group]" class=INPUT>
                            <option value="" selected=current.is_empty()>"default"</option>
                            {choices.into_iter().map(|g| {
                                let selected = g == current;
                                view! { <option value=g.clone() selected=selected>{g.clone()}</option> }
                            }).collect_view()}
                        </select>
                    </label>
                    <label class=LABEL>"Audit log"
                        <select name="edit[audit]" class=INPUT>
                            {AUDIT_CHOICES.into_iter().map(|(value, label)| {
                                view! { <option value=value selected=value == audit>{label}</option> }
                            }).collect_view()}
                        </select>
                    </label>
                    <p class=format!("sm:col-span-2 {FIELD_ERROR}") aria-live="polite">{refused}</p>
                    <div class="sm:col-span-2"><button type="submit" class=SECONDARY>"Save access"</button></div>
                </ActionForm>
            </details>
        </section>
    }
}
