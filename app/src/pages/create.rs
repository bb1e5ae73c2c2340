//! `/klusters/new`: the create form (admins); `?from=<name>` fills it from that kluster,
//! `?yaml=1` shows the same kluster as YAML (see [`crate::components::create_yaml`]), and
//! `?draft=1` the form that YAML turned back into.

use kubernikus_policy::Permission;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::create_form::CreateForm;
use crate::components::create_yaml::CreateYamlEditor;
use crate::components::error_alert::ErrorAlert;
use crate::components::form_failure::retry_requested;
use crate::components::signed_in::SignedIn;
use crate::components::style::{H1, LINK, NOTICE};
use crate::server_fns::get_create_context;

/// The create form with what the cloud offers, or its YAML; members are told they cannot
/// create.
#[component]
pub fn CreatePage() -> impl IntoView {
    // Made before the frame's `<Transition>`, which may run its content more than once (see
    // `SignedIn`): what the cloud offers is fetched once per render.
    let retry = retry_requested();
    let query = leptos_router::hooks::use_query_map();
    let from = query.read_untracked().get("from");
    // "Edit as YAML" may come back as a navigation to this same page: followed reactively.
    let yaml = Memo::new(move |_| query.read().get("yaml").is_some());
    // Back from the YAML editor is a navigation to `?draft=1`: the form is read again then.
    let draft = Memo::new(move |_| query.read().get("draft").is_some());
    let context = crate::resource::load(
        move || draft.get(),
        move |draft| get_create_context(retry, from.clone(), draft),
    );
    view! {
        <Title text="New kluster"/>
        <SignedIn content=move |info| {
            if !info.may(Permission::CreateCluster) {
                return view! {
                    <p role="alert" class=NOTICE>
                        "The controller's policy does not let you create klusters in this project (by default that needs the role kubernetes_admin). "
                        <a href="/" class="underline">"Back to the list"</a>
                    </p>
                }.into_any();
            }
            view! {
                <nav class="mb-4 text-sm"><a href="/" class=LINK>"← All klusters"</a></nav>
                <h1 class=H1>"New kluster"</h1>
                <Show when=move || yaml.get() fallback=move || view! {
                    <Suspense fallback=|| view! { <p class="mt-4">"Loading what the cloud offers…"</p> }>
                        {move || Suspend::new(async move {
                            match context.await {
                                Ok(mut ctx) => {
                                    let flash = ctx.flash.take();
                                    let copy = ctx.copy.take();
                                    view! { <CreateForm ctx flash copy/> }.into_any()
                                }
                                Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                            }
                        })}
                    </Suspense>
                }>
                    <CreateYamlEditor/>
                </Show>
            }.into_any()
        }/>
    }
}
