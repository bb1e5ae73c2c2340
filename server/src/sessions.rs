//! Sessions at rest: a [`SealedStore`] wraps any tower-sessions store and seals each
//! session's data (Keystone tokens among it) with ChaCha20-Poly1305 before it reaches the
//! database; and the data directory is kept private (0700, files 0600). A record whose data
//! did not change is written again only when its expiry moved by more than the store's touch
//! interval (tower-sessions saves every request's session to slide its idle expiry).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serving::seal::Sealer;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{Error, Result};
use tower_sessions::SessionStore;

/// The one key under which a sealed record keeps its data.
const SEALED: &str = "sealed";

/// At most this many sessions' last writes are remembered to skip unchanged ones; past it
/// the memory starts afresh (the next save of each session writes).
const REMEMBERED_MAX: usize = 100_000;

/// A session store whose records hold only `{"sealed": "<base64 of nonce‖ciphertext>"}`.
#[derive(Clone)]
pub struct SealedStore<S> {
    inner: S,
    sealer: Arc<Sealer>,
    touch_every: Duration,
    /// Per session: a hash of its data and the expiry as last written or read.
    written: Arc<Mutex<HashMap<Id, (u64, time::OffsetDateTime)>>>,
}

impl<S: std::fmt::Debug> std::fmt::Debug for SealedStore<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealedStore")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<S> SealedStore<S> {
    /// Seals records with `sealer` before they reach `inner`; writes every save.
    pub fn new(inner: S, sealer: Arc<Sealer>) -> Self {
        Self::with_touch(inner, sealer, Duration::ZERO)
    }

    /// Like [`SealedStore::new`], but a save that changes only the expiry, by less than
    /// `touch_every`, is skipped: the stored expiry may then lag the cookie's by that much.
    pub fn with_touch(inner: S, sealer: Arc<Sealer>, touch_every: Duration) -> Self {
        Self {
            inner,
            sealer,
            touch_every,
            written: Arc::default(),
        }
    }

    /// A hash of `data` that does not depend on the map's order.
    fn digest(data: &HashMap<String, serde_json::Value>) -> u64 {
        use std::hash::{Hash, Hasher};
        let sorted: BTreeMap<&String, &serde_json::Value> = data.iter().collect();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        serde_json::to_string(&sorted)
            .unwrap_or_default()
            .hash(&mut h);
        h.finish()
    }

    /// Remembers `record` (whose data hashes to `digest`) as written or read; nothing to
    /// remember when every save writes.
    fn remember(&self, record: &Record, digest: u64) {
        if self.touch_every.is_zero() {
            return;
        }
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        if written.len() >= REMEMBERED_MAX {
            written.clear();
        }
        written.insert(record.id, (digest, record.expiry_date));
    }

    /// True when `record` (data hashing to `digest`) is what was last written or read, its
    /// expiry moved by less than the touch interval.
    fn unchanged(&self, record: &Record, digest: u64) -> bool {
        let written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        let Some((last, expiry)) = written.get(&record.id) else {
            return false;
        };
        let moved = (record.expiry_date - *expiry).unsigned_abs();
        *last == digest && moved < self.touch_every
    }

    /// The hash of `record`'s data, when this store skips unchanged saves.
    fn digest_of(&self, record: &Record) -> u64 {
        if self.touch_every.is_zero() {
            0
        } else {
            Self::digest(&record.data)
        }
    }

    fn forget(&self, id: &Id) {
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        written.remove(id);
    }

    fn seal(&self, record: &Record) -> Result<Record> {
        use base64::Engine;
        let plain = serde_json::to_vec(&record.data).map_err(|e| Error::Encode(e.to_string()))?;
        let sealed = self
            .sealer
            .seal(&plain)
            .map_err(|e| Error::Encode(e.to_string()))?;
        let mut data = std::collections::HashMap::new();
        data.insert(
            SEALED.to_string(),
            serde_json::Value::String(base64::engine::general_purpose::STANDARD.encode(sealed)),
        );
        Ok(Record {
            id: record.id,
            data,
            expiry_date: record.expiry_date,
        })
    }

    fn open(&self, mut record: Record) -> Result<Record> {
        use base64::Engine;
        let Some(serde_json::Value::String(b64)) = record.data.remove(SEALED) else {
            // Written before sealing (or by someone else): not to be trusted, start afresh.
            return Err(Error::Decode("the session record is not sealed".into()));
        };
        let sealed = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|e| Error::Decode(e.to_string()))?;
        let plain = self
            .sealer
            .open(&sealed)
            .map_err(|_| Error::Decode("the session record does not open with this key".into()))?;
        record.data = serde_json::from_slice(&plain).map_err(|e| Error::Decode(e.to_string()))?;
        Ok(record)
    }
}

#[async_trait]
impl<S: SessionStore + Clone> SessionStore for SealedStore<S> {
    async fn create(&self, record: &mut Record) -> Result<()> {
        let mut sealed = self.seal(record)?;
        self.inner.create(&mut sealed).await?;
        record.id = sealed.id; // the inner store may pick another id on a collision
        self.remember(record, self.digest_of(record));
        Ok(())
    }

