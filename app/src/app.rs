//! The HTML shell and the router.

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, Link, Meta, Stylesheet, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path, SsrMode,
};

use crate::pages::{
    audit::AuditPage,
    create::CreatePage,
    detail::DetailPage,
    home::HomePage,
    login::LoginPage,
    not_found::NotFound,
    ops::{OpsPage, OpsTimelinePage},
    timeline::TimelinePage,
};

/// The document around the app, rendered on the server only. Its Content-Security-Policy
/// allows only this site's scripts and the render's own inline scripts (by nonce).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::ssr::set_page_csp();
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light dark"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <leptos_meta::MetaTags/>
            </head>
            <body class="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
                <App/>
            </body>
        </html>
    }
}

/// The application: routes to the login page and the dashboard.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Marks the page once the WASM has taken over (effects run only in the browser); tests
    // wait for it before relying on client-side behaviour.
    Effect::new(|_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
    view! {
        <Stylesheet id="leptos" href="/pkg/mission-control.css"/>
        <Link rel="icon" type_="image/svg+xml" href="/favicon.svg"/>
        <Meta name="description" content="Self-service Kubernetes clusters on OpenStack"/>
        <Title formatter=|t: String| if t.is_empty() { "Mission Control".to_string() } else { format!("{t} · Mission Control") }/>
        <Router>
            <Routes fallback=NotFound>
                // Async: the session check finishes (and may redirect) before headers go out.
                <Route path=path!("/login") view=LoginPage ssr=SsrMode::Async/>
                <Route path=path!("/") view=HomePage ssr=SsrMode::Async/>
                <Route path=path!("/klusters/new") view=CreatePage ssr=SsrMode::Async/>
                <Route path=path!("/timeline") view=TimelinePage ssr=SsrMode::Async/>
                <Route path=path!("/audit") view=AuditPage ssr=SsrMode::Async/>
                <Route path=path!("/ops") view=OpsPage ssr=SsrMode::Async/>
                <Route path=path!("/ops/timeline") view=OpsTimelinePage ssr=SsrMode::Async/>
                <Route path=path!("/klusters/:name") view=DetailPage ssr=SsrMode::Async/>
            </Routes>
        </Router>
    }
}
