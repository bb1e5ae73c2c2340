//! The hubs of live feeds, one per Kubernikus API: the configured one, or, with regions
//! from the catalog, one per region's controller (made when its first browser comes).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::ssr::ControllerClient;

use super::hub::{lock, Hub};

/// The most hubs kept: one per region of the catalogs seen (Keystone's and trusted, but
/// bounded all the same); past it a browser's stream is refused in words.
pub const MAX_HUBS: usize = 64;

/// Every hub, by its controller's base URL.
pub struct Hubs {
    /// The configured controller's.
    first: Arc<Hub>,
    /// The regions' controllers', by base URL.
    regional: Mutex<HashMap<String, Arc<Hub>>>,
}

impl std::fmt::Debug for Hubs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hubs")
            .field("first", &self.first)
            .finish_non_exhaustive()
    }
}

impl Hubs {
    /// The hubs over `api` (see [`super::hub`] for the other arguments); regions' hubs get
    /// the same bounds.
    pub fn new(
        api: ControllerClient,
        max_streams: usize,
        poll_every: Duration,
        stop: serving::shutdown::Shutdown,
    ) -> Arc<Hubs> {
        Arc::new(Hubs {
            first: super::hub(api, max_streams, poll_every, stop),
            regional: Mutex::default(),
        })
    }

    /// The hub for the controller `api` calls: the configured one's, or its region's
    /// (made now if it is the first browser there); `None` past [`MAX_HUBS`].
    pub fn for_api(&self, api: &ControllerClient) -> Option<Arc<Hub>> {
        if api.base() == self.first.api.base() {
            return Some(self.first.clone());
        }
        let mut regional = lock(&self.regional);
        if let Some(h) = regional.get(api.base()) {
            return Some(h.clone());
        }
        if regional.len() >= MAX_HUBS {
            return None;
        }
        let first = &self.first;
        let hub = super::hub(
            first.api.at(api.base()),
            first.max_streams,
            first.poll_every,
            first.stop.clone(),
        );
        regional.insert(api.base().to_string(), hub.clone());
        Some(hub)
    }

    /// Open browser streams and upstream feeds by state, over every hub (for the metrics).
    pub fn counts(&self) -> (usize, [(&'static str, usize); 3]) {
        let mut hubs = vec![self.first.clone()];
        hubs.extend(lock(&self.regional).values().cloned());
        let (mut streams, mut states) = self.first.counts();
        for h in &hubs[1..] {
            let (s, by_state) = h.counts();
            streams += s;
            for (total, (_, n)) in states.iter_mut().zip(by_state) {
                total.1 += n;
            }
        }
        (streams, states)
    }
}
