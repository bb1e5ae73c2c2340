//! A [`Cloud`] that times every call of the cloud behind it into the controller's metrics
//! (`mc_controller_cloud_request_duration_seconds{operation}`, errors by kind) and runs it
//! in a `cloud` span (`cloud.operation`, `project`), a child of the request or reconcile
//! span it was made in, so a trace shows request → controller → cloud. A call whose future
//! is dropped before it finished (a timeout or a spent budget) counts as `abandoned`.

use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;

use super::{
    BoxFuture, Cloud, CloudError, KlusterUser, Owner, PodRange, Quota, Resource, Server,
    ServerBrief, ServerSpec,
};
use crate::metrics::Metrics;

/// Wraps a cloud with call metrics.
#[derive(Debug)]
pub struct MeteredCloud {
    inner: Arc<dyn Cloud>,
    metrics: Arc<Metrics>,
}

impl MeteredCloud {
    /// `inner`, measured into `metrics`.
    pub fn new(inner: Arc<dyn Cloud>, metrics: Arc<Metrics>) -> Self {
        MeteredCloud { inner, metrics }
    }
}

/// Records the call when dropped: finished (ok or error) or abandoned.
struct Timer<'a> {
    metrics: &'a Metrics,
    operation: &'static str,
    start: Instant,
    outcome: Option<bool>,
}

impl Drop for Timer<'_> {
    fn drop(&mut self) {
        let failed = match self.outcome {
            Some(true) => None,
            Some(false) => Some("error"),
            None => Some("abandoned"),
        };
        self.metrics
            .cloud_call(self.operation, self.start.elapsed(), failed);
    }
}

fn timed<'a, T: Send + 'a>(
    metrics: &'a Metrics,
    operation: &'static str,
    project: &'a str,
    fut: BoxFuture<'a, Result<T, CloudError>>,
) -> BoxFuture<'a, Result<T, CloudError>> {
    let span = tracing::info_span!("cloud", cloud.operation = operation, project);
    Box::pin(
        async move {
            let mut timer = Timer {
                metrics,
                operation,
                start: Instant::now(),
                outcome: None,
            };
            let r = fut.await;
            timer.outcome = Some(r.is_ok());
            r
        }
        .instrument(span),
    )
}

impl Cloud for MeteredCloud {
    fn node_source(&self) -> super::NodeSource {
        self.inner.node_source()
    }

    fn check(&self) -> BoxFuture<'_, Result<(), CloudError>> {
        self.inner.check()
    }

    fn metadata<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<kluster::OpenstackMetadata, CloudError>> {
        timed(
            &self.metrics,
            "metadata",
            project,
            self.inner.metadata(project),
        )
    }

    fn images<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<String>, CloudError>> {
        timed(&self.metrics, "images", project, self.inner.images(project))
    }

    fn quota<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Quota, CloudError>> {
        timed(&self.metrics, "quota", project, self.inner.quota(project))
    }

    fn servers<'a>(&'a self, project: &'a str) -> BoxFuture<'a, Result<Vec<Server>, CloudError>> {
        timed(
            &self.metrics,
            "list_servers",
            project,
            self.inner.servers(project),
        )
    }

    fn changed_since<'a>(
        &'a self,
        project: &'a str,
        since: time::OffsetDateTime,
    ) -> BoxFuture<'a, Result<Option<Vec<String>>, CloudError>> {
        timed(
            &self.metrics,
            "list_changes",
            project,
            self.inner.changed_since(project, since),
        )
    }

    fn server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Server>, CloudError>> {
        timed(
            &self.metrics,
            "show_server",
            project,
            self.inner.server(project, id),
        )
    }

    fn kluster_servers_brief<'a>(
        &'a self,
        project: &'a str,
        owner: Owner<'a>,
    ) -> BoxFuture<'a, Result<Vec<ServerBrief>, CloudError>> {
        timed(
            &self.metrics,
            "list_servers_brief",
            project,
            self.inner.kluster_servers_brief(project, owner),
        )
    }

    fn create_server<'a>(
        &'a self,
        project: &'a str,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Server, CloudError>> {
        timed(
            &self.metrics,
            "create_server",
            project,
            self.inner.create_server(project, spec),
        )
    }

    fn start_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        timed(
            &self.metrics,
            "start_server",
            project,
            self.inner.start_server(project, id),
        )
    }

    fn delete_server<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        timed(
            &self.metrics,
            "delete_server",
            project,
            self.inner.delete_server(project, id),
        )
    }

    fn resources<'a>(
        &'a self,
        project: &'a str,
        ranges: &'a [PodRange],
    ) -> BoxFuture<'a, Result<Vec<Resource>, CloudError>> {
        timed(
            &self.metrics,
            "list_resources",
            project,
            self.inner.resources(project, ranges),
        )
    }

    fn routers<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<kluster::Router>, CloudError>> {
        timed(
            &self.metrics,
            "list_routers",
            project,
            self.inner.routers(project),
        )
    }

    fn routes<'a>(
        &'a self,
        project: &'a str,
    ) -> BoxFuture<'a, Result<Vec<super::RouterRoute>, CloudError>> {
        timed(
            &self.metrics,
            "list_routes",
            project,
            self.inner.routes(project),
        )
    }

    fn delete_resource<'a>(
        &'a self,
        project: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        timed(
            &self.metrics,
            "delete_resource",
            project,
            self.inner.delete_resource(project, id),
        )
    }

    fn kluster_user_domain(&self) -> Option<&str> {
        self.inner.kluster_user_domain()
    }

    fn ensure_kluster_user<'a>(
        &'a self,
        project: &'a str,
        user: &'a KlusterUser,
    ) -> BoxFuture<'a, Result<String, CloudError>> {
        timed(
            &self.metrics,
            "ensure_kluster_user",
            project,
            self.inner.ensure_kluster_user(project, user),
        )
    }

    fn delete_kluster_user<'a>(
        &'a self,
        project: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        timed(
            &self.metrics,
            "delete_kluster_user",
            project,
            self.inner.delete_kluster_user(project, name),
        )
    }
}
