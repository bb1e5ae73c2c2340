//! `ErrorAlert`: the one red alert box of every page and form.

use leptos::prelude::*;

use crate::components::style::ALERT;

/// A red `role="alert"` box around `children` (an error in words). `spacing` adds margin
/// classes (`"mt-4"`). It hides itself while empty, so it can also hold a message that
/// comes and goes.
#[component]
pub fn ErrorAlert(#[prop(optional)] spacing: &'static str, children: Children) -> impl IntoView {
    view! { <p role="alert" class=format!("{ALERT} {spacing}")>{children()}</p> }
}
