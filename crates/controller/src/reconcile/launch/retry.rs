//! A pool's wait after its new servers failed in the cloud (Nova put them in ERROR, most
//! often because no host could place them): kept in the pool's status
//! ([`CreateRetry`]) so that every replica and the dashboard see it. Each failure in a row
//! doubles the wait up to a cap ([`Timing::create_wait`]); the first server of the pool
//! that comes up ends it. While it lasts, launch asks for one server at a time.

use std::time::Duration;

use kluster::{CreateRetry, EventDetail, NodePool, NodePoolInfo};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::reconcile::context::Timing;

/// Nova's words for a server no host could place ("No valid host was found. …").
const NO_VALID_HOST: &str = "no valid host";

/// Nova's words for a server its conductor's second quota check refused ("Quota exceeded
/// for instances: …"): several creates at once can all pass the API's check.
const QUOTA_EXCEEDED: &str = "quota exceeded";

/// What a failed new server of `pool` tells the tenant, given `reason` (from [`reason`];
/// `said`: the cloud gave a fault). The message names no server and no time, so that
/// repeats fold into one timeline entry that counts them.
pub fn failure_message(pool: &NodePool, said: bool, reason: &str) -> String {
    let what = match said {
        true => format!("Nova put a new server of pool {} in ERROR:", pool.name),
        false => format!("A new server of pool {} went into ERROR:", pool.name),
    };
    let tail =
        "It was deleted; the next one is asked for after a wait that grows with each failure.";
    format!("{what} {reason} {tail}")
}

/// The cloud's words for a failed server of `pool`, with advice where the failure is one
/// we know (no host could place it; the quota was used up), as the pool's status keeps them.
pub fn reason(pool: &NodePool, fault: Option<&str>) -> (String, Option<EventDetail>) {
    let Some(fault) = fault else {
        return ("the cloud gave no reason.".into(), None);
    };
    let fault = fault.trim();
    let stop = if fault.ends_with('.') { "" } else { "." };
    let lower = fault.to_lowercase();
    if lower.contains(QUOTA_EXCEEDED) {
        return (format!("{fault}{stop}"), Some(EventDetail::QuotaExceeded));
    }
    if !lower.contains(NO_VALID_HOST) {
        return (format!("{fault}{stop}"), None);
    }
    let zone = match pool.availability_zone.as_str() {
        "" => "the default zone".to_string(),
        z => format!("zone {z}"),
    };
    let advice = format!(
        "No host in {zone} can place flavor {}: pick another flavor or zone, or ask your cloud admin.",
        pool.flavor
    );
    (
        format!("{fault}{stop} {advice}"),
        Some(EventDetail::NoValidHost),
    )
}

/// Records a failure of pool `pool` in `pools` (the kluster's status, added to when the
/// pool has no entry yet) at `now`: one more in a row, `reason`, and the next try.
pub fn record_failure(
    pools: &mut Vec<NodePoolInfo>,
    pool: &NodePool,
    reason: &str,
    timing: &Timing,
    now: OffsetDateTime,
) {
    let at = match pools.iter().position(|p| p.name == pool.name) {
        Some(i) => i,
        None => {
            pools.push(NodePoolInfo {
                name: pool.name.clone(),
                size: pool.size,
                ..Default::default()
            });
            pools.len() - 1
        }
    };
    let info = &mut pools[at];
    let failures = info
        .create_retry
        .as_ref()
        .map_or(0, |r| r.failures)
        .saturating_add(1);
    // Whole seconds (rounded up): the page shows the time as it is written.
    let next = now + timing.create_wait(failures);
    let next = match next.nanosecond() {
        0 => next,
        _ => next.replace_nanosecond(0).unwrap_or(next) + Duration::from_secs(1),
    };
    info.create_retry = Some(CreateRetry {
        failures,
        reason: reason.to_string(),
        next_try: next.format(&Rfc3339).unwrap_or_default(),
    });
}

/// How long `retry` still waits at `now` (`None`: not at all). An unreadable time waits
/// for nothing (the next failure writes a good one).
pub fn remaining(retry: Option<&CreateRetry>, now: OffsetDateTime) -> Option<Duration> {
    let at = OffsetDateTime::parse(&retry?.next_try, &Rfc3339).ok()?;
    Duration::try_from(at - now).ok().filter(|d| !d.is_zero())
}

