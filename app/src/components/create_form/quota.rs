//! The create form's quota summary: what the pools need against what the project has left,
//! and what does not fit.

use leptos::prelude::*;

use super::state::FormState;
use crate::model::Needs;

/// "These pools need … The project has … left", and "It does not fit — …" when they
/// exceed it; updated as the pools change (announced politely).
#[component]
pub fn QuotaSummary(state: FormState, quota: kluster::Quota) -> impl IntoView {
    let needs = Memo::new(move |_| {
        state
            .form
            .with(|f| state.meta.with_value(|m| Needs::of(&f.pools, &m.flavors)))
    });
    let q = quota;
    view! {
        <section aria-labelledby="quota-h" aria-live="polite" class="rounded-md bg-slate-100 p-3 text-sm dark:bg-slate-800" id="quota-summary">
            <h2 id="quota-h" class="font-semibold">"Quota"</h2>
            <p>{move || {
                let n = needs.get();
                format!(
                    "These pools need {} instances, {} vCPUs and {} GiB RAM. The project has {} instances, {} vCPUs and {} GiB RAM left.",
                    n.instances, n.cores, n.ram / 1024,
                    q.instances.remaining(), q.cores.remaining(), q.ram.remaining() / 1024
                )
            }}</p>
            {move || {
                let short = needs.get().shortfalls(&q);
                (!short.is_empty()).then(|| view! {
                    <p class="mt-1 font-medium text-amber-800 dark:text-amber-300">
                        "It does not fit — " {short.join("; ")}
                        ". Some nodes would fail to start: pick a smaller flavor or fewer nodes, or ask for more quota."
                    </p>
                })
            }}
        </section>
    }
}
