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

/// Completes on Ctrl-C (SIGINT) or SIGTERM (what container runtimes send); both binaries
/// stop on it.
pub async fn signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    tracing::info!("shutting down");
}
