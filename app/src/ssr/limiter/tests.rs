//! Tests of the sign-in limiter on a manual clock.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::ssr::Clock;

fn limiter() -> (LoginLimiter, Clock) {
    let clock = Clock::manual();
    let limits = RateLimits {
        per_user: 3,
        per_client: 5,
        window: Duration::from_secs(60),
    };
    let log = Arc::new(MemoryLog::with_clock(clock.clone()));
    (LoginLimiter::new(limits, log), clock)
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[tokio::test]
async fn parallel_attempts_are_counted_before_keystone_answers() {
    let (l, _) = limiter();
    let mut held = Vec::new();
    for i in 0..3 {
        held.push(l.begin(&format!("10.0.0.{i}"), "alice").await.unwrap());
    }
    assert_eq!(
        l.begin("10.0.0.9", "alice").await.unwrap_err(),
        Refused::Wait(1),
        "a fourth guess in flight is refused"
    );
    for a in held {
        a.finish(Outcome::Dropped).await; // Keystone could not answer: nothing counted
    }
    assert!(l.begin("10.0.0.9", "alice").await.is_ok());
}

#[tokio::test]
async fn user_delays_grow_per_failure_and_end_with_the_window() {
    let (l, clock) = limiter();
    for i in 0..3 {
        l.begin(&format!("10.0.0.{i}"), "Alice")
            .await
            .unwrap()
            .failed()
            .await;
    }
    assert_eq!(
        l.begin("10.0.0.9", "alice").await.unwrap_err(),
        Refused::Wait(1)
    );
    clock.advance(secs(1));
    l.begin("10.0.0.9", "alice").await.unwrap().failed().await;
    clock.advance(secs(1));
    assert_eq!(
        l.begin("10.0.0.9", "alice").await.unwrap_err(),
        Refused::Wait(1)
    );
    clock.advance(secs(1));
    l.begin("10.0.0.9", "alice").await.unwrap().failed().await;
    clock.advance(secs(1));
    assert_eq!(
        l.begin("10.0.0.8", "alice").await.unwrap_err(),
        Refused::Wait(3)
    );
    assert!(
        l.begin("10.0.0.8", "bob").await.is_ok(),
        "others are not slowed"
    );
    clock.advance(secs(60));
    assert!(l.begin("10.0.0.8", "alice").await.is_ok());
}

#[tokio::test]
async fn a_client_that_signed_in_before_is_not_locked_out_by_strangers() {
    let (l, _) = limiter();
    l.begin("198.51.100.1", "alice")
        .await
        .unwrap()
        .succeeded()
        .await;
    for i in 0..6 {
        if let Ok(a) = l.begin(&format!("203.0.113.{i}"), "alice").await {
            a.failed().await;
        }
    }
    assert!(l.begin("203.0.113.99", "alice").await.is_err());
    assert!(l.begin("198.51.100.1", "alice").await.is_ok());
}

#[tokio::test]
async fn client_is_blocked_across_user_names() {
    let (l, clock) = limiter();
    for u in ["a", "b", "c", "d", "e"] {
        l.begin("9.9.9.9", u).await.unwrap().failed().await;
    }
    clock.advance(secs(10));
    assert_eq!(
        l.begin("9.9.9.9", "fresh").await.unwrap_err(),
        Refused::Wait(50)
    );
    assert!(l.begin("8.8.8.8", "fresh").await.is_ok());
}

#[test]
fn ipv6_clients_count_per_64() {
    let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
    let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
    let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
    assert_eq!(client_key(&a), client_key(&b));
    assert_ne!(client_key(&a), client_key(&c));
    let v4: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
    assert_eq!(client_key(&v4), "192.0.2.1");
}
