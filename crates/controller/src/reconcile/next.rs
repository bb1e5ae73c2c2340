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
        let soon = self.soon || other.soon;
        Next {
            soon,
            boot: soon && boots(&self) && boots(&other),
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
                n if n <= SOON_QUARTERS => 1,
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
mod tests {
    use super::*;

    const POLL: Duration = Duration::from_millis(100);
    const CAP: Duration = Duration::from_millis(1500);

    #[test]
    fn the_soonest_wish_wins() {
        let now = Instant::now();
        let none = Streak::default();
        let deadline = Next::at(now + Duration::from_millis(30));
        assert_eq!(
            deadline.and(Next::soon()).due(now, POLL, CAP, none).at,
            Some(now + Duration::from_millis(25)),
            "the first look at work in progress is a quarter interval away"
        );
        let late = Next::at(now + Duration::from_secs(9));
        let again = Streak {
            soons: 20,
            backoffs: 0,
        };
        assert_eq!(
            late.and(Next::soon()).due(now, POLL, CAP, again).at,
            Some(now + POLL)
        );
        assert_eq!(deadline.due(now, POLL, CAP, again).streak, none);
        let past = Next::at(now - Duration::from_secs(1));
        assert_eq!(
            past.due(now, POLL, CAP, none).at,
            Some(now + SOONEST),
            "no spin"
        );
        assert_eq!(Next::change().due(now, POLL, CAP, again).at, None);
        assert_eq!(Next::change().due(now, POLL, CAP, again).streak, none);
    }

    #[test]
    fn work_in_progress_is_looked_at_quickly_at_first_then_every_interval() {
        let now = Instant::now();
        let mut streak = Streak::default();
        let mut waits = Vec::new();
        for _ in 0..18 {
            let due = Next::soon().due(now, POLL, CAP, streak);
            streak = due.streak;
            waits.push((due.at.unwrap() - now).as_millis());
        }
        let quarter = [25; SOON_QUARTERS as usize];
        let half = [50; SOON_QUARTERS as usize];
        assert_eq!(waits, [&quarter[..], &half[..], &[100, 100]].concat());
    }

    #[test]
    fn servers_only_booting_are_looked_at_every_interval_unless_another_wish_is_quick() {
        let now = Instant::now();
        let first = Next::booting().due(now, POLL, CAP, Streak::default());
        assert_eq!(first.at, Some(now + POLL));
        let both = Next::booting().and(Next::soon());
        assert!(both.soon && !both.boot);
        assert_eq!(
            both.due(now, POLL, CAP, Streak::default()).at,
            Some(now + POLL / 4)
        );
        let at = Next::booting().and(Next::after(Duration::from_secs(60)));
        assert!(at.soon && at.boot, "a deadline does not make it quick");
    }

    #[test]
    fn a_change_makes_the_looks_at_work_in_progress_quick_again_but_keeps_a_backoff() {
        let now = Instant::now();
        let mut queue = Queue::default();
        let (busy, refused) = (("p".to_string(), "a".to_string()), ("p".into(), "b".into()));
        let mut streak = Streak::default();
        for _ in 0..2 * SOON_QUARTERS {
            streak = Next::soon().due(now, POLL, CAP, streak).streak;
        }
        queue.set(busy.clone(), Next::soon().due(now, POLL, CAP, streak));
        let due = Next::soon().due(now, POLL, CAP, queue.streak(&busy));
        assert_eq!(due.at, Some(now + POLL), "after 16 looks: every interval");
        queue.restart(&busy);
        let due = Next::soon().due(now, POLL, CAP, queue.streak(&busy));
        assert_eq!(
            due.at,
            Some(now + POLL / 4),
            "changed: a quarter interval again"
        );
        queue.set(
            refused.clone(),
            Next::backoff().due(now, POLL, CAP, Streak::default()),
        );
        queue.restart(&refused);
        let due = Next::backoff().due(now, POLL, CAP, queue.streak(&refused));
        assert_eq!(due.at, Some(now + POLL * 4), "the backoff goes on doubling");
    }

    #[test]
    fn backoff_doubles_up_to_its_cap_and_work_in_progress_resets_it() {
        let now = Instant::now();
        let mut streak = Streak::default();
        let mut waits = Vec::new();
        for _ in 0..6 {
            let due = Next::backoff().due(now, POLL, CAP, streak);
            streak = due.streak;
            waits.push((due.at.unwrap() - now).as_millis());
        }
        assert_eq!(waits, [200, 400, 800, 1500, 1500, 1500]);
        // Something in progress (soon) wins over the backoff and ends its streak.
        let due = Next::backoff()
            .and(Next::soon())
            .due(now, POLL, CAP, streak);
        assert_eq!(
            due.streak,
            Streak {
                soons: 1,
                backoffs: 0
            }
        );
        assert_eq!(due.at, Some(now + POLL / 4));
    }

    #[test]
    fn the_queue_gives_what_is_due_in_time_order() {
        let now = Instant::now();
        let key = |n: &str| ("p".to_string(), n.to_string());
        let mut q = Queue::default();
        let at = |ms: u64| Due {
            at: Some(now + Duration::from_millis(ms)),
            streak: Streak::default(),
        };
        q.set(key("late"), at(50));
        q.set(key("early"), at(10));
        q.set(key("moved"), at(5));
        q.set(key("moved"), at(90)); // set again: only the new time counts
        assert_eq!(q.len(), 3);
        assert_eq!(q.first(), Some(now + Duration::from_millis(10)));
        assert_eq!(
            q.take_due(now + Duration::from_millis(60)),
            [key("early"), key("late")]
        );
        assert_eq!(q.first(), Some(now + Duration::from_millis(90)));
        q.set(
            key("moved"),
            Due {
                at: None,
                streak: Streak {
                    backoffs: 2,
                    soons: 0,
                },
            },
        );
        assert!(q.is_empty());
        assert_eq!(q.streak(&key("moved")).backoffs, 2);
        q.remove(&key("moved"));
        assert_eq!(q.streak(&key("moved")), Streak::default());
    }
}
