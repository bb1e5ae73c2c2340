//! A cloud that fails on purpose, over the simulated one: [`Dying`].

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use controller::cloud::sim::SimCloud;
use controller::cloud::{
    BoxFuture, Cloud, CloudError, Owner, PodRange, Quota, Resource, Server, ServerBrief, ServerSpec,
};

/// The simulated cloud, failing on purpose: its server creations stop answering after
/// `creates` of them, like a controller killed in the middle of a pass (with a large
/// `creates`, it counts the creates asked); `blind`, its listings never answer (the rest
/// does); `held` and `held_deletes`, its server listings and deletes wait until they are
/// let go. It counts the server deletes that reach it and the resource listings asked.
#[derive(Debug)]
pub struct Dying {
    /// The cloud underneath.
    pub inner: SimCloud,
    /// Server creations left before it stops answering them.
    pub creates: AtomicUsize,
    /// Server and resource listings never answer.
    pub blind: AtomicBool,
    /// Server listings wait while this is `true` (`send_replace` it).
    pub held: tokio::sync::watch::Sender<bool>,
    /// Server listings waiting now.
    pub waiting: AtomicUsize,
    /// Server deletes wait while this is `true` (counted in `deletes` as they arrive).
    pub held_deletes: tokio::sync::watch::Sender<bool>,
    /// Server deletes that reached the cloud.
    pub deletes: AtomicUsize,
    /// Resource listings asked for.
    pub listings: AtomicUsize,
    /// Server listings asked for.
    pub server_listings: AtomicUsize,
    /// Kluster server id listings asked for.
    pub id_listings: AtomicUsize,
    /// What it answers when asked whether a server changed (`None`: it cannot tell, as
    /// the simulator).
    pub changed: std::sync::Mutex<Option<Vec<String>>>,
    /// Such questions asked.
    pub change_asks: AtomicUsize,
}

impl Dying {
    /// `inner`, answering `creates` server creations and every listing.
    pub fn new(inner: SimCloud, creates: usize) -> Dying {
        Dying {
            inner,
            creates: AtomicUsize::new(creates),
            blind: AtomicBool::new(false),
            held: tokio::sync::watch::channel(false).0,
            waiting: AtomicUsize::new(0),
            held_deletes: tokio::sync::watch::channel(false).0,
            deletes: AtomicUsize::new(0),
            listings: AtomicUsize::new(0),
            server_listings: AtomicUsize::new(0),
            id_listings: AtomicUsize::new(0),
            changed: std::sync::Mutex::new(None),
            change_asks: AtomicUsize::new(0),
        }
    }

    /// Hangs when `blind`.
    async fn look(&self) {
        if self.blind.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
    }

    /// Waits while `held` (counted in `waiting`).
    async fn gate(&self) {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _ = self.held.subscribe().wait_for(|h| !*h).await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
    }

    /// Server creations asked for so far.
    pub fn creates_asked(&self) -> usize {
        usize::MAX - self.creates.load(Ordering::SeqCst)
    }
}

impl Cloud for Dying {
    fn metadata<'a>(
        &'a self,
        p: &'a str,
    ) -> BoxFuture<'a, Result<kluster::OpenstackMetadata, CloudError>> {
        self.inner.metadata(p)
    }
    fn images<'a>(&'a self, p: &'a str) -> BoxFuture<'a, Result<Vec<String>, CloudError>> {
        self.inner.images(p)
    }
    fn quota<'a>(&'a self, p: &'a str) -> BoxFuture<'a, Result<Quota, CloudError>> {
        self.inner.quota(p)
    }
    fn servers<'a>(&'a self, p: &'a str) -> BoxFuture<'a, Result<Vec<Server>, CloudError>> {
        Box::pin(async move {
            self.server_listings.fetch_add(1, Ordering::SeqCst);
            self.look().await;
            self.gate().await;
            self.inner.servers(p).await
        })
    }
    fn server<'a>(
        &'a self,
        p: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Server>, CloudError>> {
        self.inner.server(p, id)
    }
    fn changed_since<'a>(
        &'a self,
        _p: &'a str,
        _since: time::OffsetDateTime,
    ) -> BoxFuture<'a, Result<Option<Vec<String>>, CloudError>> {
        self.change_asks.fetch_add(1, Ordering::SeqCst);
        let answer = self.changed.lock().unwrap().clone();
        Box::pin(async move { Ok(answer) })
    }
    fn kluster_servers_brief<'a>(
        &'a self,
        p: &'a str,
        owner: Owner<'a>,
    ) -> BoxFuture<'a, Result<Vec<ServerBrief>, CloudError>> {
        self.id_listings.fetch_add(1, Ordering::SeqCst);
        self.inner.kluster_servers_brief(p, owner)
    }
    fn create_server<'a>(
        &'a self,
        p: &'a str,
        spec: &'a ServerSpec,
    ) -> BoxFuture<'a, Result<Server, CloudError>> {
        Box::pin(async move {
            // Creates go out together: once the process has died, none reaches the cloud.
            let Ok(left) = self
                .creates
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            else {
                return std::future::pending().await;
            };
            let r = self.inner.create_server(p, spec).await;
            if left <= 1 {
                // The process dies here: this and every later call never answer.
                self.creates.store(0, Ordering::SeqCst);
                std::future::pending::<()>().await;
            }
            r
        })
    }
    fn delete_server<'a>(
        &'a self,
        p: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        self.deletes.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            let _ = self.held_deletes.subscribe().wait_for(|h| !*h).await;
            self.inner.delete_server(p, id).await
        })
    }
    fn resources<'a>(
        &'a self,
        p: &'a str,
        ranges: &'a [PodRange],
    ) -> BoxFuture<'a, Result<Vec<Resource>, CloudError>> {
        Box::pin(async move {
            self.listings.fetch_add(1, Ordering::SeqCst);
            self.look().await;
            self.inner.resources(p, ranges).await
        })
    }
    fn delete_resource<'a>(
        &'a self,
        p: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<(), CloudError>> {
        self.inner.delete_resource(p, id)
    }
}
