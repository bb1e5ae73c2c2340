//! Tests of [`super`]: when a kluster is due after its pass.

use super::*;

const POLL: Duration = Duration::from_millis(100);
const CAP: Duration = Duration::from_millis(1500);

/// The waits, in ms, of `n` passes in a row that each wish `next`, and the streak after them.
fn waits(next: Next, n: usize) -> (Vec<u128>, Streak) {
    let now = Instant::now();
    let mut streak = Streak::default();
    let mut waits = Vec::new();
    for _ in 0..n {
        let due = next.due(now, POLL, CAP, streak);
        streak = due.streak;
        waits.push((due.at.unwrap() - now).as_millis());
    }
    (waits, streak)
}

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
    let (waits, _) = waits(Next::soon(), 18);
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
    let (waits, streak) = waits(Next::backoff(), 6);
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

#[test]
fn nodes_going_are_looked_at_every_quarter_twice_as_long_unless_other_work_waits() {
    let (waits, _) = waits(Next::going(), 2 * SOON_QUARTERS as usize + 2);
    let quarters = [25; 2 * SOON_QUARTERS as usize];
    assert_eq!(waits, [&quarters[..], &[100, 100]].concat());
    let both = Next::going().and(Next::soon());
    assert!(both.soon && !both.going, "other work keeps the usual pace");
    let at = Next::going().and(Next::after(Duration::from_secs(60)));
    assert!(at.going, "a deadline does not change the pace");
    assert!(!Next::going().and(Next::booting()).boot);
}
