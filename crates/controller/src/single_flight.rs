//! Work asked for by several callers at once, done once: the first caller runs it and the
//! others wait for its answer (token validations, identical OpenStack GETs). A caller that
//! goes away hands the work to the next one waiting. A finished or abandoned flight leaves
//! the map, so it holds only work someone still waits for, and a later caller asks anew.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::OnceCell;

/// One piece of work under way, its answer shared by everyone who asked meanwhile.
type Flight<V> = Arc<OnceCell<V>>;

/// Work under way, by key.
pub struct SingleFlight<K, V> {
    map: Mutex<HashMap<K, Flight<V>>>,
}

impl<K, V> Default for SingleFlight<K, V> {
    fn default() -> Self {
        SingleFlight {
            map: Mutex::default(),
        }
    }
}

impl<K, V> std::fmt::Debug for SingleFlight<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let under_way = self.map.lock().map_or(0, |m| m.len());
        f.debug_struct("SingleFlight")
            .field("under_way", &under_way)
            .finish()
    }
}

impl<K: Eq + Hash + Clone, V: Clone> SingleFlight<K, V> {
    fn lock(&self) -> MutexGuard<'_, HashMap<K, Flight<V>>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether no work is under way (nobody waits for any).
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The answer of `work` for `key`: joins the flight under way for `key`, or runs `work`.
    pub async fn run<F, Fut>(&self, key: K, work: F) -> V
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = V>,
    {
        let joined = Joined {
            flight: self.lock().entry(key.clone()).or_default().clone(),
            flights: self,
            key,
        };
        joined.flight.get_or_init(work).await.clone()
    }
}

/// A caller's share of a flight. When it is done (answered, or the caller went away as the
/// last one waiting), the finished or abandoned flight leaves the map.
struct Joined<'a, K: Eq + Hash + Clone, V: Clone> {
    flights: &'a SingleFlight<K, V>,
    key: K,
    flight: Flight<V>,
}

impl<K: Eq + Hash + Clone, V: Clone> Drop for Joined<'_, K, V> {
    fn drop(&mut self) {
        let mut map = self.flights.lock();
        let ours = map
            .get(&self.key)
            .is_some_and(|f| Arc::ptr_eq(f, &self.flight));
        // Two holders left: the map and this caller.
        if ours && (self.flight.initialized() || Arc::strong_count(&self.flight) <= 2) {
            map.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn callers_at_once_share_one_run_and_a_later_one_runs_again() {
        let flights: SingleFlight<&str, usize> = SingleFlight::default();
        let runs = AtomicUsize::new(0);
        let work = || async {
            tokio::task::yield_now().await;
            runs.fetch_add(1, Ordering::SeqCst) + 1
        };
        let (a, b) = tokio::join!(flights.run("k", work), flights.run("k", work));
        assert_eq!((a, b), (1, 1), "one run, its answer for both");
        assert!(flights.is_empty(), "a finished flight leaves the map");
        assert_eq!(
            flights.run("k", work).await,
            2,
            "a later caller runs it anew"
        );
    }

    #[tokio::test]
    async fn an_abandoned_flight_leaves_the_map() {
        let flights: SingleFlight<&str, ()> = SingleFlight::default();
        let gone = tokio::time::timeout(
            std::time::Duration::from_millis(1),
            flights.run("k", std::future::pending),
        )
        .await;
        assert!(gone.is_err());
        assert!(flights.is_empty(), "an abandoned flight leaves the map");
    }
}
