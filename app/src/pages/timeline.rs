//! `/timeline`: the project's events, newest first, live: filters (type, reason, kluster,
//! free text), aggregated counts, relative times that keep ticking, warnings highlighted
//! with the next step, and a "n new events" pill when scrolled away from the top.

use std::collections::BTreeMap;

use kluster::ProjectEvent;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::advice::next_step;
use crate::components::error_alert::ErrorAlert;
use crate::components::live::use_live;
use crate::components::signed_in::SignedIn;
use crate::components::style::{
    EVENT_NORMAL, EVENT_WARNING, H1_LIST, INPUT, LABEL, LINK, LINK_SMALL, META, MUTED, NEXT_STEP,
};
use crate::server_fns::recent_events;

/// The timeline (requires a session).
#[component]
pub fn TimelinePage() -> impl IntoView {
    // Made before the frame's `<Transition>`, which may run its content more than once
    // (see `SignedIn`).
    let initial = crate::resource::load(|| (), |_| recent_events());
    view! {
        <Title text="Timeline"/>
        <SignedIn content=move |info| view! { <Timeline project=info.project_name initial/> }/>
    }
}

/// "12 s ago", "3 min ago", "2 h ago", "4 d ago" from RFC 3339 UTC timestamps.
fn ago(ts: &str, now_ms: f64) -> String {
    let Some(then) = parse_ms(ts) else {
        return ts.to_string();
    };
    let s = ((now_ms - then) / 1000.0).max(0.0) as i64;
    match s {
        0..=59 => format!("{s} s ago"),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86399 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86400),
    }
}

/// "12 s", "3 min", "2 h", "4 d" between an RFC 3339 UTC time and `now_ms` (milliseconds
/// since the epoch); empty when the time does not parse.
pub fn age(ts: &str, now_ms: f64) -> String {
    let Some(then) = parse_ms(ts) else {
        return String::new();
    };
    let s = ((now_ms - then) / 1000.0).max(0.0) as i64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min", s / 60),
        3600..=86399 => format!("{} h", s / 3600),
        _ => format!("{} d", s / 86400),
    }
}

/// Milliseconds since the epoch of `YYYY-MM-DDTHH:MM:SSZ`.
pub(crate) fn parse_ms(ts: &str) -> Option<f64> {
    let b = ts.as_bytes();
    if b.len() < 19 {
        return None;
    }
    let n = |r: std::ops::Range<usize>| ts.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hh, mm, ss) = (n(11..13)?, n(14..16)?, n(17..19)?);
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86400 + hh * 3600 + mm * 60 + ss) * 1000) as f64)
}

