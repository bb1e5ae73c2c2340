//! The projects each token may switch to, remembered for a minute: every page's header shows
//! the project switcher, and asking Keystone (`GET /v3/auth/projects`) on each page view
//! cost more than the rest of the page. Keyed by a hash of the token, never the token.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::model::ProjectChoice;
use crate::ssr::Clock;

/// How long a token's project list is reused. A role granted or taken away in Keystone
/// shows in the switcher at most this much later (switching itself is always checked by
/// Keystone).
pub const PROJECT_LIST_TTL: Duration = Duration::from_secs(60);

/// At most this many tokens' lists are kept; past it the oldest list is dropped.
pub const PROJECT_LISTS_MAX: usize = 10_000;

/// Recent project lists per token (by hash).
#[derive(Debug, Default)]
pub struct ProjectLists {
    lists: Mutex<HashMap<u64, (Instant, Vec<ProjectChoice>)>>,
}

impl ProjectLists {
    /// The list remembered for `token_key` if it is younger than [`PROJECT_LIST_TTL`].
    pub fn get(&self, token_key: u64, clock: &Clock) -> Option<Vec<ProjectChoice>> {
        let lists = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        lists
            .get(&token_key)
            .filter(|(at, _)| clock.since(*at) < PROJECT_LIST_TTL)
            .map(|(_, list)| list.clone())
    }

    /// Remembers `list` for `token_key`, dropping lists past their age and, over the bound,
    /// the oldest one.
    pub fn put(&self, token_key: u64, list: Vec<ProjectChoice>, clock: &Clock) {
        let now = clock.instant();
        let mut lists = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        if lists.len() >= PROJECT_LISTS_MAX {
            lists.retain(|_, (at, _)| now.saturating_duration_since(*at) < PROJECT_LIST_TTL);
        }
        if lists.len() >= PROJECT_LISTS_MAX {
            if let Some(oldest) = lists.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| *k) {
                lists.remove(&oldest);
            }
        }
        lists.insert(token_key, (now, list));
    }

    /// How many lists are held.
    pub fn len(&self) -> usize {
        self.lists.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// True when no list is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The key a token's entries are kept under in the dashboard's in-memory caches (a hash;
/// the token itself is never a key).
pub fn token_key(token: &keystone::TokenSecret) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    token.expose().hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(name: &str) -> Vec<ProjectChoice> {
        vec![ProjectChoice {
            id: format!("{name}-id"),
            name: name.into(),
        }]
    }

    #[test]
    fn a_list_is_reused_for_a_minute_then_asked_again() {
        let clock = Clock::manual();
        let lists = ProjectLists::default();
        assert_eq!(lists.get(1, &clock), None);
        lists.put(1, list("demo"), &clock);
        assert_eq!(lists.get(1, &clock), Some(list("demo")));
        assert_eq!(lists.get(2, &clock), None, "another token has its own list");
        clock.advance(PROJECT_LIST_TTL - Duration::from_secs(1));
        assert_eq!(lists.get(1, &clock), Some(list("demo")));
        clock.advance(Duration::from_secs(1));
        assert_eq!(
            lists.get(1, &clock),
            None,
            "a minute old: ask Keystone again"
        );
    }

    #[test]
    fn the_cache_is_bounded() {
        let clock = Clock::manual();
        let lists = ProjectLists::default();
        for k in 0..PROJECT_LISTS_MAX as u64 {
            lists.put(k, list("p"), &clock);
        }
        clock.advance(Duration::from_millis(1));
        lists.put(u64::MAX, list("new"), &clock);
        assert_eq!(lists.len(), PROJECT_LISTS_MAX);
        assert_eq!(lists.get(u64::MAX, &clock), Some(list("new")));
        // Past their age, the old lists make room all at once.
        clock.advance(PROJECT_LIST_TTL);
        lists.put(7, list("later"), &clock);
        assert_eq!(lists.len(), 1);
    }
}
