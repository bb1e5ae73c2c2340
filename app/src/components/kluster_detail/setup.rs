//! The "Set up kubectl" card: the `kubernikusctl auth init` command with a copy button.

use leptos::prelude::*;

use crate::components::copy_button::CopyButton;
use crate::components::style::{H2, LINK, SECTION};

/// The setup command (`#setup-command`) and "Copy" (the clipboard, with JavaScript); says
/// so when the controller has no command right now.
#[component]
pub fn SetupCommand(
    /// The command (empty: unavailable).
    command: String,
    /// Where to download the tools (empty: not offered).
    binaries: Vec<kluster::Binaries>,
) -> impl IntoView {
    let downloads = binaries
        .into_iter()
        .map(|b| {
            let links = b
                .links
                .into_iter()
                .map(|l| view! { " " <a href=l.link class=LINK>{l.platform}</a> })
                .collect_view();
            view! { <p class="mt-2 text-sm">{format!("Download {}:", b.name)}{links}</p> }
        })
        .collect_view();
    let body = if command.is_empty() {
        view! { <p class="mt-2 text-sm">"The setup command is not available right now."</p> }
            .into_any()
    } else {
        let text = command.clone();
        view! {
            <div class="mt-2 flex items-start gap-2">
                // Focusable: a long command scrolls sideways, also from the keyboard.
                <pre id="setup-command" tabindex="0" class="min-w-0 flex-1 overflow-x-auto rounded bg-slate-100 p-3 text-xs focus:outline-2 focus:outline-sky-600 dark:bg-slate-800">{command}</pre>
                <CopyButton text/>
            </div>
        }
        .into_any()
    };
    view! {
        <section aria-labelledby="setup-h" class=SECTION>
            <h2 id="setup-h" class=H2>"Set up kubectl"</h2>
            {body}
            {downloads}
        </section>
    }
}
