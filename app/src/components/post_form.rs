//! The first page's forms (sign-in, project switch, sign-out): a plain `<form method=post>`
//! to the server function's URL, which works before hydration and without JavaScript; once
//! hydrated, a submit reads the named fields and dispatches the action instead.
//!
//! Leptos's `ActionForm` does the same, but turns the form data into arguments through
//! `serde_qs`'s generic decoder, which every page's first load would carry (about 14 KB of
//! WASM); here each form's arguments say which fields they read ([`FromFields`]). The lazy
//! pages' forms keep `ActionForm`.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;

use crate::server_fns::{Login, LoginAppCredential, Logout, SwitchProject};

/// A server function's arguments built from a form's named fields.
pub trait FromFields: Sized {
    /// The arguments; `None` when a field is missing, and the browser then posts the form
    /// itself (the server answers a plain post as it would without JavaScript).
    fn from_fields(field: &dyn Fn(&str) -> Option<String>) -> Option<Self>;
}

/// The action behind a [`PostForm`]: its server function called from the browser.
/// Leptos's `ServerAction` also looks in the page's context for an error a plain post left
/// in Leptos's own URL encoding, which this app does not use (a plain post comes back with
/// `?error=<code>`: `form_failure`); that decoder would be on the first load too.
pub type FormAction<S> = Action<S, Result<<S as ServerFn>::Output, <S as ServerFn>::Error>>;

/// A new [`FormAction`] for the server function `S`.
pub fn form_action<S>() -> FormAction<S>
where
    S: ServerFn + Clone + Send + Sync + 'static,
    S::Output: Send + Sync + 'static,
    S::Error: Send + Sync + 'static,
{
    Action::new(|args: &S| S::run_on_client(args.clone()))
}

/// A form that posts to `action`'s server function (see the module's note).
#[component]
pub fn PostForm<S>(
    /// The action the form dispatches.
    action: FormAction<S>,
    /// The form's classes.
    #[prop(optional)]
    class: &'static str,
    /// The form's accessible name.
    label: &'static str,
    /// The fields and buttons.
    children: Children,
) -> impl IntoView
where
    S: ServerFn + FromFields + Clone + Send + Sync + 'static,
    S::Output: Send + Sync + 'static,
    S::Error: Send + Sync + 'static,
{
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            if ev.default_prevented() {
                return;
            }
            let Some(form) = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlFormElement>().ok())
            else {
                return;
            };
            let Ok(data) = web_sys::FormData::new_with_form(&form) else {
                return;
            };
            if let Some(args) = S::from_fields(&|name| data.get(name).as_string()) {
                ev.prevent_default();
                action.dispatch(args);
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, action);
    };
    view! {
        <form method="post" action=S::url() class=class aria-label=label on:submit=on_submit>
            {children()}
        </form>
    }
    // Erased, so that the views holding a form keep their types shallow.
    .into_any()
}

/// Each field a server function reads, by the name its form gives it.
macro_rules! from_fields {
    ($($args:ident { $($field:ident),* })*) => {$(
        impl FromFields for $args {
            fn from_fields(_field: &dyn Fn(&str) -> Option<String>) -> Option<Self> {
                Some($args { $($field: _field(stringify!($field))?),* })
            }
        }
    )*};
}

from_fields! {
    Login { user_name, password, user_domain, project }
    LoginAppCredential { credential_id, secret }
    SwitchProject { project_id }
    Logout {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_come_from_the_named_fields_and_a_missing_one_leaves_the_post_to_the_browser() {
        let all = |name: &str| Some(format!("<{name}>"));
        let login = Login::from_fields(&all).expect("every field is there");
        assert_eq!(
            (login.user_name.as_str(), login.password.as_str()),
            ("<user_name>", "<password>")
        );
        assert_eq!(
            (login.user_domain.as_str(), login.project.as_str()),
            ("<user_domain>", "<project>")
        );
        let switch = SwitchProject::from_fields(&all).expect("project_id is there");
        assert_eq!(switch.project_id, "<project_id>");
        let no_secret = |name: &str| (name != "secret").then(|| name.to_string());
        assert!(LoginAppCredential::from_fields(&no_secret).is_none());
        assert!(Logout::from_fields(&|_| None).is_some());
    }
}
