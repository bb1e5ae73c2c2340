//! Sessions kept in memory in front of a store that only this process writes (the SQLite
//! file of a single replica): a session this process has read or written is read from
//! memory afterwards, not from the database. Every write goes to the store first, then to
//! memory; a delete drops both. A read from the store keeps what it read only when no write
//! happened meanwhile, so a session ended or changed while it was being read is not kept as
//! it was. Not for a store other replicas write (PostgreSQL): their writes would go unseen.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::Result;
use tower_sessions::SessionStore;

/// At most this many sessions are kept; past it memory starts afresh.
const KEPT_MAX: usize = 100_000;

/// The sessions in memory, and how many writes there have been.
#[derive(Default)]
struct Kept {
    records: HashMap<Id, Record>,
    writes: u64,
}

impl Kept {
    /// Keeps `record`, starting afresh when [`KEPT_MAX`] are kept.
    fn keep(&mut self, record: &Record) {
        if self.records.len() >= KEPT_MAX {
            self.records.clear();
        }
        self.records.insert(record.id, record.clone());
    }
}

/// A [`SessionStore`] answering reads from memory where it can; see the module.
#[derive(Clone)]
pub struct CachedStore<S> {
    inner: S,
    kept: Arc<Mutex<Kept>>,
    /// One write at a time (to the store, then to memory), so both end the same.
    writing: Arc<tokio::sync::Mutex<()>>,
}

impl<S: std::fmt::Debug> std::fmt::Debug for CachedStore<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedStore")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<S> CachedStore<S> {
    /// `inner`, which no other process writes, with its sessions kept in memory.
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            kept: Arc::default(),
            writing: Arc::default(),
        }
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `record` (just written), counting a write.
    fn written(&self, record: &Record) {
        let mut kept = self.kept();
        kept.writes += 1;
        kept.keep(record);
    }
}

#[async_trait]
impl<S: SessionStore + Clone> SessionStore for CachedStore<S> {
    async fn create(&self, record: &mut Record) -> Result<()> {
        let _one = self.writing.lock().await;
        self.inner.create(record).await?;
        self.written(record);
        Ok(())
    }

    async fn save(&self, record: &Record) -> Result<()> {
        let _one = self.writing.lock().await;
        self.inner.save(record).await?;
        self.written(record);
        Ok(())
    }

    async fn load(&self, id: &Id) -> Result<Option<Record>> {
        let writes = {
            let mut kept = self.kept();
            match kept.records.get(id) {
                Some(r) if r.expiry_date > time::OffsetDateTime::now_utc() => {
                    return Ok(Some(r.clone()))
                }
                Some(_) => {
                    kept.records.remove(id);
                    return Ok(None);
                }
                None => kept.writes,
            }
        };
        let record = self.inner.load(id).await?;
        if let Some(r) = &record {
            let mut kept = self.kept();
            if kept.writes == writes {
                kept.keep(r);
            }
        }
        Ok(record)
    }

    async fn delete(&self, id: &Id) -> Result<()> {
        let _one = self.writing.lock().await;
        {
            let mut kept = self.kept();
            kept.writes += 1;
            kept.records.remove(id);
        }
        self.inner.delete(id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A memory store counting its loads; a load can be held until `release` is notified.
    #[derive(Clone, Debug, Default)]
    struct Counting {
        inner: tower_sessions::MemoryStore,
        loads: Arc<AtomicUsize>,
        hold: Arc<std::sync::atomic::AtomicBool>,
        release: Arc<tokio::sync::Notify>,
        loading: Arc<tokio::sync::Notify>,
    }

    #[async_trait]
    impl SessionStore for Counting {
        async fn create(&self, r: &mut Record) -> Result<()> {
            self.inner.create(r).await
        }
        async fn save(&self, r: &Record) -> Result<()> {
            self.inner.save(r).await
        }
        async fn load(&self, id: &Id) -> Result<Option<Record>> {
            self.loads.fetch_add(1, Ordering::SeqCst);
            let r = self.inner.load(id).await;
            if self.hold.load(Ordering::SeqCst) {
                self.loading.notify_one();
                self.release.notified().await;
            }
            r
        }
        async fn delete(&self, id: &Id) -> Result<()> {
            self.inner.delete(id).await
        }
    }

    fn record(value: &str, expires_in: time::Duration) -> Record {
        let mut data = HashMap::new();
        data.insert("v".to_string(), serde_json::json!(value));
        Record {
            id: Id::default(),
            data,
            expiry_date: time::OffsetDateTime::now_utc() + expires_in,
        }
    }

    #[tokio::test]
    async fn reads_what_it_wrote_from_memory_and_forgets_deleted_or_expired_sessions() {
        let inner = Counting::default();
        let store = CachedStore::new(inner.clone());
        let mut r = record("a", time::Duration::hours(1));
        store.create(&mut r).await.unwrap();
        assert_eq!(store.load(&r.id).await.unwrap().unwrap().data, r.data);
        assert_eq!(inner.loads.load(Ordering::SeqCst), 0, "read from memory");
        store.delete(&r.id).await.unwrap();
        assert!(store.load(&r.id).await.unwrap().is_none());
        let mut old = record("b", time::Duration::seconds(-1));
        inner.inner.create(&mut old).await.unwrap();
        store.written(&old);
        assert!(store.load(&old.id).await.unwrap().is_none(), "expired");
    }

    #[tokio::test]
    async fn a_read_that_a_write_overtook_is_not_kept() {
        let inner = Counting::default();
        let mut r = record("old", time::Duration::hours(1));
        inner.inner.create(&mut r).await.unwrap();
        let store = CachedStore::new(inner.clone());
        inner.hold.store(true, Ordering::SeqCst);
        let reading = {
            let (store, id) = (store.clone(), r.id);
            tokio::spawn(async move { store.load(&id).await })
        };
        inner.loading.notified().await;
        inner.hold.store(false, Ordering::SeqCst);
        let mut newer = r.clone();
        newer.data.insert("v".into(), serde_json::json!("new"));
        store.save(&newer).await.unwrap();
        inner.release.notify_one();
        let read = reading.await.unwrap().unwrap().unwrap();
        assert_eq!(read.data["v"], "old", "the read itself saw the old record");
        let now = store.load(&r.id).await.unwrap().unwrap();
        assert_eq!(now.data["v"], "new", "but memory keeps the write");
    }
}
