//! The first pass after a delete ([`Ctx::look_after_deletes`]). When every kluster of the
//! project is Terminating and the store knows servers of one, their deletes go out first,
//! with the resource listing beside them, and only then is Nova asked for the klusters'
//! servers, by id and name alone (`Cloud::kluster_servers_brief`). If it accepted every
//! delete and lists no other server of theirs (but nodes seen going a moment ago), those
//! it lists are going: no detailed
//! listing queues in front of the deletes or of their own work (a detailed listing makes
//! Nova ask Neutron for the servers' security groups, while Neutron deletes their ports;
//! on the test cloud, Neutron's API is one thread and Nova's two processes). Otherwise,
//! or when a kluster's brief listing is empty (a server whose tags were taken off would
//! not be in it), the servers are listed in full, as [`Ctx::look`] does.

use std::time::Duration;

use futures_util::future::join_all;
use kluster::KlusterPhase;

use super::context::{Ctx, Seen};
use super::deorbit::{self, Sent};
use crate::cloud::{Server, ServerStatus};
use crate::store;

impl Ctx<'_> {
    /// Whether a pass over `group` takes this path: every kluster Terminating, and the
    /// store knowing servers of one of them.
    pub(super) fn sends_first(group: &[store::Observed]) -> bool {
        let terminating =
            |o: &store::Observed| o.stored.kluster.status.phase == KlusterPhase::Terminating;
        group.iter().all(terminating) && group.iter().any(|o| !o.servers.is_empty())
    }

    /// Sends the deletes of the servers the store knows ([`deorbit::send_first`]) and
    /// lists the resources meanwhile; then looks at the servers, briefly when it can.
    pub(super) async fn look_after_deletes(&self, group: &[store::Observed]) -> (Seen, Sent) {
        let (sent, resources) =
            tokio::join!(deorbit::send_first(group, self), self.resources(group));
        let terminating: Vec<&store::Observed> = group.iter().collect();
        let servers = match self.accepted(&terminating, &sent).await {
            Some(going) => Some(going),
            None => self.servers(group).await,
        };
        self.remember_going(&terminating, servers.as_deref());
        let seen = Seen {
            routers: Some(Vec::new()),
            servers,
            resources,
            waiting_for_nodes: false,
        };
        (seen, sent)
    }

    /// The servers of `terminating`, all going, from their brief listings: when the cloud
    /// accepted the delete of every server the store knows of them, and lists only servers
    /// whose delete it accepted, and some of each kluster. `None` otherwise.
    async fn accepted(&self, terminating: &[&store::Observed], sent: &Sent) -> Option<Vec<Server>> {
        let project = self.project;
        let mut going = Vec::new();
        for o in terminating {
            let name = o.stored.kluster.name.as_str();
            let answers = sent.get(name).map_or(&[][..], Vec::as_slice);
            let mut ok: Vec<String> = answers
                .iter()
                .filter(|(_, r)| r.is_ok())
                .map(|(id, _)| id.clone())
                .collect();
            if !o.servers.iter().all(|id| ok.contains(id)) {
                return None;
            }
            // Nodes a full listing showed going a moment ago are going too.
            let recent = self.departing.recent(project, name).unwrap_or_default();
            ok.extend(recent.into_iter().map(|s| s.id));
            going.push((*o, ok));
        }
        let asks = going.iter().map(|(o, _)| async move {
            let owner = super::claim::owner_of(&o.stored.kluster);
            let brief = self.cloud().kluster_servers_brief(project, owner);
            self.call(brief).await.ok()
        });
        let answers = join_all(asks).await;
        let mut servers = Vec::new();
        for ((o, ok), listed) in going.into_iter().zip(answers) {
            let owner = super::claim::owner_of(&o.stored.kluster);
            let listed = listed?;
            if listed.is_empty() || !listed.iter().all(|s| ok.contains(&s.id)) {
                return None;
            }
            servers.extend(listed.into_iter().map(|s| Server {
                id: s.id,
                name: s.name,
                kluster: owner.name.to_string(),
                uid: Some(owner.uid.to_string()),
                status: ServerStatus::Deleting,
                node: None,
                age: Duration::ZERO,
                fault: None,
            }));
        }
        Some(servers)
    }
}
