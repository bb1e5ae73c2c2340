//! Each project's last full server listing ([`Listings`]), so that an idle project's look
//! asks the cloud only whether anything changed since (`Cloud::changed_since`: one brief
//! Nova request, no Neutron behind it) instead of listing every server in detail. The
//! listing is taken again when the answer is yes, when the cloud cannot tell, and at least
//! every [`FULL_AT_LEAST`] (`controller_full_listing_seconds`) as a safety net (a change the question missed: a clock of
//! Nova's more than [`CLOCK_MARGIN`] behind this one). A server a listing showed and a
//! later one lacks is gone ([`Listings::gone`]): Nova names it as changed once more when it
//! cleans it up, minutes after its delete, which is no change to list in full for. While
//! Nova's notifications are heard (`crate::notices`) the question is not asked at all: a
//! notice forgets the listing, and a listing asked before a notice is not kept.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use time::OffsetDateTime;
use tokio::time::Instant;

use crate::cloud::Server;

/// The longest a project goes without a full listing, unless configured otherwise
/// (`controller_full_listing_seconds`).
pub const FULL_AT_LEAST: Duration = Duration::from_secs(300);

/// How far before a full listing the question reaches back (for a cloud's clock behind
/// this one's, and a change made while the listing was being answered).
pub const CLOCK_MARGIN: Duration = Duration::from_secs(60);

/// One project's last full listing: when it was asked (this clock, and the wall clock the
/// cloud is asked against) and the servers as listed, before any claim.
#[derive(Clone, Debug)]
struct Listing {
    at: Instant,
    /// The latest time the cloud confirmed that nothing changed since (at first, `at`).
    confirmed: Instant,
    wall: OffsetDateTime,
    servers: Vec<Server>,
}

/// Most projects remembered as forgotten while a listing may have been under way
/// ([`Listings::forget`]), and most projects whose servers are known ([`Listings::gone`]);
/// past it that map starts afresh (every listing is then forgotten, or asked in full).
const MAX_PROJECTS: usize = 10_000;

/// A recent listing ([`Listings::recent`]).
#[derive(Debug)]
pub struct Recent {
    /// The latest time it was known to be current: when it was asked, or when the cloud
    /// last said nothing changed since ([`Listings::confirmed`]).
    pub confirmed: Instant,
    /// The time to ask the cloud about changes from (`CLOCK_MARGIN` before it was asked).
    pub since: OffsetDateTime,
    /// Its servers, each older by the time since.
    pub servers: Vec<Server>,
}

/// The projects' last full server listings.
#[derive(Debug, Default)]
pub struct Listings {
    by_project: Mutex<Maps>,
}

#[derive(Debug, Default)]
struct Maps {
    listings: HashMap<String, Listing>,
    /// When each project's listing was last forgotten: a listing asked before that is
    /// not kept (a change was told while it was being answered).
    forgotten: HashMap<String, Instant>,
    /// The servers each project's listings showed, and those they no longer show.
    known: HashMap<String, Known>,
}

/// Most gone servers remembered per project.
const GONE_KEPT: usize = 256;

/// A project's servers as its full listings showed them.
#[derive(Debug, Default)]
struct Known {
    /// The ids in the last full listing.
    last: HashSet<String>,
    /// Ids a listing showed and a later one did not (deleted), oldest first.
    gone: VecDeque<String>,
}

impl Known {
    /// Takes the ids of a new full listing.
    fn listed(&mut self, servers: &[Server]) {
        let now: HashSet<String> = servers.iter().map(|s| s.id.clone()).collect();
        self.gone.retain(|id| !now.contains(id));
        for id in self.last.difference(&now) {
            if self.gone.len() >= GONE_KEPT {
                self.gone.pop_front();
            }
            self.gone.push_back(id.clone());
        }
        self.last = now;
    }
}

impl Listings {
    /// A full listing of `project`, asked at `at` (`wall` on the wall clock), answered
    /// `servers`.
    pub fn seen(&self, project: &str, at: Instant, wall: OffsetDateTime, servers: &[Server]) {
        let listing = Listing {
            at,
            confirmed: at,
            wall,
            servers: servers.to_vec(),
        };
        let mut m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        if m.known.len() >= MAX_PROJECTS && !m.known.contains_key(project) {
            m.known.clear();
        }
        m.known
            .entry(project.to_string())
            .or_default()
            .listed(servers);
        if let Some(&forgotten) = m.forgotten.get(project) {
            if forgotten >= at {
                return;
            }
            m.forgotten.remove(project);
        }
        m.listings.insert(project.to_string(), listing);
    }