    async fn save(&self, record: &Record) -> Result<()> {
        let digest = self.digest_of(record);
        if self.unchanged(record, digest) {
            return Ok(());
        }
        self.inner.save(&self.seal(record)?).await?;
        self.remember(record, digest);
        Ok(())
    }

    async fn load(&self, id: &Id) -> Result<Option<Record>> {
        match self.inner.load(id).await? {
            None => Ok(None),
            Some(r) => match self.open(r) {
                Ok(r) => {
                    self.remember(&r, self.digest_of(&r));
                    Ok(Some(r))
                }
                Err(e) => {
                    // Unreadable (another key, tampered, or from before sealing): the user
                    // signs in again; the row goes.
                    tracing::warn!(error = %e, "dropping a session record that does not open");
                    self.inner.delete(id).await?;
                    Ok(None)
                }
            },
        }
    }

    async fn delete(&self, id: &Id) -> Result<()> {
        self.forget(id);
        self.inner.delete(id).await
    }
}

/// Creates `dir` (and parents) and makes it private to this user (0700).
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Makes an SQLite database file private (0600) before it is opened, creating it empty
/// when missing; its `-wal` and `-shm` files, which SQLite creates with the database's
/// mode, are tightened too if they exist.
pub fn private_db(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)?;
        for suffix in ["", "-wal", "-shm"] {
            let p = format!("{}{suffix}", path.display());
            match std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_sessions::MemoryStore;

    fn record() -> Record {
        let mut data = std::collections::HashMap::new();
        data.insert("auth".into(), serde_json::json!({"token": "gAAAAAsecret"}));
        Record {
            id: Id::default(),
            data,
            expiry_date: time::OffsetDateTime::now_utc() + time::Duration::hours(1),
        }
    }

    #[tokio::test]
    async fn records_are_sealed_at_rest_and_open_again() {
        let inner = MemoryStore::default();
        let store = SealedStore::new(inner.clone(), Arc::new(Sealer::new(&[7; 32])));
        let mut r = record();
        store.create(&mut r).await.unwrap();
        let raw = inner.load(&r.id).await.unwrap().unwrap();
        let raw_text = serde_json::to_string(&raw.data).unwrap();
        assert!(!raw_text.contains("gAAAAAsecret"), "{raw_text}");
        assert!(raw.data.contains_key(SEALED));
        let back = store.load(&r.id).await.unwrap().unwrap();
        assert_eq!(back.data, r.data);
    }

    #[tokio::test]
    async fn a_record_sealed_with_another_key_or_plain_is_dropped() {
        let inner = MemoryStore::default();
        let a = SealedStore::new(inner.clone(), Arc::new(Sealer::new(&[1; 32])));
        let b = SealedStore::new(inner.clone(), Arc::new(Sealer::new(&[2; 32])));
        let mut r = record();
        a.create(&mut r).await.unwrap();
        assert!(b.load(&r.id).await.unwrap().is_none());
        assert!(inner.load(&r.id).await.unwrap().is_none(), "the row went");
        let mut plain = record();
        inner.create(&mut plain).await.unwrap();
        assert!(a.load(&plain.id).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn an_unchanged_session_is_written_again_only_when_its_expiry_moved_enough() {
        let inner = MemoryStore::default();
        let store = SealedStore::with_touch(
            inner.clone(),
            Arc::new(Sealer::new(&[3; 32])),
            Duration::from_secs(60),
        );
        let mut r = record();
        store.create(&mut r).await.unwrap();
        let stored_expiry = |inner: MemoryStore, id: Id| async move {
            inner.load(&id).await.unwrap().unwrap().expiry_date
        };
        let first = stored_expiry(inner.clone(), r.id).await;
        // The next request slides the expiry by a few seconds: not written.
        r.expiry_date += time::Duration::seconds(5);
        store.save(&r).await.unwrap();
        assert_eq!(stored_expiry(inner.clone(), r.id).await, first);
        // A change of data is written at once.
        r.data
            .insert("project".into(), serde_json::json!("staging"));
        store.save(&r).await.unwrap();
        let back = store.load(&r.id).await.unwrap().unwrap();
        assert_eq!(back.data, r.data);
        assert_eq!(back.expiry_date, r.expiry_date);
        // An expiry moved by more than the interval is written.
        r.expiry_date += time::Duration::seconds(61);
        store.save(&r).await.unwrap();
        assert_eq!(stored_expiry(inner.clone(), r.id).await, r.expiry_date);
        // Another replica's store (no memory of this session) always writes.
        let other = SealedStore::with_touch(
            inner.clone(),
            Arc::new(Sealer::new(&[3; 32])),
            Duration::from_secs(60),
        );
        r.expiry_date += time::Duration::seconds(1);
        other.save(&r).await.unwrap();
        assert_eq!(stored_expiry(inner.clone(), r.id).await, r.expiry_date);
    }
}
