//! The frame of every signed-in page: the session check (with redirects to the login page),
//! the header, and the page's content.

use leptos::prelude::*;
use leptos_router::components::Redirect;

use crate::components::header::Header;
use crate::error::AppError;
use crate::model::SessionInfo;
use crate::server_fns::{current_session, SwitchProject};

/// Renders `content` with the session; visitors without one (or with an ended one) go to
/// the login page.
#[component]
pub fn SignedIn<F, V>(content: F) -> impl IntoView
where
    F: Fn(SessionInfo) -> V + Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    crate::components::live::provide_live();
    let switch = ServerAction::<SwitchProject>::new();
    let info = Resource::new(move || switch.version().get(), |_| current_session());
    view! {
        <Transition fallback=|| view! { <p class="p-8">"Loading…"</p> }>
            {move || {
                let content = content.clone();
                Suspend::new(async move {
                    match info.await {
                        Ok(Some(info)) => view! {
                            <Header info=info.clone() switch/>
                            <main class="mx-auto max-w-5xl p-4 sm:p-8">{content(info)}</main>
                        }.into_any(),
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
                })
            }}
        </Transition>
    }
}

/// Whether the session may create, change and delete klusters.
pub fn is_admin(info: &SessionInfo) -> bool {
    info.roles.iter().any(|r| r == "kubernetes_admin")
}

/// Tailwind classes of a phase badge: green when running, amber while changing, red when
/// going away.
pub fn badge(phase: kluster::KlusterPhase) -> &'static str {
    match phase {
        kluster::KlusterPhase::Running => {
            "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-200"
        }
        kluster::KlusterPhase::Terminating => {
            "bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-200"
        }
        _ => "bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-200",
    }
}

/// Classes of text inputs and selects.
pub const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm focus:outline-2 focus:outline-sky-600 dark:border-slate-600 dark:bg-slate-800";
/// Classes of primary buttons.
pub const PRIMARY: &str = "rounded-md bg-sky-700 px-4 py-2 text-sm font-medium text-white hover:bg-sky-600 focus:outline-2 focus:outline-offset-2 focus:outline-sky-600 disabled:opacity-50";
/// Classes of secondary buttons and button-like links.
pub const SECONDARY: &str = "rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 focus:outline-2 focus:outline-sky-600 dark:border-slate-600 dark:hover:bg-slate-800";
/// Classes of a field's error text.
pub const FIELD_ERROR: &str = "mt-1 text-sm text-red-700 dark:text-red-400";
