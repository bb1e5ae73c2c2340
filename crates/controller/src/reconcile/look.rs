//! What a project's pass asks the cloud ([`Ctx::look`]): routers for Pending klusters,
//! the servers (a listing checked against the ids the store knows), and, for Terminating
//! klusters, the resources their workloads left — only when one of them can act on them.

use kluster::{Kluster, KlusterPhase};
use time::OffsetDateTime;
use tokio::time::Instant;

use super::context::{Ctx, Seen};
use super::{claim, launch};
use crate::cloud::{CloudError, PodRange, Resource, Server, ServerStatus, CHANGES_AT_MOST};
use crate::store;

impl Ctx<'_> {
    /// Asks the cloud what this project's klusters need to know, and nothing more.
    pub(super) async fn look(&self, group: &[store::Observed]) -> Seen {
        let project = self.project;
        let has =
            |f: fn(KlusterPhase) -> bool| group.iter().any(|o| f(o.stored.kluster.status.phase));
        let failed = |what: &str, e: &CloudError| {
            tracing::warn!(controller = "reconcile", project, error = %e, "cloud {what} failed");
        };
        // The lookups go out together (a pass waits for the slowest, not their sum), but
        // when every Terminating kluster's nodes are going: then the resources are asked
        // for after the servers, and only if a kluster can act on them.
        let routers = async {
            if !has(|p| p == KlusterPhase::Pending) {
                return Some(Vec::new());
            }
            match self.call(self.cloud().routers(project)).await {
                Ok(routers) => Some(routers),
                Err(e) => {
                    failed("router listing", &e);
                    None
                }
            }
        };
        // Creating too: a kluster reaching Running in this pass is launched in it.
        let servers = async {
            match has(|p| p != KlusterPhase::Pending) {
                true => self.servers(group).await,
                false => Some(Vec::new()),
            }
        };
        let resources = self.resources(group);
        let terminating: Vec<&store::Observed> = group
            .iter()
            .filter(|o| o.stored.kluster.status.phase == KlusterPhase::Terminating)
            .collect();
        if terminating.is_empty() {
            let (routers, servers) = tokio::join!(routers, servers);
            return Seen {
                routers,
                servers,
                resources: Some(Vec::new()),
                waiting_for_nodes: false,
            };
        }
        // A kluster whose servers the store still knows deletes them in this pass, and its
        // load balancers and routes with them. Otherwise their nodes are going: while every
        // kluster of the group only waits for them, their ids are enough.
        let recorded = terminating.iter().any(|o| !o.servers.is_empty());
        let brief = match recorded || group.len() != terminating.len() {
            true => Brief::Unsure,
            false => self.still_going(&terminating).await,
        };
        if let Brief::Waiting(seen) = brief {
            return seen;
        }
        // Everything is listed together for the deletes, and once the ids show the nodes
        // gone (what follows them needs the resources, and no longer competes with them).
        if recorded || matches!(brief, Brief::Gone) {
            let (routers, servers, resources) = tokio::join!(routers, servers, resources);
            self.remember_going(&terminating, servers.as_deref());
            return Seen {
                routers,
                servers,
                resources,
                waiting_for_nodes: false,
            };
        }
        // The resources matter once a kluster's nodes are gone (or one is not going);
        // listing them while the cloud deletes the nodes would only slow it down. A load
        // balancer or route the first pass could not list or delete is tried again then,
        // with the volumes.
        let (routers, servers) = tokio::join!(routers, servers);
        let acts = servers.as_deref().is_some_and(|list| {
            terminating.iter().any(|o| {
                let name = &o.stored.kluster.name;
                let mut nodes = list.iter().filter(|s| &s.kluster == name).peekable();
                nodes.peek().is_none() || nodes.any(|s| s.status != ServerStatus::Deleting)
            })
        });
        self.remember_going(&terminating, servers.as_deref());
        let (resources, waiting_for_nodes) = match acts {
            true => (resources.await, false),
            false => (None, servers.is_some()),
        };
        Seen {
            routers,
            servers,
            resources,
            waiting_for_nodes,
        }
    }

    /// The resources the project's klusters left (`None`: the cloud did not answer).
    /// Each is claimed for the kluster that owns it ([`claim`]).
    pub(super) async fn resources(&self, group: &[store::Observed]) -> Option<Vec<Resource>> {
        let ranges = pod_ranges(group);
        match self
            .call(self.cloud().resources(self.project, &ranges))
            .await
        {
            Ok(mut r) => {
                let strangers = claim::resources(group, &mut r);
                self.tell_or_log(group, &strangers).await;
                Some(r)
            }
            Err(e) => {
                let project = self.project;
                tracing::warn!(controller = "reconcile", project, error = %e, "cloud resource listing failed");
                None
            }
        }
    }

    /// Remembers, from a full listing (`None`: none answered), the Terminating klusters
    /// whose nodes are all going, for the next looks ([`super::going`]).
    pub(super) fn remember_going(
        &self,
        terminating: &[&store::Observed],
        servers: Option<&[Server]>,
    ) {
        for o in terminating {
            let name = o.stored.kluster.name.as_str();
            let nodes: Vec<Server> = servers
                .into_iter()
                .flatten()
                .filter(|s| s.kluster == name)
                .cloned()
                .collect();
            let going =
                !nodes.is_empty() && nodes.iter().all(|s| s.status == ServerStatus::Deleting);
            match going {
                true => self.departing.seen(self.project, name, nodes),
                false => self.departing.forget(self.project, name),
            }
        }
    }

    /// Every kluster of `terminating` (the whole group) only waits for its nodes, as a full
    /// listing showed them going not long ago: the cloud is asked for their ids alone, and
    /// while those are all ones that were going, that is what is seen.
    async fn still_going(&self, terminating: &[&store::Observed]) -> Brief {
        let project = self.project;
        let mut known = Vec::new();
        for o in terminating {
            let name = o.stored.kluster.name.as_str();
            match self.departing.recent(project, name) {
                Some(nodes) => known.push((*o, nodes)),
                None => return Brief::Unsure,
            }
        }
        let asks = known.iter().map(|(o, _)| async move {
            let owner = claim::owner_of(&o.stored.kluster);
            self.call(self.cloud().kluster_servers_brief(project, owner))
                .await
                .ok()
        });
        let answers = futures_util::future::join_all(asks).await;
        let mut servers = Vec::new();
        let mut gone = false;
        for ((_, nodes), listed) in known.into_iter().zip(answers) {
            let Some(listed) = listed else {
                return Brief::Unsure;
            };
            let ids: Vec<String> = listed.into_iter().map(|s| s.id).collect();
            let going = |id: &String| nodes.iter().any(|s| &s.id == id);
            if !ids.iter().all(going) {
                return Brief::Unsure;
            }
            gone |= ids.is_empty();
            servers.extend(nodes.into_iter().filter(|s| ids.contains(&s.id)));
        }
        if gone {
            return Brief::Gone;
        }
        Brief::Waiting(Seen {
            routers: Some(Vec::new()),
            servers: Some(servers),
            resources: None,
            waiting_for_nodes: true,
        })
    }

    /// The project's servers. A listing never stands alone for servers the store knows:
    /// each recorded server it lacks is looked up by id and taken as the lookup shows it
    /// (gone only when the lookup says so), however many listings in a row come back
    /// short. A listing that still lacks servers a pool's status counted (klusters whose
    /// ids are not recorded yet) is confirmed by listing again before anything acts on it.
    /// Each is claimed for the kluster that owns it ([`claim`]).
    pub(super) async fn servers(&self, group: &[store::Observed]) -> Option<Vec<Server>> {
        if let Some(mut list) = self.unchanged(group).await {
            let strangers = claim::servers(group, &mut list);
            self.tell_or_log(group, &strangers).await;
            return Some(list);
        }
        let project = self.project;
        let klusters: Vec<&Kluster> = group.iter().map(|o| &o.stored.kluster).collect();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let (at, wall) = (Instant::now(), OffsetDateTime::now_utc());
            let listed = match self.call(self.cloud().servers(project)).await {
                Ok(list) => self.complete(group, list).await,
                Err(e) => Err(e),
            };
            let listed = match listed {
                Ok(raw) => {
                    let mut list = raw.clone();
                    let strangers = claim::servers(group, &mut list);
                    self.tell_or_log(group, &strangers).await;
                    Ok((raw, list))
                }
                Err(e) => Err(e),
            };
            match listed {
                Ok((_, list)) if attempt == 1 && launch::needs_confirmation(&klusters, &list) => {
                    tracing::warn!(
                        controller = "launch",
                        project,
                        listed = list.len(),
                        "the server listing lacks servers recorded before; listing again before acting"
                    );
                }
                Ok((raw, list)) => {
                    self.listings.seen(project, at, wall, &raw);
                    return Some(list);
                }
                Err(e) => {
                    self.listings.forget(project);
                    tracing::warn!(controller = "launch", project, error = %e, "cloud server listing failed");
                    return None;
                }
            }
        }
    }

    /// The project's last full listing (`super::listings`), unclaimed, when it is recent,
    /// holds every server the store recorded for `group`, and the cloud says no server of
    /// the project changed since: one brief request instead of a detailed listing, none
    /// while Nova's notifications have been heard throughout.
    async fn unchanged(&self, group: &[store::Observed]) -> Option<Vec<Server>> {
        let project = self.project;
        if self.full_listing_every.is_zero() {
            return None;
        }
        let recent = self.listings.recent(project, self.full_listing_every)?;
        let list = recent.servers;
        let recorded = group.iter().flat_map(|o| o.servers.iter());
        if !recorded
            .into_iter()
            .all(|id| list.iter().any(|s| &s.id == id))
        {
            return None;
        }
        // Every change since the listing was current would have been told by the bus (and
        // forgotten it).
        if self.notices.trusted_since(recent.confirmed) {
            return Some(list);
        }
        let asked = Instant::now();
        let changed = self
            .call(self.cloud().changed_since(project, recent.since))
            .await;
        // What changed counts unless it is a server deleted already: gone from the listings,
        // it is named again when Nova cleans it up, minutes later.
        let relevant = |ids: &[String]| {
            ids.len() >= CHANGES_AT_MOST
                || ids
                    .iter()
                    .any(|id| list.iter().any(|s| &s.id == id) || !self.listings.gone(project, id))
        };
        match changed {
            Ok(Some(ids)) if !relevant(&ids) => {
                // Current as of the question: a bus heard since then tells what follows.
                self.listings.confirmed(project, asked);
                Some(list)
            }
            Ok(_) => None,
            Err(e) => {
                tracing::debug!(controller = "launch", project, error = %e, "asking for changes failed; listing in full");
                None
            }
        }
    }

    /// `list` with every recorded server of a launched kluster that it lacks, looked up one
    /// by one (those the lookup does not find are gone).
    async fn complete(
        &self,
        group: &[store::Observed],
        mut list: Vec<Server>,
    ) -> Result<Vec<Server>, CloudError> {
        let missing: Vec<&String> = group
            .iter()
            .filter(|o| o.stored.kluster.status.phase != KlusterPhase::Pending)
            .flat_map(|o| o.servers.iter())
            .filter(|id| !list.iter().any(|s| &s.id == *id))
            .collect();
        let mut found = 0;
        for id in &missing {
            if let Some(s) = self.call(self.cloud().server(self.project, id)).await? {
                found += 1;
                list.push(s);
            }
        }
        if found > 0 {
            tracing::warn!(
                controller = "launch",
                project = self.project,
                lacked = found,
                "the server listing lacked servers that exist (looked up one by one); acting on them as they are"
            );
        }
        Ok(list)
    }
}

