//! The sign-in page: forms that work before hydration and without JavaScript, one per
//! sign-in method (tabs: password, application credential).

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::form_failure::{returned, Returned};
use crate::components::post_form::{form_action, PostForm};
use crate::components::style::{INPUT_LARGE, LABEL_STRONG, MUTED};
use crate::server_fns::{Login, LoginAppCredential};

/// `?method=` of the application-credential tab.
const APP_CREDENTIAL: &str = "application-credential";

/// The sign-in page: the method tabs, then the chosen method's form.
#[component]
pub fn LoginPage() -> impl IntoView {
    let method = use_query_map().with_untracked(|q| q.get("method").unwrap_or_default());
    let app_credential = method == APP_CREDENTIAL;
    // Plain links (a full load): each tab is its own server-rendered form.
    let tab = move |label: &'static str, href: &'static str, current: bool| {
        let class = if current {
            "border-b-2 border-sky-700 pb-1 font-medium"
        } else {
            "pb-1 text-sky-700 underline dark:text-sky-400"
        };
        view! {
            <a href=href rel="external" class=class aria-current=current.then_some("page")>{label}</a>
        }
    };
    view! {
        <Title text="Sign in"/>
        <main class="flex min-h-screen items-center justify-center p-4">
            <div class="w-full max-w-sm">
                <h1 class="mb-1 text-2xl font-semibold">"Mission Control"</h1>
                <p class=format!("mb-4 text-sm {MUTED}")>
                    "Sign in with your OpenStack credentials."
                </p>
                <nav aria-label="Sign-in method" class="mb-4 flex gap-4 text-sm">
                    {tab("Password", "/login", !app_credential)}
                    {tab("Application credential", "/login?method=application-credential", app_credential)}
                </nav>
                {if app_credential {
                    view! { <AppCredentialForm/> }.into_any()
                } else {
                    view! { <PasswordForm/> }.into_any()
                }}
            </div>
        </main>
    }
}

/// The sign-in message line: errors (red) or a notice (green), from the action or the URL.
fn message_line(
    is_notice: bool,
    failed: impl Fn() -> bool + Send + Sync + 'static,
    message: impl Fn() -> Option<String> + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <p id="login-message" role="status" aria-live="polite"
            class=move || if is_notice && !failed() {
                "min-h-5 text-sm text-emerald-700 dark:text-emerald-400"
            } else {
                "min-h-5 text-sm font-medium text-red-700 dark:text-red-400"
            }>
            {message}
        </p>
    }
}

/// Application-credential form: the credential's id and secret (its project is the
/// credential's own). After a failed attempt the id keeps its value.
#[component]
fn AppCredentialForm() -> impl IntoView {
    let login = form_action::<LoginAppCredential>();
    let id = use_query_map().with_untracked(|q| q.get("credential").unwrap_or_default());
    let from_url = returned();
    let is_notice = matches!(from_url, Some(Returned::Notice(_)));
    let url_message = from_url.map(|r| r.message().to_string());
    let message = move || match login.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        Some(Ok(())) => None,
        None => url_message.clone(),
    };
    let failed = move || login.value().get().is_some();
    view! {
        <PostForm action=login class="space-y-4 rounded-lg bg-white p-6 shadow dark:bg-slate-900" label="Sign in with an application credential">
            <div>
                <label for="credential_id" class=LABEL_STRONG>"Application credential ID"</label>
                <input id="credential_id" name="credential_id" class=INPUT_LARGE required
                    autocomplete="username" value=id/>
            </div>
            <div>
                <label for="secret" class=LABEL_STRONG>"Secret"</label>
                <input id="secret" name="secret" type="password" class=INPUT_LARGE required
                    autocomplete="current-password"/>
            </div>
            {message_line(is_notice, failed, message)}
            <button type="submit" disabled=move || login.pending().get()
                class="w-full rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800 focus:outline-none focus:ring-2 focus:ring-sky-500 focus:ring-offset-2 disabled:opacity-60">
                {move || if login.pending().get() { "Signing in…" } else { "Sign in" }}
            </button>
        </PostForm>
    }
}

/// Sign-in form: user name, password, user domain, project. Errors show above the button;
/// after a failed attempt every field but the password keeps its value.
#[component]
fn PasswordForm() -> impl IntoView {
    let login = form_action::<Login>();
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
                <PostForm action=login class="space-y-4 rounded-lg bg-white p-6 shadow dark:bg-slate-900" label="Sign in">
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
                    {message_line(is_notice, move || login.value().get().is_some(), message)}
                    <button type="submit" disabled=move || login.pending().get()
                        class="w-full rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800 focus:outline-none focus:ring-2 focus:ring-sky-500 focus:ring-offset-2 disabled:opacity-60">
                        {move || if login.pending().get() { "Signing in…" } else { "Sign in" }}
                    </button>
                </PostForm>
    }
}
