//! The page's one live connection: an `EventSource` on `/events/stream` (gloo-net) whose
//! events every component of the page reads from context. Without JavaScript nothing
//! connects and pages stay as rendered (with their Refresh links).

use kluster::ProjectEvent;
use leptos::prelude::*;

/// Whether live updates flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveStatus {
    /// Not connected (yet, or no JavaScript).
    Off,
    /// Events arrive as they happen.
    Live,
    /// The connection or the controller is down; reconnecting by itself.
    Paused,
}

/// The live feed of the page.
#[derive(Clone, Copy, Debug)]
pub struct Live {
    /// Events received on this page, in arrival order (at most 1,000).
    pub events: RwSignal<Vec<ProjectEvent>>,
    /// Klusters whose stored state changed (pool counts, phase…), in arrival order
    /// (empty name: any may have changed); at most 1,000.
    pub touched: RwSignal<Vec<String>>,
    /// Connection state.
    pub status: RwSignal<LiveStatus>,
    started: RwSignal<bool>,
}

/// Provides the page's [`Live`] feed (not connected until [`Live::start`]).
pub fn provide_live() -> Live {
    let live = Live {
        events: RwSignal::new(Vec::new()),
        touched: RwSignal::new(Vec::new()),
        status: RwSignal::new(LiveStatus::Off),
        started: RwSignal::new(false),
    };
    provide_context(live);
    live
}

/// The page's live feed, if a signed-in frame provided one.
pub fn use_live() -> Option<Live> {
    use_context::<Live>()
}

impl Live {
    /// Connects (once per page), resuming after `after` when given; call from an effect.
    pub fn start(self, after: Option<i64>) {
        if self.started.get_untracked() {
            return;
        }
        self.started.set(true);
        #[cfg(feature = "hydrate")]
        connect(self, after);
        #[cfg(not(feature = "hydrate"))]
        let _ = after;
    }

    /// A counter that moves (at most every `ms` milliseconds) when an event about
    /// `kluster` (any kluster with `None`) arrives: pages refetch on it, debounced. While
    /// the user is typing into a form field the move waits (a refetch re-renders the page
    /// and would throw away what they typed), until the field loses focus.
    pub fn changes(self, kluster: Option<String>, ms: u64) -> ReadSignal<u64> {
        let (tick, set_tick) = signal(0u64);
        let pending = StoredValue::new(false);
        Effect::new(move |seen: Option<(usize, usize)>| {
            let len = self.events.with(Vec::len);
            let tlen = self.touched.with(Vec::len);
            let (from, tfrom) = seen.unwrap_or((len, tlen));
            let about =
                |name: &str| name.is_empty() || kluster.as_deref().is_none_or(|k| name == k);
            let relevant = self
                .events
                .with(|e| e[from.min(len)..].iter().any(|e| about(&e.kluster)))
                || self
                    .touched
                    .with(|t| t[tfrom.min(tlen)..].iter().any(|n| about(n)));
            if relevant && !pending.get_value() {
                pending.set_value(true);
                fire_when_idle(pending, set_tick, ms);
            }
            (len, tlen)
        });
        tick
    }
}

/// After `ms`, moves `tick` — or, while a form field has the focus, waits `ms` again.
fn fire_when_idle(pending: StoredValue<bool>, tick: WriteSignal<u64>, ms: u64) {
    set_timeout(
        move || {
            if editing() {
                fire_when_idle(pending, tick, ms);
            } else {
                pending.set_value(false);
                tick.update(|t| *t += 1);
            }
        },
        std::time::Duration::from_millis(ms),
    );
}

/// Whether the focus is in a form field the user types into or picks from.
fn editing() -> bool {
    #[cfg(feature = "hydrate")]
    {
        let active = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element());
        active.is_some_and(|e| {
            matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA")
                && e.get_attribute("type").as_deref() != Some("hidden")
        })
    }
    #[cfg(not(feature = "hydrate"))]
    false
}

#[cfg(feature = "hydrate")]
fn connect(live: Live, after: Option<i64>) {
    use futures_util::StreamExt;
    use gloo_net::eventsource::futures::EventSource;
    let url = match after {
        Some(a) => format!("/events/stream?after={a}"),
        None => "/events/stream".to_string(),
    };
    let Ok(mut source) = EventSource::new(&url) else {
        return;
    };
    let subscribe = |source: &mut EventSource, kind: &str| source.subscribe(kind).ok();
    let (Some(events), Some(changed), Some(up), Some(paused), Some(resync), Some(ended)) = (
        subscribe(&mut source, "kluster-event"),
        subscribe(&mut source, "kluster-changed"),
        subscribe(&mut source, "live"),
        subscribe(&mut source, "paused"),
        subscribe(&mut source, "resync"),
        subscribe(&mut source, "session-ended"),
    ) else {
        return;
    };
    let all = futures_util::stream::select_all([events, changed, up, paused, resync, ended]);
    leptos::task::spawn_local(async move {
        let _keep = source; // closing it would end the subscriptions
        let mut all = all;
        while let Some(item) = all.next().await {
            match item {
                Ok((kind, msg)) => {
                    let data = msg.data().as_string().unwrap_or_default();
                    match kind.as_str() {
                        "kluster-event" => {
                            // The byte reader, as every decoder in the WASM (`resource`).
                            if let Ok(e) = serde_json::from_slice::<ProjectEvent>(data.as_bytes()) {
                                live.events.update(|v| {
                                    v.push(e);
                                    if v.len() > 1000 {
                                        v.drain(..v.len() - 1000);
                                    }
                                });
                            }
                            live.status.set(LiveStatus::Live);
                        }
                        "kluster-changed" => live.touched.update(|t| {
                            t.push(data);
                            if t.len() > 1000 {
                                t.drain(..t.len() - 1000);
                            }
                        }),
                        "live" => live.status.set(LiveStatus::Live),
                        // Missed more than the server replays: every view reloads.
                        "resync" => {
                            live.touched.update(|t| t.push(String::new()));
                            live.status.set(LiveStatus::Live);
                        }
                        "paused" => live.status.set(LiveStatus::Paused),
                        "session-ended" => {
                            if let Some(w) = web_sys::window() {
                                let _ = w.location().set_href(&data);
                            }
                        }
                        _ => {}
                    }
                }
                // The browser reconnects by itself (with Last-Event-ID); say so meanwhile.
                Err(_) => live.status.set(LiveStatus::Paused),
            }
        }
    });
}

/// A small badge saying whether updates are live (announced to screen readers).
#[component]
pub fn LiveBadge() -> impl IntoView {
    let status = use_live().map(|l| l.status);
    view! {
        <span role="status" aria-live="polite" class="text-xs">
            {move || match status.map(|s| s.get()) {
                Some(LiveStatus::Live) => view! { <span class="rounded-full bg-emerald-100 px-2 py-0.5 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-200">"● Live"</span> }.into_any(),
                Some(LiveStatus::Paused) => view! { <span class="rounded-full bg-amber-100 px-2 py-0.5 text-amber-900 dark:bg-amber-900 dark:text-amber-100">"Live updates paused — reconnecting…"</span> }.into_any(),
                _ => view! { <span></span> }.into_any(),
            }}
        </span>
    }
}
