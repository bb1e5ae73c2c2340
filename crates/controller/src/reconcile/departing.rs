//! Klusters whose nodes were all going at the last full server listing, or whose deletes
//! the cloud accepted in the first pass after the delete (`super::delete_first`) ([`DepartingNodes`]).
//! While such a kluster only waits for them, a look asks the cloud for its servers' ids
//! alone (`Cloud::kluster_servers_brief`: Nova builds no detailed view and asks Neutron
//! nothing, so no listing queues in front of the deletes' own port deletions). It lists
//! in full again when the ids are not all ones that were going, when none is left (what
//! follows needs the full picture), or when the last full listing is [`FULL_EVERY`] old.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use crate::cloud::Server;

/// The longest a kluster's looks go without a full server listing (a node whose delete
/// failed, back from going, is deleted again after at most this long).
pub const FULL_EVERY: Duration = Duration::from_secs(5);

/// By project and kluster: when its nodes were last listed in full, all going, and those
/// nodes.
type Listed = HashMap<(String, String), (Instant, Vec<Server>)>;

/// Klusters whose nodes were all going at the last full server listing.
#[derive(Debug, Default)]
pub struct DepartingNodes {
    nodes: Mutex<Listed>,
}

impl DepartingNodes {
    /// Runs `f` on the map (a poisoned lock is taken as it is: entries are only listings).
    fn with<T>(
        &self,
        f: impl FnOnce(&mut HashMap<(String, String), (Instant, Vec<Server>)>) -> T,
    ) -> T {
        let mut nodes = self.nodes.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut nodes)
    }

    /// A full listing showed kluster `kluster`'s nodes, all going.
    pub fn seen(&self, project: &str, kluster: &str, nodes: Vec<Server>) {
        let key = (project.to_string(), kluster.to_string());
        self.with(|m| m.insert(key, (Instant::now(), nodes)));
    }

    /// The kluster's going nodes, when a full listing showed them less than
    /// [`FULL_EVERY`] ago.
    pub fn recent(&self, project: &str, kluster: &str) -> Option<Vec<Server>> {
        let key = (project.to_string(), kluster.to_string());
        self.with(|m| {
            let (at, nodes) = m.get(&key)?;
            (at.elapsed() < FULL_EVERY).then(|| nodes.clone())
        })
    }

    /// Forgets the kluster (a full listing showed it acting, or it was removed).
    pub fn forget(&self, project: &str, kluster: &str) {
        let key = (project.to_string(), kluster.to_string());
        self.with(|m| m.remove(&key));
    }
}
