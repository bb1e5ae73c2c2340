//! Which kluster owns what the cloud listed (`cloud::owner`): an item carrying a kluster's
//! uid is that kluster's; one carrying only a kluster's bare name is its only when the store
//! recorded it by id (servers made before uids marked them), or when it is a server being
//! deleted (a node made before uids, whose delete took it off the record: while it goes the
//! kluster waits for it, and nothing is done to a server that is going); anything else carrying the name
//! is left alone and said so once (`super::told`): a tenant's server tagged `kluster=<name>`, a
//! load balancer of a cloud controller manager left at its default cluster name, what an
//! earlier kluster of the same name left. After the claim a listed item's `kluster` is its
//! owner's name, or empty: nothing downstream matches on a bare name again.

use kluster::{EventReason, Kluster};

use super::context::Ctx;
use crate::cloud::{Owner, Resource, ResourceKind, Server, ServerStatus};
use crate::store::{self, StoreError};

/// Kluster `k` as the marks on its cloud resources name it.
pub fn owner_of(k: &Kluster) -> Owner<'_> {
    Owner {
        name: &k.name,
        uid: k.metadata.as_ref().map_or("", |m| m.uid.as_str()),
    }
}

/// A listed item that carries the name of kluster `kluster` of the group but is not its.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stranger {
    /// The kluster whose name it carries.
    pub kluster: String,
    /// The item's id.
    pub id: String,
    /// What it is, for the event: "server my-vm".
    pub what: String,
    /// It carries another uid: an earlier kluster of the same name made it.
    pub earlier: bool,
}

/// Whose an item with marks (`name`, `uid`) is among `group`: the owner's name, or the
/// stranger's verdict (`Some(earlier)` when it carries a group kluster's name). `recorded`:
/// whether the store recorded the item's id for a kluster.
fn owner(
    group: &[store::Observed],
    name: &str,
    uid: Option<&str>,
    recorded: impl Fn(&store::Observed) -> bool,
) -> Result<String, Option<bool>> {
    let named = group.iter().find(|o| o.stored.kluster.name == name);
    let owner = |o: &store::Observed| owner_of(&o.stored.kluster).uid.to_string();
    match uid {
        Some(u) => match group.iter().find(|o| owner(o) == u) {
            Some(o) => Ok(o.stored.kluster.name.clone()),
            None => Err(named.map(|_| true)),
        },
        None => match named {
            // A kluster without a uid (made outside the store) goes by its name.
            Some(o) if owner(o).is_empty() || recorded(o) => Ok(name.to_string()),
            Some(_) => Err(Some(false)),
            None => Err(None),
        },
    }
}

/// Claims the listed servers for the klusters of `group`; answers the strangers.
pub fn servers(group: &[store::Observed], list: &mut [Server]) -> Vec<Stranger> {
    let mut strangers = Vec::new();
    for s in list.iter_mut() {
        let going = s.status == ServerStatus::Deleting;
        let recorded = |o: &store::Observed| going || o.servers.contains(&s.id);
        match owner(group, &s.kluster, s.uid.as_deref(), recorded) {
            Ok(name) => s.kluster = name,
            Err(verdict) => {
                if let Some(earlier) = verdict {
                    strangers.push(Stranger {
                        kluster: s.kluster.clone(),
                        id: s.id.clone(),
                        what: format!("Server {}", s.name),
                        earlier,
                    });
                }
                s.kluster.clear();
            }
        }
    }
    strangers
}

/// Claims the listed resources for the klusters of `group` (the store records none by
/// id); answers the strangers.
pub fn resources(group: &[store::Observed], list: &mut [Resource]) -> Vec<Stranger> {
    let mut strangers = Vec::new();
    for r in list.iter_mut() {
        match owner(group, &r.kluster, r.uid.as_deref(), |_| false) {
            Ok(name) => r.kluster = name,
            Err(verdict) => {
                if let Some(earlier) = verdict {
                    strangers.push(Stranger {
                        kluster: r.kluster.clone(),
                        id: r.id.clone(),
                        what: format!("{} {}", kind_words(r.kind), r.name),
                        earlier,
                    });
                }
                r.kluster.clear();
            }
        }
    }
    strangers
}

/// A resource kind as a sentence names it.
fn kind_words(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Volume => "Volume",
        ResourceKind::LoadBalancer => "Load balancer",
        ResourceKind::Route => "Route",
        ResourceKind::FloatingIp => "Floating IP",
        ResourceKind::SecurityGroup => "Security group",
    }
}

/// The event's words for `s`.
pub fn message(s: &Stranger) -> String {
    match s.earlier {
        true => format!(
            "{} was made for an earlier kluster named {}: it is not this kluster's and is left alone.",
            s.what, s.kluster
        ),
        false => format!(
            "{} carries the name {} but not this kluster's uid, so it is left alone: a tenant's own, or made before klusters marked what they make with their uid (then delete it by hand).",
            s.what, s.kluster
        ),
    }
}

impl Ctx<'_> {
    /// Says once, on each kluster of `group` whose name they carry, which strangers are
    /// left alone (a `NotOwned` event each).
    pub(super) async fn tell(
        &self,
        group: &[store::Observed],
        strangers: &[Stranger],
    ) -> Result<(), StoreError> {
        for s in strangers {
            let Some(o) = group.iter().find(|o| o.stored.kluster.name == s.kluster) else {
                continue;
            };
            let k = &o.stored.kluster;
            let key = (
                self.project.to_string(),
                owner_of(k).uid.to_string(),
                s.id.clone(),
            );
            if self.told.has(&key) {
                continue;
            }
            tracing::info!(
                controller = "reconcile",
                kluster = k.name,
                project = self.project,
                item = s.what,
                "not the kluster's: left alone"
            );
            self.normal(k, EventReason::NotOwned, &message(s)).await?;
            self.told.remember(key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
