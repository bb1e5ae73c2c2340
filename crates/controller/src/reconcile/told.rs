//! The look-alikes already said to be left alone (`super::claim`), so that each is said
//! once per controller process rather than at every pass.

use std::collections::HashSet;
use std::sync::Mutex;

/// The most look-alikes remembered as told ([`Told`]); past it the memory starts again.
const TOLD_MOST: usize = 10_000;

/// The strangers already told of, by project, kluster uid and item id: each is said once
/// per controller process, not at every pass.
#[derive(Debug, Default)]
pub struct Told {
    said: Mutex<HashSet<(String, String, String)>>,
}

impl Told {
    /// Whether `key` was told of.
    pub fn has(&self, key: &(String, String, String)) -> bool {
        let said = self.said.lock().unwrap_or_else(|e| e.into_inner());
        said.contains(key)
    }

    /// Remembers `key` as told of.
    pub fn remember(&self, key: (String, String, String)) {
        let mut said = self.said.lock().unwrap_or_else(|e| e.into_inner());
        if said.len() >= TOLD_MOST {
            said.clear();
        }
        said.insert(key);
    }
}
