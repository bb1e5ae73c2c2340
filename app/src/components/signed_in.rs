//! The frame of every signed-in page: the session check (with redirects to the login page),
//! the header, and the page's content.

use leptos::prelude::*;
use leptos_router::components::Redirect;

use crate::components::error_alert::ErrorAlert;
use crate::components::header::{projects_resource, Header};
use crate::error::AppError;
use crate::model::SessionInfo;
use crate::server_fns::{current_session, SwitchProject};

/// Renders `content` with the session; visitors without one (or with an ended one) go to
/// the login page. `content` runs inside a `<Transition>`, which may run it more than once
/// (on the server until its resources settle): it reads resources its page made before,
/// rather than making its own.
#[component]
pub fn SignedIn<F, V>(content: F) -> impl IntoView
where
    F: Fn(SessionInfo) -> V + Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    // A page that follows the live feed itself provided it before this frame.
    if crate::components::live::use_live().is_none() {
        crate::components::live::provide_live();
    }
    let switch = crate::components::post_form::form_action::<SwitchProject>();
    let info = crate::resource::load(move || switch.version().get(), |_| current_session());
    let projects = projects_resource();
    view! {
        <Transition fallback=|| view! { <p class="p-8">"Loading…"</p> }>
            {move || {
                let content = content.clone();
                Suspend::new(async move {
                    match info.await {
                        Ok(Some(info)) => view! {
                            <Header info=info.clone() switch projects/>
                            <main class="mx-auto max-w-5xl p-4 sm:p-8">{content(info)}</main>
                        }.into_any(),
                        Ok(None) | Err(AppError::NotSignedIn) => view! { <Redirect path="/login"/> }.into_any(),
                        Err(AppError::SessionExpired) => {
                            view! { <Redirect path="/login?error=session_expired"/> }.into_any()
                        }
                        Err(e) => view! { <ErrorAlert spacing="m-8">{e.to_string()}</ErrorAlert> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}
