//! The "Recent events" card of a kluster: newest first, warnings highlighted, with the next
//! step for the reasons we know (quota, several routers, …).

use leptos::prelude::*;

use crate::advice::next_step;
use crate::components::style::{EVENT_NORMAL, EVENT_WARNING, H2, META, NEXT_STEP, SECTION};

/// The kluster's recent events (as the controller aggregates them: a repeat counts up).
#[component]
pub fn RecentEvents(
    /// Newest first.
    events: Vec<kluster::Event>,
) -> impl IntoView {
    let body = if events.is_empty() {
        view! { <p class="mt-2 text-sm">"No events yet."</p> }.into_any()
    } else {
        view! {
            <ol class="mt-3 space-y-2" aria-live="polite">
                {events.into_iter().map(|e| view! { <EventItem e/> }).collect_view()}
            </ol>
        }
        .into_any()
    };
    view! {
        <section aria-labelledby="events-h" class=SECTION>
            <h2 id="events-h" class=H2>"Recent events"</h2>
            {body}
        </section>
    }
}

/// One event: reason, count, time (UTC), message, and the next step when there is one.
#[component]
fn EventItem(e: kluster::Event) -> impl IntoView {
    let warning = e.kind == "Warning";
    let step = next_step(&e);
    let when = e.last_timestamp.replace('T', " ").replace('Z', " UTC");
    view! {
        <li class=if warning { EVENT_WARNING } else { EVENT_NORMAL }>
            <div class="flex flex-wrap items-baseline gap-x-3">
                <span class="font-medium">{e.reason}</span>
                {(e.count > 1).then(|| view! { <span class=META>{format!("×{}", e.count)}</span> })}
                <time class=META datetime=e.last_timestamp>{when}</time>
            </div>
            <p class="break-words">{e.message}</p>
            {step.map(|s| view! { <p class=NEXT_STEP>{s}</p> })}
        </li>
    }
}
