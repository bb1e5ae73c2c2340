//! The Tailwind class strings the UI repeats (buttons, inputs, cards, tables, badges, alerts,
//! text), in one place: change a look here, not at each use. Every text colour here passes
//! WCAG 2.1 AA contrast on the backgrounds it is used on, in the light and the dark scheme
//! (the e2e suite checks every page with axe-core in both).
//! (Tailwind finds the classes here: `style/main.css` scans `app/src`.)

/// Primary buttons and button-like links.
pub const PRIMARY: &str = "rounded-md bg-sky-700 px-4 py-2 text-sm font-medium text-white hover:bg-sky-600 focus:outline-2 focus:outline-offset-2 focus:outline-sky-600 disabled:opacity-50";
/// Secondary buttons and button-like links.
pub const SECONDARY: &str = "rounded-md border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100 focus:outline-2 focus:outline-sky-600 dark:border-slate-600 dark:hover:bg-slate-800";
/// Small secondary buttons (the header's).
pub const SECONDARY_SMALL: &str = "rounded-md border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800";
/// A button that destroys something (delete).
pub const DANGER: &str = "rounded-md bg-red-700 px-4 py-2 text-sm font-medium text-white hover:bg-red-600 focus:outline-2 focus:outline-offset-2 focus:outline-red-600";
/// A destructive action shown as a link (remove an empty pool).
pub const DANGER_LINK: &str = "text-sm text-red-700 underline dark:text-red-400";

/// Text inputs, selects and text areas of the forms.
pub const INPUT: &str = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm focus:outline-2 focus:outline-sky-600 dark:border-slate-600 dark:bg-slate-800";
/// A narrow number input inside a table cell (a pool's size).
pub const INPUT_NARROW: &str = "w-20 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm focus:outline-2 focus:outline-sky-600 dark:border-slate-600 dark:bg-slate-800";
/// The larger inputs of the sign-in page.
pub const INPUT_LARGE: &str = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm focus:border-sky-500 focus:outline-none focus:ring-2 focus:ring-sky-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100";
/// A compact select (the header's project switcher).
pub const SELECT_SMALL: &str = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-800";
/// Labels of form fields.
pub const LABEL: &str = "block text-sm";
/// Labels of the main form fields.
pub const LABEL_STRONG: &str = "block text-sm font-medium";
/// A field's error text (red, under the field).
pub const FIELD_ERROR: &str = "mt-1 text-sm text-red-700 dark:text-red-400";
/// The clickable line of a `<details>` that opens a form.
pub const SUMMARY: &str = "cursor-pointer text-sm font-medium";

/// Links in running text.
pub const LINK: &str = "text-sky-700 underline dark:text-sky-400";
/// Small links (the header's, "Refresh", "← All klusters").
pub const LINK_SMALL: &str = "text-sm text-sky-700 underline dark:text-sky-400";
/// The page's main heading.
pub const H1: &str = "text-2xl font-semibold";
/// A list page's heading.
pub const H1_LIST: &str = "text-xl font-semibold";
/// A section's heading.
pub const H2: &str = "text-lg font-semibold";
/// Secondary text (explanations, table headers).
pub const MUTED: &str = "text-slate-600 dark:text-slate-400";
/// Small metadata beside an item (times, counts). Slate-500 failed AA contrast in the dark
/// scheme (3.1:1 on a warning's amber-950, 3.7:1 on slate-900); these pass in both.
pub const META: &str = "text-xs text-slate-600 dark:text-slate-400";
/// The next step under an event.
pub const NEXT_STEP: &str = "mt-1 text-slate-700 dark:text-slate-300";

/// A white surface (shadowed) on the page's background, without padding (around a table).
pub const SURFACE: &str = "rounded-lg bg-white shadow dark:bg-slate-900";
/// A card that is one section of a page (a card with space above).
pub const SECTION: &str = "mt-6 rounded-lg bg-white p-4 shadow dark:bg-slate-900";
/// A bordered box inside a card or form (a pool row, the advanced settings).
pub const BOX: &str = "rounded-md border border-slate-200 p-3 dark:border-slate-700";

/// Tables.
pub const TABLE: &str = "min-w-full text-left text-sm";
/// A table's header row group.
pub const THEAD: &str =
    "border-b border-slate-200 text-slate-600 dark:border-slate-700 dark:text-slate-400";
/// A table's body rows.
pub const ROW: &str = "border-b border-slate-100 last:border-0 dark:border-slate-800";

/// A red alert box (an error the page could not get past).
pub const ALERT: &str =
    "rounded bg-red-50 p-3 text-red-800 empty:hidden dark:bg-red-950 dark:text-red-200";
/// An amber notice box (something the user cannot do here).
pub const NOTICE: &str =
    "rounded bg-amber-50 p-4 text-amber-900 dark:bg-amber-950 dark:text-amber-100";

/// A warning event in a list of events.
pub const EVENT_WARNING: &str =
    "rounded border-l-4 border-amber-500 bg-amber-50 p-3 text-sm dark:bg-amber-950";
/// Any other event in a list of events.
pub const EVENT_NORMAL: &str = "rounded border-l-4 border-slate-300 bg-white p-3 text-sm dark:border-slate-600 dark:bg-slate-900";

/// The shape of a badge; [`badge`] gives its colours.
pub const BADGE: &str = "rounded-full px-2 py-0.5 font-medium";

/// Colours of a phase badge: green when running, amber while changing, red when going away.
pub fn badge(phase: kluster::KlusterPhase) -> &'static str {
    match phase {
        kluster::KlusterPhase::Running => {
            "bg-emerald-100 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-200"
        }
        kluster::KlusterPhase::Terminating => {
            "bg-red-100 text-red-800 dark:bg-red-900 dark:text-red-200"
        }
        _ => "bg-amber-100 text-amber-800 dark:bg-amber-900 dark:text-amber-200",
    }
}

/// The classes of a phase badge of `size` (`text-xs` in tables, `text-sm` in headings).
pub fn phase_badge(phase: kluster::KlusterPhase, size: &str) -> String {
    format!("{BADGE} {size} {}", badge(phase))
}
