//! `/klusters/:name`: one kluster — spec, status, pools (with scaling for admins), events
//! with next steps, the setup command, the kubeconfig download, and deletion behind a typed
//! confirmation. The page loads the data (again when the live stream has news about the
//! kluster) and lays out the parts in `components/kluster_detail/`.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::components::error_alert::ErrorAlert;
use crate::components::form_failure::ReturnedError;
use crate::components::kluster_detail::{
    access::AccessSection, delete::DeleteSection, events::RecentEvents, heading::KlusterHeading,
    pool_drafts::PoolDrafts, pool_options::PoolSettings, pools::pool_states, pools::PoolsSection,
    setup::SetupCommand, spec::facts, spec::Specification, upgrade::UpgradeSection, ShownVersion,
};
use crate::components::signed_in::SignedIn;
use crate::components::style::LINK;
use crate::error::AppError;
use crate::model::KlusterDetail;
use crate::resource::Loaded;
use crate::server_fns::{
    get_kluster_detail, DeleteKluster, EditKluster, ScalePool, SetTerminationProtection,
};

/// `/klusters/:name` (requires a session). Its actions, live feed and resource are made
/// before the frame's `<Transition>`, which may run its content more than once (see
/// `SignedIn`): the kluster is fetched once per render.
#[component]
pub fn DetailPage() -> impl IntoView {
    let params = use_params_map();
    let name = move || params.read().get("name").unwrap_or_default();
    let actions = Actions {
        scale: ServerAction::new(),
        delete: ServerAction::new(),
        edit: ServerAction::new(),
        protect: ServerAction::new(),
    };
    // Live: refetch (debounced) when the kluster has news on the page's event stream.
    let live = crate::components::live::provide_live();
    let changes = live.changes(Some(name()), 500);
    let retry = crate::components::form_failure::retry_requested().then_some(true);
    // Made here, outside what a refetch draws again, so typing survives it.
    let drafts = PoolDrafts::new(actions.edit);
    Effect::new(move |_| live.start(None));
    let detail = crate::resource::load(
        move || {
            (
                name(),
                actions.scale.version().get(),
                actions.edit.version().get(),
                actions.protect.version().get(),
                changes.get(),
            )
        },
        move |(name, ..)| get_kluster_detail(name, retry),
    );
    view! {
        <Title text=name()/>
        <SignedIn content=move |info| {
            let may_create = info.may(kubernikus_policy::Permission::CreateCluster);
            view! { <Detail detail actions drafts may_create/> }
        }/>
    }
}

/// The page's actions (one each, shared by the parts that use them).
#[derive(Clone, Copy)]
struct Actions {
    scale: ServerAction<ScalePool>,
    delete: ServerAction<DeleteKluster>,
    edit: ServerAction<EditKluster>,
    protect: ServerAction<SetTerminationProtection>,
}

#[component]
fn Detail(
    detail: Loaded<Result<KlusterDetail, AppError>>,
    actions: Actions,
    drafts: PoolDrafts,
    may_create: bool,
) -> impl IntoView {
    view! {
        <nav class="mb-4 text-sm"><a href="/" class=LINK>"← All klusters"</a></nav>
        <ReturnedError spacing="mb-4"/>
        <Transition fallback=|| view! { <p>"Loading the kluster…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(d) => view! { <Body d actions drafts may_create/> }.into_any(),
                    Err(e) => view! { <ErrorAlert>{e.to_string()}</ErrorAlert> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Body(d: KlusterDetail, actions: Actions, drafts: PoolDrafts, may_create: bool) -> impl IntoView {
    let k = d.kluster;
    let name = k.name.clone();
    let version = k.metadata.as_ref().map(|m| m.resource_version.clone());
    let protected = k
        .metadata
        .as_ref()
        .is_some_and(|m| m.termination_protection);
    provide_context(ShownVersion(version.unwrap_or_default()));
    let admin = d.may_update;
    let facts = facts(&k, &d.ssh_fingerprint);
    let pools = pool_states(&k);
    view! {
        <KlusterHeading name=name.clone() phase=k.status.phase message=k.status.message may_create
            simulated=k.status.control_plane_simulated/>
        <Specification facts/>
        <PoolsSection kluster=name.clone() pools admin scale=actions.scale edit=actions.edit
            flavors=d.flavors zones=d.zones images=d.images/>
        <PoolSettings kluster=name.clone() pools=k.spec.node_pools.clone() admin edit=actions.edit
            drafts flash=d.edit_flash/>
        {admin.then(|| view! { <AccessSection action=actions.edit kluster=name.clone() spec=k.spec.clone() groups=d.security_groups/> })}
        {admin.then(|| view! { <UpgradeSection action=actions.edit kluster=name.clone() upgrades=d.upgrades/> })}
        <SetupCommand command=d.setup_command binaries=d.binaries/>
        <RecentEvents events=d.events/>
        {admin.then(|| view! { <DeleteSection action=actions.delete kluster=name protect=actions.protect protected/> })}
    }
}
