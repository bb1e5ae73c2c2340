//! What a tenant has typed into a pool's settings form and not saved yet, kept by the page
//! rather than by the card. The page draws its body again whenever the kluster changes (a
//! live update, a save): state made inside the card would be dropped with the old drawing
//! while its form is still on screen and in use (typed text lost, a submit check reading
//! state that is gone). One draft per pool, made in the page's own scope on first use.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::kluster_edit::PoolOptions;
use crate::server_fns::EditKluster;

/// One pool's unsaved form: `None` where the form shows the pool's saved value.
#[derive(Clone, Copy)]
pub struct PoolDraft {
    /// Labels as typed.
    pub labels: RwSignal<Option<String>>,
    /// Taints as typed.
    pub taints: RwSignal<Option<String>>,
    /// Whether anything was typed or sent since the last save (errors then come from the
    /// browser's check, not the server's last answer).
    pub touched: RwSignal<bool>,
    /// Whether the form is open.
    pub open: RwSignal<bool>,
}

/// The page's drafts by pool name.
#[derive(Clone, Copy)]
pub struct PoolDrafts {
    owner: StoredValue<Option<Owner>>,
    drafts: StoredValue<HashMap<String, PoolDraft>>,
    /// The pool whose form was sent last (its draft is cleared when the save succeeds).
    sent: StoredValue<Option<String>>,
}

impl PoolDrafts {
    /// Drafts kept for the life of the current scope (the page), cleared per pool when
    /// `edit` saves that pool's form.
    pub fn new(edit: ServerAction<EditKluster>) -> Self {
        let drafts = Self {
            owner: StoredValue::new(Owner::current()),
            drafts: StoredValue::new(HashMap::new()),
            sent: StoredValue::new(None),
        };
        Effect::new(move |_| {
            let Some(result) = edit.value().get() else {
                return;
            };
            let Some(pool) = drafts.sent.try_update_value(Option::take).flatten() else {
                return;
            };
            let draft = drafts.drafts.with_value(|m| m.get(&pool).copied());
            if let (Ok(_), Some(d)) = (result, draft) {
                d.labels.set(None);
                d.taints.set(None);
                d.touched.set(false);
            }
        });
        drafts
    }

    /// Pool `pool`'s draft, made on first use: open with `typed` when a plain post of it was
    /// refused (what was typed comes back), else closed and following the saved values.
    pub fn of(self, pool: &str, typed: Option<&PoolOptions>) -> PoolDraft {
        if let Some(d) = self.drafts.with_value(|m| m.get(pool).copied()) {
            return d;
        }
        let make = || PoolDraft {
            labels: RwSignal::new(typed.map(|t| t.labels.clone())),
            taints: RwSignal::new(typed.map(|t| t.taints.clone())),
            touched: RwSignal::new(false),
            open: RwSignal::new(typed.is_some()),
        };
        let d = match self.owner.get_value() {
            Some(owner) => owner.with(make),
            None => make(),
        };
        self.drafts.update_value(|m| {
            m.insert(pool.to_string(), d);
        });
        d
    }

    /// Notes that pool `pool`'s form is being sent.
    pub fn sending(self, pool: &str) {
        self.sent.set_value(Some(pool.to_string()));
    }
}
