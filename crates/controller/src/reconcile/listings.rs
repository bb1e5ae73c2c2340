//! Each project's last full server listing ([`Listings`]), so that an idle project's look
//! asks the cloud only whether anything changed since (`Cloud::changed_since`: one brief
//! Nova request, no Neutron behind it) instead of listing every server in detail. The
//! listing is taken again when the answer is yes, when the cloud cannot tell, and at least
//! every [`FULL_AT_LEAST`] (`controller_full_listing_seconds`) as a safety net (a change the question missed: a clock of
//! Nova's more than [`CLOCK_MARGIN`] behind this one).

use std::collections::HashMap;
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
    wall: OffsetDateTime,
    servers: Vec<Server>,
}

/// The projects' last full server listings.
#[derive(Debug, Default)]
pub struct Listings {
    by_project: Mutex<HashMap<String, Listing>>,
}

impl Listings {
    /// A full listing of `project`, asked at `at` (`wall` on the wall clock), answered
    /// `servers`.
    pub fn seen(&self, project: &str, at: Instant, wall: OffsetDateTime, servers: &[Server]) {
        let listing = Listing {
            at,
            wall,
            servers: servers.to_vec(),
        };
        let mut m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        m.insert(project.to_string(), listing);
    }

    /// The project's last full listing when it is younger than `max_age`: the time to ask
    /// the cloud about changes from (`CLOCK_MARGIN` before it was asked) and its servers,
    /// each older by the time since.
    pub fn recent(
        &self,
        project: &str,
        max_age: Duration,
    ) -> Option<(OffsetDateTime, Vec<Server>)> {
        let m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        let l = m.get(project)?;
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
        Some((l.wall - CLOCK_MARGIN, servers))
    }

    /// Forgets the project's listing (a look that acted on servers, or failed).
    pub fn forget(&self, project: &str) {
        let mut m = self.by_project.lock().unwrap_or_else(|e| e.into_inner());
        m.remove(project);
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
        let (since, servers) = l.recent("p", Duration::from_secs(30)).expect("recent");
        assert_eq!(since, wall - CLOCK_MARGIN);
        assert_eq!(servers[0].age, Duration::from_secs(30));
        assert!(l.recent("p", Duration::from_secs(20)).is_none());
        assert!(l.recent("other", Duration::from_secs(30)).is_none());
        l.forget("p");
        assert!(l.recent("p", Duration::from_secs(30)).is_none());
    }
}
