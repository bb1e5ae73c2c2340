//! The top of a kluster's page: its name, its phase (announced when it changes), the
//! kubeconfig download, the YAML view, "Create a kluster like this one" (for those who may
//! create), a notice when its control plane is simulated, and the controller's message when
//! something is wrong.

use leptos::prelude::*;

use crate::components::error_alert::ErrorAlert;
use crate::components::style::{phase_badge, H1, NOTICE, PRIMARY, SECONDARY};

/// Name, phase badge (`#phase`), "Download kubeconfig" and (`may_create`) the link to the
/// create form filled from this kluster; the status message below, in red, when the
/// controller has one.
#[component]
pub fn KlusterHeading(
    /// Kluster name.
    name: String,
    /// Its phase.
    phase: kluster::KlusterPhase,
    /// The controller's status message (empty: none).
    message: String,
    /// Whether the policy lets the user create klusters.
    may_create: bool,
    /// The controller runs no control plane for it (Mission Control's own controller).
    #[prop(optional)]
    simulated: bool,
) -> impl IntoView {
    let download = format!("/klusters/{name}/kubeconfig");
    let like = format!("/klusters/new?from={name}");
    let yaml = format!("/klusters/{name}/yaml");
    view! {
        <div class="flex flex-wrap items-center justify-between gap-3">
            <h1 class=format!("flex items-center gap-3 {H1}")>
                {name}
                <span id="phase" role="status" aria-live="polite" class=phase_badge(phase, "text-sm")>
                    {format!("{phase:?}")}
                </span>
            </h1>
            <div class="flex flex-wrap items-center gap-2">
                <a href=yaml class=SECONDARY>"YAML"</a>
                {may_create.then(|| view! { <a href=like class=SECONDARY>"Create a kluster like this one"</a> })}
                <a href=download download class=PRIMARY>"Download kubeconfig"</a>
            </div>
        </div>
        {(!message.is_empty()).then(|| view! { <ErrorAlert spacing="mt-4">{message}</ErrorAlert> })}
        {simulated.then(|| view! {
            <p class=format!("mt-4 {NOTICE}") data-simulated-control-plane="">
                "Simulated control plane: Mission Control's own controller runs no Kubernetes API server or etcd for this kluster. "
                "Its phases follow a timer and its node servers are created in the cloud, but the kubeconfig names an API server that does not exist, so kubectl reaches nothing. "
                "A real Kubernikus runs real control planes."
            </p>
        })}
    }
}
