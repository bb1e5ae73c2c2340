//! The parts of a kluster's page, one per thing it shows: [`heading`] (name, phase,
//! download), [`spec`], [`pools`] (rows with [`scale`] and [`pool_edit`]: add/remove),
//! [`pool_options`] (labels, taints, update policy; unsaved forms in [`pool_drafts`]), [`access`] (SSH key, security group,
//! audit), [`upgrade`], [`events`] (with next steps), [`setup`] (the kubectl command) and
//! [`delete`] (typed name). The page (`pages/detail.rs`) loads the data and lays them out.

pub mod access;
pub mod delete;
pub mod events;
pub mod heading;
pub mod pool_drafts;
pub mod pool_edit;
pub mod pool_options;
pub mod pools;
pub mod scale;
pub mod setup;
pub mod spec;
pub mod upgrade;

use leptos::prelude::*;

/// The kluster's resource version the page shows (empty from a Kubernikus that keeps none),
/// provided by the page for its forms.
#[derive(Clone, Debug, Default)]
pub struct ShownVersion(pub String);

/// A form's hidden `version` field: the resource version the page shows, so that a change
/// is refused (412) instead of undoing one someone else made since (nothing without one).
#[component]
pub fn VersionField() -> impl IntoView {
    let v = use_context::<ShownVersion>().unwrap_or_default().0;
    (!v.is_empty()).then(|| view! { <input type="hidden" name="version" value=v/> })
}
