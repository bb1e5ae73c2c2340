//! The top of a kluster's page: its name, its phase (announced when it changes), the
//! kubeconfig download, and the controller's message when something is wrong.

use leptos::prelude::*;

use crate::components::error_alert::ErrorAlert;
use crate::components::style::{phase_badge, H1, PRIMARY};

/// Name, phase badge (`#phase`) and "Download kubeconfig"; the status message below, in red,
/// when the controller has one.
#[component]
pub fn KlusterHeading(
    /// Kluster name.
    name: String,
    /// Its phase.
    phase: kluster::KlusterPhase,
    /// The controller's status message (empty: none).
    message: String,
) -> impl IntoView {
    let download = format!("/klusters/{name}/kubeconfig");
    view! {
        <div class="flex flex-wrap items-center justify-between gap-3">
            <h1 class=format!("flex items-center gap-3 {H1}")>
                {name}
                <span id="phase" role="status" aria-live="polite" class=phase_badge(phase, "text-sm")>
                    {format!("{phase:?}")}
                </span>
            </h1>
            <a href=download download class=PRIMARY>"Download kubeconfig"</a>
        </div>
        {(!message.is_empty()).then(|| view! { <ErrorAlert spacing="mt-4">{message}</ErrorAlert> })}
    }
}
