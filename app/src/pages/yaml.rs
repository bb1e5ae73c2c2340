//! `/klusters/:name/yaml`: the kluster as YAML, read-only with a copy button, and (admins) an
//! editor: "Preview changes" lists what the typed YAML would change, field by field, or why
//! it is refused in the API's words; "Apply these changes" then applies exactly that text
//! while the kluster is still at the version it was read at (412 in words otherwise).
//! Plain form posts throughout: it works without JavaScript.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::components::copy_button::CopyButton;
use crate::components::error_alert::ErrorAlert;
use crate::components::form_failure::{action_error, failure_list};
use crate::components::signed_in::SignedIn;
use crate::components::style::{
    H1, H2, INPUT, LINK, MUTED, PRIMARY, ROW, SECONDARY, SECTION, TABLE, THEAD,
};
use crate::error::AppError;
use crate::model::{KlusterYaml, YamlPreview};
use crate::resource::Loaded;
use crate::server_fns::{get_kluster_yaml, EditKlusterYaml};

/// `/klusters/:name/yaml` (requires a session).
#[component]
pub fn YamlPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let name = move || params.read().get("name").unwrap_or_default();
    let edit = ServerAction::<EditKlusterYaml>::new();
    let data = crate::resource::load(
        move || {
            let preview = query.read().get_str("preview").is_some();
            (name(), preview, edit.version().get())
        },
        move |(name, preview, _)| get_kluster_yaml(name, preview.then_some(true)),
    );
    view! {
        <Title text=format!("{} as YAML", name())/>
        <SignedIn content=move |_| view! { <Body name=name() data edit/> }/>
    }
}

#[component]
fn Body(
    name: String,
    data: Loaded<Result<KlusterYaml, AppError>>,
    edit: ServerAction<EditKlusterYaml>,
) -> impl IntoView {
    view! {
        <nav class="mb-4 text-sm"><a href=format!("/klusters/{name}") class=LINK>{format!("← {name}")}</a></nav>
        <h1 class=H1>{format!("{name} as YAML")}</h1>
        <Transition fallback=|| view! { <p>"Loading the kluster…"</p> }>
            {move || Suspend::new(async move {
                match data.await {
                    Ok(y) => view! { <Views y edit/> }.into_any(),
                    Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Views(y: KlusterYaml, edit: ServerAction<EditKlusterYaml>) -> impl IntoView {
    let editor = y.may_edit.then(|| {
        let KlusterYaml {
            editable,
            version,
            preview,
            ..
        } = y.clone();
        view! { <Editor editable version preview edit/> }
    });
    view! {
        <ReadOnly text=y.whole/>
        {editor}
    }
}

/// The whole kluster (`#kluster-yaml`) with "Copy" (the clipboard, with JavaScript).
#[component]
fn ReadOnly(text: String) -> impl IntoView {
    let for_copy = text.clone();
    view! {
        <section aria-labelledby="yaml-h" class=SECTION>
            <div class="flex items-center justify-between gap-2">
                <h2 id="yaml-h" class=H2>"As the API returns it"</h2>
                <CopyButton text=for_copy/>
            </div>
            <pre id="kluster-yaml" tabindex="0" class="mt-2 max-h-96 overflow-auto rounded bg-slate-100 p-3 text-xs focus:outline-2 focus:outline-sky-600 dark:bg-slate-800">{text}</pre>
        </section>
    }
}

/// The editor: the text, "Preview changes", what the preview found, and "Apply these
/// changes" with the previewed text.
#[component]
fn Editor(
    editable: String,
    version: String,
    preview: Option<YamlPreview>,
    edit: ServerAction<EditKlusterYaml>,
) -> impl IntoView {
    let failed = action_error(edit);
    let name = use_params_map()
        .read_untracked()
        .get("name")
        .unwrap_or_default();
    // What the preview found: the server's answer to this page's last post, else the kept one.
    let refused = preview.as_ref().and_then(|p| p.error.clone());
    let error = move || {
        failed
            .get()
            .or_else(|| refused.clone())
            .map(|e| failure_list(&e))
    };
    let for_apply = name.clone();
    let found = preview.filter(|p| p.error.is_none()).map(move |p| {
        let name = for_apply;
        let apply = (!p.changes.is_empty()).then(|| {
            view! {
                <ActionForm action=edit attr:class="mt-3">
                    <input type="hidden" name="name" value=name.clone()/>
                    <input type="hidden" name="version" value=p.version.clone()/>
                    <input type="hidden" name="step" value="apply"/>
                    <input type="hidden" name="yaml" value=p.text.clone()/>
                    <button type="submit" class=PRIMARY>"Apply these changes"</button>
                </ActionForm>
            }
        });
        view! { <Changes changes=p.changes/> {apply} }
    });
    view! {
        <section aria-labelledby="edit-yaml-h" class=SECTION>
            <h2 id="edit-yaml-h" class=H2>"Edit"</h2>
            <p class=format!("mt-1 text-sm {MUTED}")>
                "The name and spec; the controller keeps status and metadata. Preview first: nothing changes until you apply."
            </p>
            <ActionForm action=edit attr:class="mt-2">
                <input type="hidden" name="name" value=name.clone()/>
                <input type="hidden" name="version" value=version/>
                <input type="hidden" name="step" value="preview"/>
                <label for="yaml-edit" class="sr-only">"Kluster YAML"</label>
                <textarea id="yaml-edit" name="yaml" rows="18" spellcheck="false" aria-describedby="yaml-error"
                    class=format!("{INPUT} font-mono text-xs")>{editable}</textarea>
                <div id="yaml-error" role="alert" class="mt-2 text-sm text-red-700 dark:text-red-400">{error}</div>
                <button type="submit" class=format!("mt-2 {SECONDARY}")>"Preview changes"</button>
            </ActionForm>
            {found}
        </section>
    }
}

/// What applying the previewed text would change (`#yaml-changes`).
#[component]
fn Changes(changes: Vec<kluster::SpecChange>) -> impl IntoView {
    if changes.is_empty() {
        return view! { <p id="yaml-changes" role="status" class="mt-3 text-sm">"Nothing would change."</p> }.into_any();
    }
    let rows = changes
        .into_iter()
        .map(|c| {
            let or_none = |v: String| {
                if v.is_empty() {
                    "(none)".to_string()
                } else {
                    v
                }
            };
            view! {
                <tr class=ROW>
                    <td class="px-2 py-1 font-mono">{c.field}</td>
                    <td class="px-2 py-1 font-mono break-all">{or_none(c.before)}</td>
                    <td class="px-2 py-1 font-mono break-all">{or_none(c.after)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="mt-3 overflow-x-auto">
            <table id="yaml-changes" class=TABLE>
                <caption class="text-left text-sm font-semibold">"What will change"</caption>
                <thead class=THEAD><tr><th class="px-2 py-1">"Field"</th><th class="px-2 py-1">"Now"</th><th class="px-2 py-1">"After"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}
