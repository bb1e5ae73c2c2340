//! The create form's cascading network pickers: router → network → subnet. Choosing a
//! router narrows the networks, choosing a network narrows the subnets; "Automatic" leaves
//! the choice to the controller (it takes the only one).

use leptos::prelude::*;

use super::state::FormState;
use crate::components::style::{INPUT, LABEL};

/// Router, network and load-balancer subnet selects (`form[router_id]`,
/// `form[network_id]`, `form[lb_subnet_id]`), each showing the form's choice.
#[component]
pub fn NetworkPickers(
    /// The form.
    state: FormState,
    /// The router chosen when the form was rendered (a rejected post's).
    initial_router: String,
) -> impl IntoView {
    let (form, meta) = (state.form, state.meta);
    let routers = meta.with_value(|m| m.routers.clone());
    let networks = move || {
        let chosen = form.with(|f| f.router_id.clone());
        meta.with_value(|m| {
            m.routers
                .iter()
                .filter(|r| chosen.is_empty() || r.id == chosen)
                .flat_map(|r| r.networks.clone())
                .collect::<Vec<_>>()
        })
    };
    let subnets = move || {
        let chosen = form.with(|f| f.network_id.clone());
        networks()
            .into_iter()
            .filter(|n| chosen.is_empty() || n.id == chosen)
            .flat_map(|n| n.subnets)
            .collect::<Vec<_>>()
    };
    view! {
        <div>
            <label for="router" class=LABEL>"Router"</label>
            <select id="router" name="form[router_id]" class=INPUT
                on:change=move |ev| form.update(|f| { f.router_id = event_target_value(&ev); f.network_id.clear(); f.lb_subnet_id.clear(); })>
                <option value="">"Automatic (the only one)"</option>
                {routers.into_iter().map(|r| {
                    let selected = r.id == initial_router;
                    view! { <option value=r.id.clone() selected=selected>{r.name.clone()}</option> }
                }).collect_view()}
            </select>
        </div>
        <div>
            <label for="network" class=LABEL>"Network"</label>
            <select id="network" name="form[network_id]" class=INPUT
                on:change=move |ev| form.update(|f| { f.network_id = event_target_value(&ev); f.lb_subnet_id.clear(); })>
                <option value="">"Automatic"</option>
                {move || networks().into_iter().map(|n| {
                    let selected = form.with_untracked(|f| f.network_id == n.id);
                    view! { <option value=n.id.clone() selected=selected>{n.name.clone()}</option> }
                }).collect_view()}
            </select>
        </div>
        <div>
            <label for="subnet" class=LABEL>"Load-balancer subnet"</label>
            <select id="subnet" name="form[lb_subnet_id]" class=INPUT
                on:change=move |ev| form.update(|f| f.lb_subnet_id = event_target_value(&ev))>
                <option value="">"Automatic"</option>
                {move || subnets().into_iter().map(|s| {
                    let selected = form.with_untracked(|f| f.lb_subnet_id == s.id);
                    view! { <option value=s.id.clone() selected=selected>{format!("{} ({})", s.name, s.cidr)}</option> }
                }).collect_view()}
            </select>
        </div>
    }
}
