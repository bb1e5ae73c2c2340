//! When a kluster is reconciled next, as its reconcilers say it ([`Next`], in each
//! reconciler's [`Outcome`](super::context::Outcome)), and the runner's queue of due times
//! ([`Queue`]). controller-rs calls the same idea an `Action` (requeue after, await change)
//! with an error policy: here a kluster asks to be looked at again at a deadline (a phase's
//! end, a timeout), soon (the cloud is still working on what it waits for: one poll
//! interval), after a growing delay (the cloud refused or failed), or only when it changes.
//! A periodic full resync passes every kluster all the same, as a safety net for what
//! changes in the cloud unseen.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use tokio::time::Instant;

/// How many looks in a row at work in progress come a quarter interval apart.
pub const SOON_QUARTERS: u32 = 8;

/// The soonest a kluster is looked at again after its pass (a deadline already past is
/// not passed in a spin).
pub const SOONEST: Duration = Duration::from_millis(20);

/// A kluster's wish for its next pass; reconcilers' wishes combine with [`Next::and`].
/// The default is to wait for a change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Next {
    /// Again after one poll interval: the cloud is doing something the kluster waits for.
    pub soon: bool,
    /// Again at this time: a phase's end or a timeout.
    pub at: Option<Instant>,
    /// The cloud refused or did not answer: again after a delay that doubles with each
    /// pass in a row that backs off (and was not `soon`).
    pub backoff: bool,
    /// With `soon`: what the kluster waits for is only servers booting, looked at one
    /// poll interval apart from the start (a look then lists the servers in full, and
    /// looking four times a second slowed the boots themselves: Nova and Neutron answer
    /// the listings while they boot).
    pub boot: bool,
    /// With `soon`: what the kluster waits for is only its nodes going, looked at with
    /// their ids alone (one brief request): a quarter interval apart for twice as many
    /// looks as other work (a Nova delete takes 3–4 s), so that their end is seen at once.
    pub going: bool,
}

impl Next {
    /// Nothing to do until the kluster changes.
    pub fn change() -> Next {
        Next::default()
    }

    /// Again after one poll interval.
    pub fn soon() -> Next {
        Next {
            soon: true,
            ..Next::default()
        }
    }

    /// Again after one poll interval, servers being booted ([`Next::boot`]).
    pub fn booting() -> Next {
        Next {
            soon: true,
            boot: true,
            ..Next::default()
        }
    }

    /// Again after a quarter poll interval, nodes going ([`Next::going`]).
    pub fn going() -> Next {
        Next {
            soon: true,
            going: true,
            ..Next::default()
        }
    }

    /// Again at `at`.
    pub fn at(at: Instant) -> Next {
        Next {
            at: Some(at),
            ..Next::default()
        }
    }

    /// Again after `after` from now.
    pub fn after(after: Duration) -> Next {
        Next::at(Instant::now() + after)
    }

    /// Again after a growing delay.
    pub fn backoff() -> Next {
        Next {
            backoff: true,
            ..Next::default()
        }
    }