/// Carries each pool's wait from `before` (the status as the pass found it, with this
/// pass's failures) into `after` (launch's fresh counts), by pool name.
pub fn carry(before: &[NodePoolInfo], after: &mut [NodePoolInfo]) {
    for info in after {
        info.create_retry = before
            .iter()
            .find(|b| b.name == info.name)
            .and_then(|b| b.create_retry.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(zone: &str) -> NodePool {
        NodePool {
            name: "small".into(),
            size: 1,
            flavor: "m1.huge".into(),
            availability_zone: zone.into(),
            ..Default::default()
        }
    }

    /// The event's message and detail, as flight makes them.
    fn failure(pool: &NodePool, fault: Option<&str>) -> (String, Option<EventDetail>) {
        let (why, detail) = reason(pool, fault);
        (failure_message(pool, fault.is_some(), &why), detail)
    }

    fn timing() -> Timing {
        let mut t = Timing::scaled(Duration::from_secs(1));
        t.create_retry = Duration::from_secs(30);
        t.create_retry_cap = Duration::from_secs(300);
        t
    }

    #[test]
    fn no_valid_host_names_zone_flavor_and_advice_and_no_server() {
        let fault = "No valid host was found. There are not enough hosts available.";
        let (m, d) = failure(&pool("nova"), Some(fault));
        assert_eq!(d, Some(EventDetail::NoValidHost));
        assert!(m.contains(fault), "{m}");
        assert!(
            m.contains("No host in zone nova can place flavor m1.huge"),
            "{m}"
        );
        assert!(m.contains("ask your cloud admin"), "{m}");
        let (m, _) = failure(&pool(""), Some(fault));
        assert!(m.contains("the default zone"), "{m}");
        let (m, d) = failure(&pool("nova"), Some("Build of instance aborted: disk"));
        assert_eq!(d, None);
        assert!(m.contains("Build of instance aborted: disk") && !m.contains("flavor"));
        let late = "Quota exceeded for instances: Requested 1, but already used 6 of 6 instances";
        let (m, d) = failure(&pool("nova"), Some(late));
        assert_eq!(
            d,
            Some(EventDetail::QuotaExceeded),
            "the dashboard's advice"
        );
        assert!(m.contains(late) && !m.contains("flavor m1.huge"), "{m}");
        let (m, d) = failure(&pool("nova"), None);
        assert_eq!(d, None);
        assert!(m.contains("gave no reason"), "{m}");
    }

    #[test]
    fn the_wait_doubles_up_to_the_cap_and_is_read_back() {
        let t = timing();
        let now = OffsetDateTime::from_unix_timestamp(1_800_000_000).unwrap();
        let mut pools = Vec::new();
        let mut waits = Vec::new();
        for _ in 0..6 {
            record_failure(&mut pools, &pool("nova"), "r", &t, now);
            let r = pools[0].create_retry.as_ref();
            waits.push(remaining(r, now).unwrap().as_secs());
        }
        assert_eq!(waits, [30, 60, 120, 240, 300, 300]);
        let odd = now + Duration::from_millis(1500);
        let mut p = Vec::new();
        record_failure(&mut p, &pool("nova"), "r", &t, odd);
        let shown = &p[0].create_retry.as_ref().unwrap().next_try;
        assert_eq!(shown, "2027-01-15T08:00:32Z", "whole seconds, rounded up");
        assert_eq!(pools.len(), 1);
        assert_eq!(pools[0].create_retry.as_ref().unwrap().failures, 6);
        let later = now + Duration::from_secs(301);
        assert_eq!(remaining(pools[0].create_retry.as_ref(), later), None);
        let mut fresh = vec![NodePoolInfo {
            name: "small".into(),
            ..Default::default()
        }];
        carry(&pools, &mut fresh);
        assert_eq!(fresh[0].create_retry, pools[0].create_retry);
    }

    #[test]
    fn ten_minutes_of_failures_ask_for_at_most_ten_servers() {
        // The issue's goal with the default timing: one pool of one unplaceable node.
        let t = Timing::scaled(Duration::from_secs(20));
        let (mut at, mut asks, mut failures) = (Duration::ZERO, 0, 0);
        while at < Duration::from_secs(600) {
            asks += 1;
            failures += 1;
            at += Duration::from_secs(5) + t.create_wait(failures); // 5 s to fail
        }
        assert!(asks <= 10, "{asks} creates in 10 minutes");
    }
}