    /// The project's last full listing when it is younger than `max_age`.
    pub fn recent(&self, project: &str, max_age: Duration) -> Option<Recent> {
        let m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        let l = m.listings.get(project)?;
        let since = l.at.elapsed();
        if since >= max_age {
            return None;
        }
        let servers = l
            .servers
            .iter()
            .cloned()
            .map(|mut s| {
                s.age += since;
                s
            })
            .collect();
        Some(Recent {
            confirmed: l.confirmed,
            since: l.wall - CLOCK_MARGIN,
            servers,
        })
    }

    /// Whether server `id` of `project` was in a full listing and a later one lacked it
    /// (it was deleted: Nova names deleted servers as changed when it cleans them up).
    pub fn gone(&self, project: &str, id: &str) -> bool {
        let m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        m.known
            .get(project)
            .is_some_and(|k| k.gone.iter().any(|g| g == id))
    }

    /// The cloud said, when asked at `asked`, that none of the project's servers changed
    /// since its listing: the listing is as good as one taken then.
    pub fn confirmed(&self, project: &str, asked: Instant) {
        let mut m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = m.listings.get_mut(project) {
            l.confirmed = l.confirmed.max(asked);
        }
    }

    /// Forgets the project's listing (a look that acted on servers, or failed, or a
    /// notification told of a change), and any listing being answered now.
    pub fn forget(&self, project: &str) {
        let mut m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        m.listings.remove(project);
        if m.forgotten.len() >= MAX_PROJECTS {
            m.listings.clear();
            m.forgotten.clear();
        }
        m.forgotten.insert(project.to_string(), Instant::now());
    }

    /// Forgets every project's listing (notifications were missed).
    pub fn clear(&self) {
        let mut m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        let known = std::mem::take(&mut m.known);
        *m = Maps {
            known,
            ..Maps::default()
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cloud::ServerStatus;

    #[tokio::test(start_paused = true)]
    async fn a_listing_is_recent_until_its_age_and_ages_its_servers() {
        let l = Listings::default();
        let wall = OffsetDateTime::now_utc();
        let server = Server {
            id: "s1".into(),
            name: "kks-k-a-x".into(),
            kluster: "k".into(),
            uid: None,
            status: ServerStatus::Active,
            node: None,
            age: Duration::from_secs(10),
            fault: None,
        };
        l.seen("p", Instant::now(), wall, &[server]);
        tokio::time::advance(Duration::from_secs(20)).await;
        let r = l.recent("p", Duration::from_secs(30)).expect("recent");
        assert_eq!(r.since, wall - CLOCK_MARGIN);
        assert_eq!(r.servers[0].age, Duration::from_secs(30));
        assert!(l.recent("p", Duration::from_secs(20)).is_none());
        assert!(l.recent("other", Duration::from_secs(30)).is_none());
        let asked = Instant::now();
        l.confirmed("p", asked);
        let r = l.recent("p", Duration::from_secs(30)).expect("recent");
        assert_eq!(
            (r.confirmed, r.servers[0].age),
            (asked, Duration::from_secs(30))
        );
        l.forget("p");
        assert!(l.recent("p", Duration::from_secs(30)).is_none());
    }

    #[test]
    fn a_server_a_later_listing_lacks_is_gone_until_it_shows_again() {
        let l = Listings::default();
        let wall = OffsetDateTime::now_utc();
        let s = |id: &str| Server {
            id: id.into(),
            name: String::new(),
            kluster: "k".into(),
            uid: None,
            status: ServerStatus::Active,
            node: None,
            age: Duration::ZERO,
            fault: None,
        };
        l.seen("p", Instant::now(), wall, &[s("a"), s("b")]);
        assert!(!l.gone("p", "a"));
        l.forget("p"); // what is known of the servers outlives a forgotten listing
        l.seen("p", Instant::now(), wall, &[s("b")]);
        assert!(l.gone("p", "a"));
        assert!(!l.gone("p", "b") && !l.gone("p", "never-listed") && !l.gone("q", "a"));
        l.seen("p", Instant::now(), wall, &[s("a"), s("b")]);
        assert!(!l.gone("p", "a"), "listed again");
    }

    #[tokio::test(start_paused = true)]
    async fn a_listing_asked_before_a_change_was_told_is_not_kept() {
        let l = Listings::default();
        let wall = OffsetDateTime::now_utc();
        let asked = Instant::now();
        tokio::time::advance(Duration::from_millis(5)).await;
        l.forget("p"); // a notification while the listing was being answered
        l.seen("p", asked, wall, &[]);
        assert!(l.recent("p", Duration::from_secs(30)).is_none());
        tokio::time::advance(Duration::from_millis(5)).await;
        l.seen("p", Instant::now(), wall, &[]);
        assert!(l.recent("p", Duration::from_secs(30)).is_some());
        l.clear();
        assert!(l.recent("p", Duration::from_secs(30)).is_none());
    }
}
