//! The create form's state, shared by its parts: the values as typed, which fields were
//! touched, the server's verdict on the last submission, and the API's rules applied live.

use std::collections::HashSet;

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{KlusterForm, PoolForm};

/// Everything the parts of the create form read and change (cheap to copy).
#[derive(Clone, Copy, Debug)]
pub struct FormState {
    /// The form as typed.
    pub form: RwSignal<KlusterForm>,
    /// Fields the user has edited (their rule messages show).
    touched: RwSignal<HashSet<String>>,
    /// The server's verdict on the last submission, until a field is edited.
    pub server_error: RwSignal<Option<AppError>>,
    /// The API's rules applied to the form as it is now.
    client_errors: Memo<Vec<kluster::FieldError>>,
    /// What the cloud offers: flavors, zones, routers, key pairs, security groups.
    pub meta: StoredValue<kluster::OpenstackMetadata>,
}

impl FormState {
    /// The state of a form starting at `initial`, showing `server_error` (a rejected plain
    /// form post) until a field is edited.
    pub fn new(
        initial: KlusterForm,
        server_error: Option<AppError>,
        meta: kluster::OpenstackMetadata,
    ) -> Self {
        let form = RwSignal::new(initial);
        Self {
            form,
            touched: RwSignal::new(HashSet::new()),
            server_error: RwSignal::new(server_error),
            client_errors: Memo::new(move |_| {
                form.with(|f| f.to_kluster().err().map(|e| e.0).unwrap_or_default())
            }),
            meta: StoredValue::new(meta),
        }
    }

    /// The message for `field` (a JSON path such as `spec.nodePools[0].size`): the
    /// server's, else the rule's once the field was touched.
    pub fn error_for(self, field: &str) -> Option<String> {
        let server = self
            .server_error
            .with(|e| e.as_ref().and_then(|e| e.for_field(field)));
        server.or_else(|| {
            self.touched
                .with(|t| t.contains(field))
                .then(|| {
                    self.client_errors.with(|errs| {
                        errs.iter()
                            .find(|e| e.field == field)
                            .map(|e| e.message.clone())
                    })
                })
                .flatten()
        })
    }

    /// The first message for an item of the list at `list` (e.g. `spec.nodePools[0].labels`
    /// for `…labels[1]`), naming the item's field: the server's, else the rules' once the
    /// list was touched.
    pub fn error_in_list(self, list: &str) -> Option<String> {
        let item = |f: &str| f.strip_prefix(list).is_some_and(|r| r.starts_with('['));
        let first = |errs: &[kluster::FieldError]| {
            errs.iter()
                .find(|e| item(&e.field))
                .map(|e| format!("{}: {}", e.field, e.message))
        };
        let server = self.server_error.with(|e| match e {
            Some(AppError::Invalid(errs)) => first(errs),
            _ => None,
        });
        server.or_else(|| {
            self.touched
                .with(|t| t.contains(list))
                .then(|| self.client_errors.with(|errs| first(errs)))
                .flatten()
        })
    }

    /// Marks `field` as edited: the rules' live verdict replaces the server's.
    pub fn touch(self, field: &str) {
        let field = field.to_string();
        self.touched.update(|t| {
            t.insert(field);
        });
        if self.server_error.with_untracked(Option::is_some) {
            self.server_error.set(None);
        }
    }

    /// Before the form is sent: `false` (and every broken field marked) while the rules
    /// find problems; else the old verdict is cleared and it may go.
    pub fn ready_to_submit(self) -> bool {
        // A form the page has since dropped has nothing to check.
        let Some(errs) = self.client_errors.try_get_untracked() else {
            return true;
        };
        if errs.is_empty() {
            self.server_error.set(None);
            return true;
        }
        // An item's error shows under its list (`…labels[1]` under `…labels`).
        self.touched.update(|t| {
            for e in errs {
                if let Some((list, _)) = e.field.rsplit_once('[') {
                    t.insert(list.to_string());
                }
                t.insert(e.field);
            }
        });
        false
    }
}

/// Pool number `n` (from 0) as the form first offers it: the first flavor and zone, the
/// API's default image (else the cloud's first), the flavor's own disk, two nodes, reboot
/// and replace as the API defaults them, no labels or taints.
pub fn default_pool(meta: &kluster::OpenstackMetadata, n: usize) -> PoolForm {
    PoolForm {
        name: if n == 0 {
            "pool".into()
        } else {
            format!("pool{}", n + 1)
        },
        flavor: meta
            .flavors
            .first()
            .map(|f| f.name.clone())
            .unwrap_or_default(),
        availability_zone: meta
            .availability_zones
            .first()
            .map(|z| z.name.clone())
            .unwrap_or_default(),
        image: match meta.images.iter().any(|i| i == kluster::defaults::IMAGE) {
            true => kluster::defaults::IMAGE.into(),
            false => meta.images.first().cloned().unwrap_or_default(),
        },
        size: "2".into(),
        allow_reboot: kluster::defaults::ALLOW_REBOOT.then(|| "on".into()),
        allow_replace: kluster::defaults::ALLOW_REPLACE.then(|| "on".into()),
        ..Default::default()
    }
}
