//! The create form's "Advanced" part: network pickers, security group, the load balancers'
//! floating network, audit, key pair or pasted SSH key, and the service and pod CIDRs
//! (empty: the defaults).

use leptos::prelude::*;

use super::fields::TextField;
use super::network::NetworkPickers;
use super::state::FormState;
use crate::components::style::{BOX, FIELD_ERROR, INPUT, LABEL, SUMMARY};
use crate::form_model::AUDIT_CHOICES;

/// The fields inside, as the API names them.
const ADVANCED_FIELDS: [&str; 9] = [
    "spec.openstack.routerID",
    "spec.openstack.securityGroupName",
    "spec.openstack.lbFloatingNetworkID",
    "spec.audit",
    "spec.openstack.networkID",
    "spec.openstack.lbSubnetID",
    "spec.sshPublicKey",
    "spec.serviceCIDR",
    "spec.clusterCIDR",
];

/// The collapsed `<details>` with the settings most klusters leave alone (open when the
/// server's answer names one of them).
#[component]
pub fn AdvancedSettings(
    /// The form.
    state: FormState,
    /// The router chosen when the form was rendered.
    initial_router: String,
    /// The SSH key pasted when the form was rendered.
    initial_ssh_key: String,
) -> impl IntoView {
    let (form, meta) = (state.form, state.meta);
    let key_pairs = meta.with_value(|m| m.key_pairs.clone());
    let groups = meta.with_value(|m| m.security_groups.clone());
    let initial_group = form.with_untracked(|f| f.security_group_name.clone());
    let floating = meta.with_value(|m| m.floating_networks());
    let (initial_floating, initial_audit) =
        form.with_untracked(|f| (f.lb_floating_network_id.clone(), f.audit.clone()));
    // Open when the server's answer names a field in here (e.g. a CIDR clash).
    let named_here = move || {
        state.server_error.with(|e| {
            e.as_ref()
                .is_some_and(|e| ADVANCED_FIELDS.iter().any(|f| e.for_field(f).is_some()))
        })
    };
    view! {
        <details class=BOX open=named_here>
            <summary class=SUMMARY>"Advanced: network, security, SSH, CIDRs"</summary>
            <div class="mt-3 grid gap-4 sm:grid-cols-2">
                <NetworkPickers state initial_router/>
                <div>
                    <label for="secgroup" class=LABEL>"Security group"</label>
                    <select id="secgroup" name="form[security_group_name]" class=INPUT>
                        <option value="">"default"</option>
                        {groups.into_iter().filter(|g| g.name != "default").map(|g| {
                            let selected = g.name == initial_group;
                            view! { <option value=g.name.clone() selected=selected>{g.name.clone()}</option> }
                        }).collect_view()}
                    </select>
                    <p class=FIELD_ERROR>{move || state.error_for("spec.openstack.securityGroupName")}</p>
                </div>
                <div>
                    <label for="floating" class=LABEL>"Floating IPs for load balancers from"</label>
                    <select id="floating" name="form[lb_floating_network_id]" class=INPUT>
                        <option value="">"the router's external network"</option>
                        {floating.into_iter().map(|n| {
                            let selected = n.id == initial_floating;
                            let label = if n.name.is_empty() || n.name == n.id { n.id.clone() } else { format!("{} ({})", n.name, n.id) };
                            view! { <option value=n.id.clone() selected=selected>{label}</option> }
                        }).collect_view()}
                    </select>
                    <p class=FIELD_ERROR>{move || state.error_for("spec.openstack.lbFloatingNetworkID")}</p>
                </div>
                <div>
                    <label for="audit" class=LABEL>"Audit log"</label>
                    <select id="audit" name="form[audit]" class=INPUT>
                        {AUDIT_CHOICES.into_iter().map(|(value, label)| {
                            view! { <option value=value selected=value == initial_audit>{label}</option> }
                        }).collect_view()}
                    </select>
                    <p class=FIELD_ERROR>{move || state.error_for("spec.audit")}</p>
                </div>
                <div>
                    <label for="keypair" class=LABEL>"Key pair"</label>
                    <select id="keypair" name="form[key_pair]" class=INPUT
                        on:change=move |ev| form.update(|f| f.key_pair = event_target_value(&ev))>
                        <option value="">"None"</option>
                        {key_pairs.into_iter().map(|k| view! { <option value=k.public_key.clone()>{k.name.clone()}</option> }).collect_view()}
                    </select>
                </div>
                <div class="sm:col-span-2">
                    <label for="ssh" class=LABEL>"Or paste an SSH public key"</label>
                    <textarea id="ssh" name="form[ssh_public_key]" rows="2" class=INPUT
                        on:input=move |ev| { form.update(|f| f.ssh_public_key = event_target_value(&ev)); state.touch("spec.sshPublicKey"); }>
                        {initial_ssh_key}
                    </textarea>
                    <p class=FIELD_ERROR>{move || state.error_for("spec.sshPublicKey")}</p>
                </div>
                <TextField state id="service_cidr" label="Service CIDR" field="spec.serviceCIDR"
                    hint=kluster::defaults::SERVICE_CIDR get=|f| f.service_cidr.clone() set=|f, v| f.service_cidr = v/>
                <TextField state id="cluster_cidr" label="Pod CIDR" field="spec.clusterCIDR"
                    hint=kluster::defaults::CLUSTER_CIDR get=|f| f.cluster_cidr.clone() set=|f, v| f.cluster_cidr = v/>
            </div>
        </details>
    }
}
