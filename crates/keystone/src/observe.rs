//! The optional observer of a [`crate::Client`]: told how long each Keystone call took and
//! whether it failed (the dashboard's metrics). Every call runs in a `keystone` span
//! (`keystone.operation`), a child of the span it was made in.

use std::time::Duration;

use crate::Error;

/// Told about every call to Keystone: the operation (`password_auth`, `rescope`,
/// `validate`, `revoke`, `auth_projects`, `probe`), how long it took, and its error if it
/// failed (for metrics).
pub type ObserverFn = dyn Fn(&'static str, Duration, Option<&Error>) + Send + Sync;

/// The optional observer of a [`crate::Client`].
#[derive(Clone, Default)]
pub(crate) struct Observer(pub(crate) Option<std::sync::Arc<ObserverFn>>);

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Observer" } else { "None" })
    }
}

impl Observer {
    /// Runs `call`, then tells the observer (if any) how it went.
    pub(crate) async fn observed<T>(
        &self,
        operation: &'static str,
        call: impl std::future::Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        use tracing::Instrument;
        let start = std::time::Instant::now();
        let span = tracing::info_span!("keystone", keystone.operation = operation);
        let r = call.instrument(span).await;
        if let Some(o) = &self.0 {
            o(operation, start.elapsed(), r.as_ref().err());
        }
        r
    }
}
