//! The dashboard landing page: who and where you are, and the project's klusters.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Redirect;

use crate::components::header::Header;
use crate::components::kluster_list::KlusterList;
use crate::error::AppError;
use crate::model::SessionInfo;
use crate::server_fns::{current_session, SwitchProject};

/// Requires a session; sends visitors without one (or with an ended one) to the login page.
#[component]
pub fn HomePage() -> impl IntoView {
    let switch = ServerAction::<SwitchProject>::new();
    let info = Resource::new(move || switch.version().get(), |_| current_session());
    view! {
        <Title text="Dashboard"/>
        <Transition fallback=|| view! { <p class="p-8">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match info.await {
                    Ok(Some(info)) => view! { <Signed info switch/> }.into_any(),
                    Ok(None) | Err(AppError::NotSignedIn) => view! { <Redirect path="/login"/> }.into_any(),
                    Err(AppError::SessionExpired) => {
                        view! { <Redirect path="/login?error=session_expired"/> }.into_any()
                    }
                    Err(e) => view! {
                        <p role="alert" class="m-8 rounded bg-red-50 p-4 text-red-800 dark:bg-red-950 dark:text-red-200">
                            {e.to_string()}
                        </p>
                    }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Signed(info: SessionInfo, switch: ServerAction<SwitchProject>) -> impl IntoView {
    let project = info.project_name.clone();
    view! {
        <Header info switch/>
        <main class="mx-auto max-w-5xl p-4 sm:p-8">
            <KlusterList project/>
        </main>
    }
}