    /// Both wishes: whichever comes first.
    pub fn and(self, other: Next) -> Next {
        let boots = |n: &Next| !n.soon || n.boot;
        let goes = |n: &Next| !n.soon || n.going;
        let soon = self.soon || other.soon;
        Next {
            soon,
            boot: soon && boots(&self) && boots(&other),
            going: soon && goes(&self) && goes(&other),
            at: match (self.at, other.at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            backoff: self.backoff || other.backoff,
        }
    }

    /// When the kluster is due, from `now`, with `poll` as the poll interval, `cap` the
    /// longest backoff, and `before` the streak of passes before this one. Work in progress
    /// is looked at quickly at first (a quarter, then half a poll interval), then every
    /// interval; a backoff doubles from two intervals up to `cap`. `at: None`: only a
    /// change or the full resync.
    pub fn due(self, now: Instant, poll: Duration, cap: Duration, before: Streak) -> Due {
        let mut at = self.at.map(|a| a.max(now + SOONEST));
        let mut sooner = |t: Instant| at = Some(at.map_or(t, |a| a.min(t)));
        let mut streak = Streak::default();
        if self.soon {
            streak.soons = before.soons.saturating_add(1);
            // A quarter interval for the first SOON_QUARTERS looks (a Nova boot or delete
            // takes a few seconds), half for as many again, then one interval.
            let quarters = match streak.soons {
                _ if self.boot => 4,
                n if n <= SOON_QUARTERS || (self.going && n <= 2 * SOON_QUARTERS) => 1,
                n if n <= 2 * SOON_QUARTERS => 2,
                _ => 4,
            };
            sooner(now + (poll / 4).saturating_mul(quarters));
        } else if self.backoff {
            streak.backoffs = before.backoffs.saturating_add(1);
            let wait = poll
                .saturating_mul(2u32.saturating_pow(streak.backoffs.min(31)))
                .min(cap);
            sooner(now + wait);
        }
        Due { at, streak }
    }
}

/// How many passes in a row a kluster asked for the same thing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Streak {
    /// Passes in a row that backed off (and were not `soon`).
    pub backoffs: u32,
    /// Passes in a row that were `soon`.
    pub soons: u32,
}

/// When a kluster is due ([`Next::due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Due {
    /// Its time (`None`: a change or the full resync).
    pub at: Option<Instant>,
    /// Its streak, this pass included.
    pub streak: Streak,
}

/// A kluster in the queue: (project, name).
pub type Key = (String, String);

/// The runner's queue: each kluster's due time, in time order, and its streak.
#[derive(Debug, Default)]
pub struct Queue {
    due: HashMap<Key, Instant>,
    order: BTreeSet<(Instant, Key)>,
    streaks: HashMap<Key, Streak>,
}

impl Queue {
    /// Sets when `key` is due (`None`: not queued) and its streak.
    pub fn set(&mut self, key: Key, due: Due) {
        self.forget_time(&key);
        if due.streak == Streak::default() {
            self.streaks.remove(&key);
        } else {
            self.streaks.insert(key.clone(), due.streak);
        }
        if let Some(at) = due.at {
            self.order.insert((at, key.clone()));
            self.due.insert(key, at);
        }
    }

    /// The streak of `key` so far.
    pub fn streak(&self, key: &Key) -> Streak {
        self.streaks.get(key).copied().unwrap_or_default()
    }

    /// Kluster `key` changed: work in progress it waits for now is new, so its looks come
    /// a quarter interval apart again (a backoff streak stays: a change does not make the
    /// cloud accept what it refused).
    pub fn restart(&mut self, key: &Key) {
        if let Some(streak) = self.streaks.get_mut(key) {
            streak.soons = 0;
            if *streak == Streak::default() {
                self.streaks.remove(key);
            }
        }
    }

    /// Forgets `key` (the kluster is gone).
    pub fn remove(&mut self, key: &Key) {
        self.forget_time(key);
        self.streaks.remove(key);
    }

    fn forget_time(&mut self, key: &Key) {
        if let Some(at) = self.due.remove(key) {
            self.order.remove(&(at, key.clone()));
        }
    }

    /// The earliest due time.
    pub fn first(&self) -> Option<Instant> {
        self.order.first().map(|(at, _)| *at)
    }

    /// Takes every kluster due at `now` out of the queue (their streaks stay).
    pub fn take_due(&mut self, now: Instant) -> Vec<Key> {
        let mut taken = Vec::new();
        while let Some((at, _)) = self.order.first() {
            if *at > now {
                break;
            }
            if let Some((_, key)) = self.order.pop_first() {
                self.due.remove(&key);
                taken.push(key);
            }
        }
        taken
    }

    /// Empties the queue (a new leader term starts with a full resync).
    pub fn clear(&mut self) {
        self.due.clear();
        self.order.clear();
        self.streaks.clear();
    }

    /// Klusters queued.
    pub fn len(&self) -> usize {
        self.due.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.due.is_empty()
    }
}

#[cfg(test)]
mod tests;
