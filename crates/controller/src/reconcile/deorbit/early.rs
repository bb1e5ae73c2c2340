//! The runner's deletes sent aside (`reconcile/early_deletes.rs`): a kluster deleted while a
//! pass of its project that saw it before is going has the servers the store knows
//! deleted at once.

use kluster::KlusterPhase;

use crate::reconcile::Reconciler;

/// A change this soon after a kluster turned Terminating is its delete.
const JUST_DELETED: std::time::Duration = std::time::Duration::from_secs(5);

impl Reconciler {
    /// Kluster `name` of `project` changed while a pass of the project that did not see it
    /// Terminating is going: when that change was its delete, the deletes of its servers
    /// the store knows go out at once (once per kluster until a pass takes them; the
    /// runner passes the project only after this ends).
    pub(crate) async fn send_early_deletes(&self, project: &str, name: &str) {
        let o = match self.store.get_observed(project, name).await {
            Ok(Some(o)) => o,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(controller = "deorbit", project, kluster = name, error = %e, "could not read a deleted kluster");
                return;
            }
        };
        // Only the delete itself: a kluster Terminating for longer has passes of its own,
        // which send its deletes (and back off when the cloud refuses them).
        let deleted =
            o.stored.kluster.status.phase == KlusterPhase::Terminating && o.in_phase < JUST_DELETED;
        if !deleted || o.servers.is_empty() || !self.early_deletes.claim(project, name) {
            return;
        }
        let ctx = self.ctx(project, Some(&self.lease));
        let targets: Vec<(&str, &str)> = o.servers.iter().map(|id| (name, id.as_str())).collect();
        let answers = super::send(&targets, &ctx).await;
        tracing::info!(
            controller = "deorbit",
            project,
            kluster = name,
            servers = answers.len(),
            "nodes of a deleted kluster deleted while its project's pass was going"
        );
        self.early_deletes
            .fill(project, name, answers.into_iter().map(|(_, a)| a).collect());
    }
}
