//! One shutdown signal shared by the server, the reconcilers and the open streams.

/// One shutdown future shared by several tasks: each [`Shutdown::signal`] completes when
/// the future given to [`Shutdown::new`] does.
#[derive(Clone, Debug)]
pub struct Shutdown(tokio::sync::watch::Receiver<bool>);

impl Shutdown {
    /// Watches `trigger` (in a task of its own).
    pub fn new(trigger: impl std::future::Future<Output = ()> + Send + 'static) -> Shutdown {
        let (tx, rx) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            trigger.await;
            let _ = tx.send(true);
        });
        Shutdown(rx)
    }

    /// Completes once shutdown has been triggered.
    pub fn signal(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut rx = self.0.clone();
        async move {
            let _ = rx.wait_for(|stop| *stop).await;
        }
    }
}
