//! The top bar: user@domain, project and region switchers, roles, sign-out.

use kubernikus_policy::Permission;
use leptos::prelude::*;

use crate::components::post_form::{form_action, FormAction, PostForm};
use crate::components::style::{LINK_SMALL, MUTED, SECONDARY_SMALL, SELECT_SMALL};
use crate::error::AppError;
use crate::model::{ProjectChoice, SessionInfo};
use crate::server_fns::{list_projects, Logout, SwitchProject};

/// The session's projects, for the switcher. Made by the page's frame before its
/// `<Transition>`: a resource made inside one is made again each time the transition runs
/// its children once more (on the server it does until they settle), and fetched again.
pub fn projects_resource() -> crate::resource::Loaded<Result<Vec<ProjectChoice>, AppError>> {
    crate::resource::load(|| (), |_| list_projects())
}

/// Header for signed-in pages. The switcher and sign-out are plain forms, so they work
/// without JavaScript too.
#[component]
pub fn Header(
    info: SessionInfo,
    switch: FormAction<SwitchProject>,
    projects: crate::resource::Loaded<Result<Vec<ProjectChoice>, AppError>>,
) -> impl IntoView {
    let logout = form_action::<Logout>();
    let current = info.project_id.clone();
    let cloud = info.may(Permission::CloudAdmin);
    let auditor = cloud || info.may(Permission::ProjectAdmin);
    let roles = if info.roles.is_empty() {
        "no roles".to_string()
    } else {
        info.roles.join(", ")
    };
    view! {
        <header class="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <div class="mx-auto flex max-w-5xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
                <a href="/" class="font-semibold text-sky-800 dark:text-sky-300">"Mission Control"</a>
                <PostForm action=switch class="flex items-center gap-2" label="Switch project">
                    <label for="project-switch" class=format!("text-sm {MUTED}")>"Project"</label>
                    <select id="project-switch" name="project_id"
                        class=SELECT_SMALL>
                        <Transition fallback=move || view! { <option selected>{info.project_name.clone()}</option> }>
                            {move || {
                                let current = current.clone();
                                Suspend::new(async move {
                                    projects.await.unwrap_or_default().into_iter().map(|p| {
                                        let selected = p.id == current;
                                        view! { <option value=p.id selected=selected>{p.name}</option> }
                                    }).collect_view()
                                })
                            }}
                        </Transition>
                    </select>
                    <button type="submit" class=SECONDARY_SMALL>
                        "Switch"
                    </button>
                </PostForm>
                <crate::components::region_picker::RegionPicker regions=info.regions.clone() current=info.region.clone()/>
                <p role="status" aria-live="polite" class="text-sm text-red-700 dark:text-red-400">
                    {move || switch.value().get().and_then(|r| r.err()).map(|e| e.to_string())}
                </p>
                <a href="/timeline" class=LINK_SMALL>"Timeline"</a>
                {auditor.then(|| view! {
                    <a href="/audit" class=LINK_SMALL>"Audit"</a>
                })}
                {cloud.then(|| view! { <a href="/ops" class=LINK_SMALL>"Operations"</a> })}
                <crate::components::live::LiveBadge/>
                <div class="ml-auto flex flex-wrap items-center gap-4 text-sm">
                    <crate::components::theme::ThemePicker/>
                    <span>
                        <span id="whoami" class="font-medium">{info.user_name.clone()} "@" {info.user_domain.clone()}</span>
                        <span id="roles" class=format!("ml-2 {MUTED}")>{roles}</span>
                    </span>
                    <PostForm action=logout label="Sign out">
                        <button type="submit" class="rounded-md bg-slate-800 px-3 py-1 text-white hover:bg-slate-700 dark:bg-slate-700 dark:hover:bg-slate-600">
                            "Sign out"
                        </button>
                    </PostForm>
                </div>
            </div>
        </header>
    }
}
