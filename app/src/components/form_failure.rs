//! One failure path for every form, page side. A form's server function fails one of two
//! ways: called from the hydrated page, the action's value holds the error; a plain form
//! post (no JavaScript) is redirected back with `?error=<code>` (see `AppError::code`:
//! never free text, so a crafted URL cannot put words on the page) — the create form also
//! keeps the typed values in the session and comes back with `?retry=1`. Pages read both
//! through here and show them the same way.

use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_router::hooks::use_query_map;

use crate::components::error_alert::ErrorAlert;
use crate::components::style::FIELD_ERROR;
use crate::error::AppError;

/// What a plain form post left in the URL for the page it came back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returned {
    /// `?error=<code>`: it failed; the message in words.
    Error(&'static str),
    /// `?notice=<code>` (and no error): something the user should know (signed out).
    Notice(&'static str),
}

impl Returned {
    /// The message in words.
    pub fn message(self) -> &'static str {
        match self {
            Returned::Error(m) | Returned::Notice(m) => m,
        }
    }
}

/// Reads `?error=` (else `?notice=`) from a query string's values; unknown codes are
/// ignored.
pub fn returned_from(error: Option<&str>, notice: Option<&str>) -> Option<Returned> {
    match error.filter(|c| !c.is_empty()) {
        Some(code) => AppError::message_for_code(code).map(Returned::Error),
        None => notice
            .and_then(AppError::message_for_code)
            .map(Returned::Notice),
    }
}

/// What the current URL says a plain form post left (read once, at render).
pub fn returned() -> Option<Returned> {
    let q = use_query_map().read_untracked();
    returned_from(q.get_str("error"), q.get_str("notice"))
}

/// Whether the URL asks the create form to show what its last rejected post left in the
/// session (`?retry=1`).
pub fn retry_requested() -> bool {
    use_query_map().read_untracked().get_str("retry").is_some()
}

/// The alert for `?error=` on the page a plain form post came back to (nothing without
/// one). `spacing` as for [`ErrorAlert`].
#[component]
pub fn ReturnedError(#[prop(optional)] spacing: &'static str) -> impl IntoView {
    match returned() {
        Some(Returned::Error(m)) => Some(view! { <ErrorAlert spacing>{m}</ErrorAlert> }),
        _ => None,
    }
}

/// The error of `action`'s last call, if it failed.
pub fn action_error<S>(action: ServerAction<S>) -> Signal<Option<AppError>>
where
    S: ServerFn<Error = AppError> + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
{
    Signal::derive(move || action.value().get().and_then(Result::err))
}

/// What a form shows for `e`: the message for `field` when the error names it; the
/// messages of every rejected field (the form does not mark fields itself); else the
/// error's sentence.
pub fn failure_text(e: &AppError, field: Option<&str>) -> String {
    if let Some(m) = field.and_then(|f| e.for_field(f)) {
        return m;
    }
    match e {
        AppError::Invalid(errs) if !errs.is_empty() => errs
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        e => e.to_string(),
    }
}

/// The line under a form that says why its last submission failed (announced to screen
/// readers; empty while there is nothing to say).
#[component]
pub fn ActionError(
    /// The failure, from [`action_error`].
    error: Signal<Option<AppError>>,
    /// The field whose message comes first, if the error names it.
    #[prop(optional)]
    field: Option<&'static str>,
) -> impl IntoView {
    view! {
        <p role="alert" class=FIELD_ERROR>{move || error.get().map(|e| failure_text(&e, field))}</p>
    }
}

/// Each refused field as `path: message`, or the error's sentence.
pub fn failure_list(e: &AppError) -> String {
    match e {
        AppError::Invalid(errs) => errs
            .iter()
            .map(|f| format!("{}: {}", f.field, f.message))
            .collect::<Vec<_>>()
            .join(" "),
        e => failure_text(e, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(fields: &[(&str, &str)]) -> AppError {
        AppError::Invalid(
            fields
                .iter()
                .map(|(f, m)| kluster::FieldError {
                    field: (*f).into(),
                    message: (*m).into(),
                })
                .collect(),
        )
    }

    #[test]
    fn the_named_field_comes_first_then_every_field_then_the_sentence() {
        let e = invalid(&[("confirm", "Type x to confirm."), ("size", "Too big.")]);
        assert_eq!(failure_text(&e, Some("size")), "Too big.");
        assert_eq!(
            failure_text(&e, Some("name")),
            "Type x to confirm. Too big."
        );
        assert_eq!(failure_text(&e, None), "Type x to confirm. Too big.");
        let denied = AppError::Forbidden("Not yours.".into());
        assert_eq!(failure_text(&denied, Some("size")), "Not yours.");
    }

    #[test]
    fn the_url_gives_known_codes_only_and_errors_before_notices() {
        assert_eq!(
            returned_from(Some("invalid_credentials"), Some("signed_out")),
            Some(Returned::Error("Invalid user name or password"))
        );
        assert_eq!(
            returned_from(Some(""), Some("signed_out")),
            Some(Returned::Notice("You have signed out."))
        );
        assert_eq!(returned_from(Some("<b>hi</b>"), None), None);
        assert_eq!(returned_from(None, Some("<b>hi</b>")), None);
        assert_eq!(returned_from(None, None), None);
    }
}
