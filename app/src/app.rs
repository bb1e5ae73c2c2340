//! The HTML shell and the router. The sign-in page and the list (the pages people land on)
//! are in the main WASM module; the create form, the detail page, the timeline, the audit
//! page and the operators' pages are lazy routes: with `cargo leptos build --split` their
//! code is split into modules the browser loads when they are visited (a server-rendered
//! page preloads its own).

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, Link, Meta, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    lazy_route, path, Lazy, LazyRoute, SsrMode,
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
/// allows only this site's scripts and the render's own inline scripts (by nonce). The
/// stylesheet and the scripts carry the build's content hashes in their names when the
/// site was built with `hash-files` (read from the hash file next to the server binary).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::ssr::set_page_csp();
    let theme = crate::components::theme::requested();
    view! {
        <!DOCTYPE html>
        <html lang="en" class=theme.as_str()>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content=theme.color_scheme()/>
                <HashedStylesheet id="leptos" options=options.clone()/>
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
    view! {
        <Link rel="icon" type_="image/svg+xml" href="/favicon.svg"/>
        <Meta name="description" content="Self-service Kubernetes clusters on OpenStack"/>
        <Title formatter=|t: String| if t.is_empty() { "Mission Control".to_string() } else { format!("{t} · Mission Control") }/>
        <Router>
            <Routes fallback=NotFound>
                // Async: the session check finishes (and may redirect) before headers go out.
                <Route path=path!("/login") view=LoginPage ssr=SsrMode::Async/>
                <Route path=path!("/") view=HomePage ssr=SsrMode::Async/>
                <Route path=path!("/klusters/new") view={Lazy::<CreateRoute>::new()} ssr=SsrMode::Async/>
                <Route path=path!("/timeline") view={Lazy::<TimelineRoute>::new()} ssr=SsrMode::Async/>
                <Route path=path!("/audit") view={Lazy::<AuditRoute>::new()} ssr=SsrMode::Async/>
                <Route path=path!("/ops") view={Lazy::<OpsRoute>::new()} ssr=SsrMode::Async/>
                <Route path=path!("/ops/timeline") view={Lazy::<OpsTimelineRoute>::new()} ssr=SsrMode::Async/>
                <Route path=path!("/klusters/:name") view={Lazy::<DetailRoute>::new()} ssr=SsrMode::Async/>
                <Route path=path!("/klusters/:name/yaml") view={Lazy::<YamlRoute>::new()} ssr=SsrMode::Async/>
            </Routes>
        </Router>
    }
}

/// `/klusters/new`, loaded when visited. The page loads its own data (no route data).
struct CreateRoute;

#[lazy_route]
impl LazyRoute for CreateRoute {
    fn data() -> Self {
        CreateRoute
    }

    fn view(_this: Self) -> AnyView {
        view! { <CreatePage/> }.into_any()
    }
}

/// `/timeline`, loaded when visited.
struct TimelineRoute;

#[lazy_route]
impl LazyRoute for TimelineRoute {
    fn data() -> Self {
        TimelineRoute
    }

    fn view(_this: Self) -> AnyView {
        view! { <TimelinePage/> }.into_any()
    }
}

/// `/klusters/:name`, loaded when visited.
struct DetailRoute;

#[lazy_route]
impl LazyRoute for DetailRoute {
    fn data() -> Self {
        DetailRoute
    }

    fn view(_this: Self) -> AnyView {
        view! { <DetailPage/> }.into_any()
    }
}

/// `/klusters/:name/yaml`, loaded when visited.
struct YamlRoute;

#[lazy_route]
impl LazyRoute for YamlRoute {
    fn data() -> Self {
        YamlRoute
    }

    fn view(_this: Self) -> AnyView {
        view! { <crate::pages::yaml::YamlPage/> }.into_any()
    }
}

/// `/audit`, loaded when visited.
struct AuditRoute;

#[lazy_route]
impl LazyRoute for AuditRoute {
    fn data() -> Self {
        AuditRoute
    }

    fn view(_this: Self) -> AnyView {
        view! { <AuditPage/> }.into_any()
    }
}

/// `/ops`, loaded when visited.
struct OpsRoute;

#[lazy_route]
impl LazyRoute for OpsRoute {
    fn data() -> Self {
        OpsRoute
    }

    fn view(_this: Self) -> AnyView {
        view! { <OpsPage/> }.into_any()
    }
}

/// `/ops/timeline`, loaded when visited.
struct OpsTimelineRoute;

#[lazy_route]
impl LazyRoute for OpsTimelineRoute {
    fn data() -> Self {
        OpsTimelineRoute
    }

    fn view(_this: Self) -> AnyView {
        view! { <OpsTimelinePage/> }.into_any()
    }
}
