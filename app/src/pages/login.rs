//! The sign-in page: a form that works before hydration and without JavaScript.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::form_failure::{returned, Returned};
use crate::components::style::{INPUT_LARGE, LABEL_STRONG, MUTED};
use crate::server_fns::Login;

/// Sign-in form: user name, password, user domain, project. Errors show above the button;
/// after a failed attempt every field but the password keeps its value.
#[component]
pub fn LoginPage() -> impl IntoView {
    let login = ServerAction::<Login>::new();
    let query = use_query_map();
    let param = move |k: &str| query.with_untracked(|q| q.get(k).unwrap_or_default());
    // Errors of a no-JavaScript post arrive as a code in the URL; with JavaScript, as the
    // action's value.
    let from_url = returned();
    let is_notice = matches!(from_url, Some(Returned::Notice(_)));
    let url_message = from_url.map(|r| r.message().to_string());
    let message = move || match login.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        Some(Ok(())) => None,
        None => url_message.clone(),
    };
    let password = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let (Some(Err(_)), Some(input)) = (login.value().get(), password.get()) {
            input.set_value("");
        }
    });
    view! {
        <Title text="Sign in"/>
        <main class="flex min-h-screen items-center justify-center p-4">
            <div class="w-full max-w-sm">
                <h1 class="mb-1 text-2xl font-semibold">"Mission Control"</h1>
                <p class=format!("mb-6 text-sm {MUTED}")>
                    "Sign in with your OpenStack credentials."
                </p>
                <ActionForm action=login attr:class="space-y-4 rounded-lg bg-white p-6 shadow dark:bg-slate-900" attr:aria-label="Sign in">
                    <div>
                        <label for="user_name" class=LABEL_STRONG>"User name"</label>
                        <input id="user_name" name="user_name" class=INPUT_LARGE required
                            autocomplete="username" value=param("user")/>
                    </div>
                    <div>
                        <label for="password" class=LABEL_STRONG>"Password"</label>
                        <input id="password" name="password" type="password" class=INPUT_LARGE
                            required autocomplete="current-password" node_ref=password/>
                    </div>
                    <div>
                        <label for="user_domain" class=LABEL_STRONG>"User domain"</label>
                        <input id="user_domain" name="user_domain" class=INPUT_LARGE
                            placeholder="Default" value=param("domain")/>
                    </div>
                    <div>
                        <label for="project" class=LABEL_STRONG>"Project"</label>
                        <input id="project" name="project" class=INPUT_LARGE required
                            value=param("project")/>
                    </div>
                    <p id="login-message" role="status" aria-live="polite"
                        class=move || if is_notice && login.value().get().is_none() {
                            "min-h-5 text-sm text-emerald-700 dark:text-emerald-400"
                        } else {
                            "min-h-5 text-sm font-medium text-red-700 dark:text-red-400"
                        }>
                        {message}
                    </p>
                    <button type="submit" disabled=move || login.pending().get()
                        class="w-full rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800 focus:outline-none focus:ring-2 focus:ring-sky-500 focus:ring-offset-2 disabled:opacity-60">
                        {move || if login.pending().get() { "Signing in…" } else { "Sign in" }}
                    </button>
                </ActionForm>
            </div>
        </main>
    }
}