#[component]
fn Timeline(
    project: String,
    initial: crate::resource::Loaded<Result<Vec<ProjectEvent>, crate::error::AppError>>,
) -> impl IntoView {
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <h1 class=H1_LIST>"Timeline of " {project}</h1>
            <a href="/timeline" class=LINK_SMALL>"Refresh"</a>
        </div>
        <Suspense fallback=|| view! { <p class="mt-4">"Loading events…"</p> }>
            {move || Suspend::new(async move {
                match initial.await {
                    Ok(list) => view! { <Events initial=list/> }.into_any(),
                    Err(e) => view! { <ErrorAlert spacing="mt-4">{e.to_string()}</ErrorAlert> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Events(initial: Vec<ProjectEvent>) -> impl IntoView {
    let live = use_live();
    let newest = initial.iter().map(|e| e.seq).max();
    Effect::new(move |_| {
        if let Some(l) = live {
            l.start(newest);
        }
    });
    // By event id: an aggregated repeat replaces the earlier copy (its count grew).
    let base: BTreeMap<i64, ProjectEvent> = initial.into_iter().map(|e| (e.id, e)).collect();
    let all = Memo::new(move |_| {
        let mut by_id = base.clone();
        if let Some(l) = live {
            l.events.with(|es| {
                for e in es {
                    if by_id.get(&e.id).is_none_or(|old| old.seq < e.seq) {
                        by_id.insert(e.id, e.clone());
                    }
                }
            });
        }
        let mut v: Vec<ProjectEvent> = by_id.into_values().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.seq));
        v
    });
    let (kind, reason, kluster, text) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    let shown = Memo::new(move |_| {
        let (k, r, kl, t) = (
            kind.get(),
            reason.get(),
            kluster.get(),
            text.get().to_lowercase(),
        );
        all.get()
            .into_iter()
            .filter(|e| k.is_empty() || e.event.kind == k)
            .filter(|e| r.is_empty() || e.event.reason == r)
            .filter(|e| kl.is_empty() || e.kluster == kl)
            .filter(|e| {
                t.is_empty()
                    || e.event.message.to_lowercase().contains(&t)
                    || e.event.reason.to_lowercase().contains(&t)
                    || e.kluster.contains(&t)
            })
            .collect::<Vec<_>>()
    });
    let choices = move |f: fn(&ProjectEvent) -> String| {
        let mut v: Vec<String> = all.with(|a| a.iter().map(f).collect());
        v.sort();
        v.dedup();
        v
    };
    // Relative times tick in the browser; the server renders absolute ones.
    let now = RwSignal::new(None::<f64>);
    Effect::new(move |_| {
        now.set(Some(js_now()));
        if let Ok(h) = set_interval_with_handle(
            move || now.set(Some(js_now())),
            std::time::Duration::from_secs(10),
        ) {
            on_cleanup(move || h.clear());
        }
    });
    // "n new events" while scrolled away from the top.
    let unseen = RwSignal::new(0usize);
    let count = Memo::new(move |_| all.with(Vec::len));
    Effect::new(move |prev: Option<usize>| {
        let n = count.get();
        if let Some(p) = prev {
            if n > p && scrolled_away() {
                unseen.update(|u| *u += n - p);
            }
        }
        n
    });
    let select = move |id: &'static str,
                       label: &'static str,
                       sig: RwSignal<String>,
                       opts: Vec<String>| {
        view! {
            <label for=id class=LABEL>{label}
                <select id=id class=INPUT on:change=move |ev| sig.set(event_target_value(&ev))>
                    <option value="">"All"</option>
                    {opts.into_iter().map(|o| view! { <option value=o.clone()>{o.clone()}</option> }).collect_view()}
                </select>
            </label>
        }
    };
    view! {
        <div class="mt-4 grid grid-cols-2 gap-3 sm:grid-cols-4">
            {select("f-type", "Type", kind, vec!["Warning".into(), "Normal".into()])}
            {move || select("f-reason", "Reason", reason, choices(|e| e.event.reason.clone()))}
            {move || select("f-kluster", "Kluster", kluster, choices(|e| e.kluster.clone()))}
            <label for="f-text" class=LABEL>"Search"
                <input id="f-text" type="search" class=INPUT placeholder="text in messages"
                    on:input=move |ev| text.set(event_target_value(&ev))/>
            </label>
        </div>
        {move || (unseen.get() > 0).then(|| view! {
            <button type="button" class="fixed left-1/2 top-4 z-10 -translate-x-1/2 rounded-full bg-sky-700 px-4 py-1.5 text-sm text-white shadow"
                on:click=move |_| { unseen.set(0); scroll_top(); }>
                {format!("{} new event{}", unseen.get(), if unseen.get() == 1 { "" } else { "s" })}
            </button>
        })}
        <p class=format!("mt-4 text-sm {MUTED}") aria-live="polite">
            {move || format!("{} of {} events", shown.with(Vec::len), all.with(Vec::len))}
        </p>
        <ol id="timeline" class="mt-2 space-y-2">
            <For each=move || shown.get() key=|e| (e.id, e.seq) let:e>
                {
                    let warning = e.event.kind == "Warning";
                    let step = next_step(&e.event);
                    let ts = e.event.last_timestamp.clone();
                    let abs = ts.replace('T', " ").replace('Z', " UTC");
                    let (ts_attr, abs_attr) = (ts.clone(), abs.clone());
                    view! {
                        <li data-kind=e.event.kind.clone() class=if warning { EVENT_WARNING } else { EVENT_NORMAL }>
                            <div class="flex flex-wrap items-baseline gap-x-3">
                                <span class="font-medium">{e.event.reason.clone()}</span>
                                <a class=LINK href=format!("/klusters/{}", e.kluster)>{e.kluster.clone()}</a>
                                {(e.event.count > 1).then(|| view! { <span class=META data-count>{format!("×{}", e.event.count)}</span> })}
                                <time class=META datetime=ts_attr title=abs_attr>
                                    {move || now.get().map(|n| ago(&ts, n)).unwrap_or_else(|| abs.clone())}
                                </time>
                            </div>
                            <p class="break-words">{e.event.message.clone()}</p>
                            {step.map(|s| view! { <p class=NEXT_STEP>{s}</p> })}
                        </li>
                    }
                }
            </For>
        </ol>
    }
}

fn js_now() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        js_sys_now()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

#[cfg(feature = "hydrate")]
fn js_sys_now() -> f64 {
    wasm_bindgen::JsValue::from(js_date_now())
        .as_f64()
        .unwrap_or(0.0)
}

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    fn js_date_now() -> f64;
}

fn scrolled_away() -> bool {
    #[cfg(feature = "hydrate")]
    {
        web_sys::window()
            .and_then(|w| w.scroll_y().ok())
            .is_some_and(|y| y > 200.0)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        false
    }
}

fn scroll_top() {
    #[cfg(feature = "hydrate")]
    if let Some(w) = web_sys::window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn relative_times() {
        let t = super::parse_ms("2026-11-29T18:00:00Z").unwrap();
        assert_eq!(super::ago("2026-11-29T18:00:00Z", t + 5_000.0), "5 s ago");
        assert_eq!(
            super::ago("2026-11-29T18:00:00Z", t + 125_000.0),
            "2 min ago"
        );
        assert_eq!(
            super::ago("2026-11-29T18:00:00Z", t + 7_300_000.0),
            "2 h ago"
        );
        // 1970-01-02 is one day after the epoch.
        assert_eq!(super::parse_ms("1970-01-02T00:00:00Z"), Some(86_400_000.0));
    }
}