impl Ctx<'_> {
    /// [`Ctx::tell`], logging a store failure (the pass goes on: it is told next time).
    async fn tell_or_log(&self, group: &[store::Observed], strangers: &[claim::Stranger]) {
        if let Err(e) = self.tell(group, strangers).await {
            let project = self.project;
            tracing::warn!(controller = "reconcile", project, error = %e, "recording what is left alone failed");
        }
    }
}

/// What asking for the ids of going nodes told ([`Ctx::look`]).
enum Brief {
    /// Every kluster's nodes are still going, as seen.
    Waiting(Seen),
    /// A kluster's nodes are all gone.
    Gone,
    /// Not asked, or not all of them going: list in full.
    Unsure,
}

/// The pod ranges of the klusters in `group` whose router is known: routes into them are
/// theirs (`cloud::PodRange`).
fn pod_ranges(group: &[store::Observed]) -> Vec<PodRange> {
    group
        .iter()
        .map(|o| &o.stored.kluster)
        .filter_map(|k| {
            let router = &k.spec.openstack.router_id;
            let cidr = k.spec.cluster_cidr.as_ref()?;
            (!router.is_empty()).then(|| PodRange {
                kluster: k.name.clone(),
                uid: claim::owner_of(k).uid.to_string(),
                router: router.clone(),
                cidr: cidr.clone(),
            })
        })
        .collect()
}
