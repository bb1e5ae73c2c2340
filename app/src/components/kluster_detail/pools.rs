//! The "Node pools" card of a kluster: one row per pool with its flavor, zone and node
//! counts (running, healthy, schedulable); for admins the size is a scale form, an empty
//! pool can be removed, and a pool can be added.

use leptos::prelude::*;

use super::pool_edit::{AddPoolForm, RemovePoolForm};
use super::scale::ScaleForm;
use crate::components::form_failure::{action_error, ActionError};
use crate::components::scroll_region::ScrollRegion;
use crate::components::style::{H2, MUTED, NOTICE, ROW, SECTION, TABLE, THEAD};
use crate::server_fns::{EditKluster, ScalePool};

/// A pool as the spec wants it, with what the controller reports of it.
pub type PoolState = (kluster::NodePool, kluster::NodePoolInfo);

/// The spec's pools each with its status (zero counts until the controller reports it).
pub fn pool_states(k: &kluster::Kluster) -> Vec<PoolState> {
    k.spec
        .node_pools
        .iter()
        .map(|p| {
            let info = k.status.node_pools.iter().find(|i| i.name == p.name);
            (p.clone(), info.cloned().unwrap_or_default())
        })
        .collect()
}

/// The pools table, the scale and edit failures, and (admins) "Add a node pool…".
#[component]
pub fn PoolsSection(
    /// Kluster name.
    kluster: String,
    /// The pools with their status.
    pools: Vec<PoolState>,
    /// Whether the user may change them.
    admin: bool,
    /// The page's scale action.
    scale: ServerAction<ScalePool>,
    /// The page's edit action (add, remove, upgrade).
    edit: ServerAction<EditKluster>,
    /// Flavors for a new pool.
    flavors: Vec<kluster::Flavor>,
    /// Zones for a new pool.
    zones: Vec<String>,
    /// Images for a new pool (empty: the default only).
    images: Vec<String>,
) -> impl IntoView {
    let headers = [
        "Pool",
        "Flavor",
        "Zone",
        "Running",
        "Healthy",
        "Schedulable",
        "Size",
    ];
    let waits = pools
        .iter()
        .filter_map(|(pool, info)| Some(retry_notice(&pool.name, info.create_retry.as_ref()?)))
        .collect_view();
    let rows = pools
        .into_iter()
        .map(|(pool, info)| {
            let kluster = kluster.clone();
            view! { <PoolRow kluster pool info admin scale edit/> }
        })
        .collect_view();
    view! {
        <section aria-labelledby="pools-h" class=SECTION>
            <h2 id="pools-h" class=H2>"Node pools"</h2>
            <ScrollRegion label="Node pools" class="mt-3">
                <table class=TABLE>
                    <thead class=THEAD>
                        <tr>
                            {headers.map(|h| view! { <th scope="col" class="py-2 pr-4 font-medium">{h}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </ScrollRegion>
            {waits}
            <ActionError error=action_error(scale) field="size"/>
            {admin.then(|| view! {
                <p class=format!("mt-2 text-sm {MUTED}")>"To remove a pool, scale it to 0 first."</p>
                <AddPoolForm action=edit kluster flavors zones images/>
                <ActionError error=action_error(edit)/>
            })}
        </section>
    }
}

/// Why a pool's servers fail and when the next is asked for (`p[data-retry=<pool>]`).
fn retry_notice(pool: &str, r: &kluster::CreateRetry) -> impl IntoView {
    let servers = match r.failures {
        1 => "1 new server".to_string(),
        n => format!("{n} new servers in a row"),
    };
    let when = r.next_try.replace('T', " ").replace('Z', " UTC");
    view! {
        <p class=format!("mt-3 {NOTICE}") data-retry=pool.to_string()>
            {format!("Pool {pool}: {servers} failed in the cloud: {} The next one is asked for at ", r.reason)}
            <time datetime=r.next_try.clone()>{when}</time>
            "; the wait grows with each failure."
        </p>
    }
}

/// One pool's row (`tr[data-pool=<name>]`, counts in `[data-count=…]`).
#[component]
fn PoolRow(
    kluster: String,
    pool: kluster::NodePool,
    info: kluster::NodePoolInfo,
    admin: bool,
    scale: ServerAction<ScalePool>,
    edit: ServerAction<EditKluster>,
) -> impl IntoView {
    let size = if admin {
        let remove = (pool.size == 0).then(|| {
            view! { <RemovePoolForm action=edit kluster=kluster.clone() pool=pool.name.clone()/> }
        });
        view! {
            <ScaleForm action=scale kluster pool=pool.name.clone() size=pool.size/>
            {remove}
        }
        .into_any()
    } else {
        view! { <span>{pool.size}</span> }.into_any()
    };
    // Without the kluster's Kubernetes API nobody knows the nodes' health: say so, never 0.
    let unknown = info.health_unknown;
    let count = move |n: i64| match unknown {
        true => "unknown".to_string(),
        false => n.to_string(),
    };
    view! {
        <tr class=ROW data-pool=pool.name.clone()>
            <td class="py-2 pr-4 font-medium">{pool.name.clone()}</td>
            <td class="py-2 pr-4">{pool.flavor}</td>
            <td class="py-2 pr-4">{pool.availability_zone}</td>
            <td class="py-2 pr-4" data-count="running">{info.running}</td>
            <td class="py-2 pr-4" data-count="healthy">{count(info.healthy)}</td>
            <td class="py-2 pr-4" data-count="schedulable">{count(info.schedulable)}</td>
            <td class="py-2 pr-4">{size}</td>
        </tr>
    }
}
