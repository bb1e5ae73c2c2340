//! The dashboard landing page: the project's klusters.

use kubernikus_policy::Permission;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::kluster_list::{list_resource, KlusterList};
use crate::components::signed_in::SignedIn;

/// The project's klusters (requires a session).
#[component]
pub fn HomePage() -> impl IntoView {
    let (params, klusters) = list_resource();
    view! {
        <Title text="Dashboard"/>
        <SignedIn content=move |info| {
            let admin = info.may(Permission::CreateCluster);
            view! { <KlusterList project=info.project_name admin params klusters/> }
        }/>
    }
}
