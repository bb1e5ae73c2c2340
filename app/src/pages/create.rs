//! `/klusters/new`: the create form (admins).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::create_form::CreateForm;
use crate::components::signed_in::{is_admin, SignedIn};
use crate::server_fns::get_create_context;

/// The create form with what the cloud offers; members are told they cannot create.
#[component]
pub fn CreatePage() -> impl IntoView {
    view! {
        <Title text="New kluster"/>
        <SignedIn content=|info| {
            if !is_admin(&info) {
                return view! {
                    <p role="alert" class="rounded bg-amber-50 p-4 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
                        "Only project admins (role kubernetes_admin) can create klusters. "
                        <a href="/" class="underline">"Back to the list"</a>
                    </p>
                }.into_any();
            }
            let retry = use_query_map().read_untracked().get("retry").is_some();
            let context = Resource::new(|| (), move |_| get_create_context(retry));
            view! {
                <nav class="mb-4 text-sm"><a href="/" class="text-sky-700 underline dark:text-sky-400">"← All klusters"</a></nav>
                <h1 class="text-2xl font-semibold">"New kluster"</h1>
                <Suspense fallback=|| view! { <p class="mt-4">"Loading what the cloud offers…"</p> }>
                    {move || Suspend::new(async move {
                        match context.await {
                            Ok(mut ctx) => {
                                let flash = ctx.flash.take();
                                view! { <CreateForm ctx flash/> }.into_any()
                            }
                            Err(e) => view! {
                                <p role="alert" class="mt-4 rounded bg-red-50 p-4 text-red-800 dark:bg-red-950 dark:text-red-200">{e.to_string()}</p>
                            }.into_any(),
                        }
                    })}
                </Suspense>
            }.into_any()
        }/>
    }
}
