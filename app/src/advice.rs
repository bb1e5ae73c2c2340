//! Next-step advice for events, keyed on the event's typed reason and detail (never on its
//! message, whose words a real Kubernikus may phrase differently).

/// What to tell a person about an event: the next step for the reasons (and, where the
/// advice depends on more, the typed details) we know. Never looks at the message.
pub fn next_step(event: &kluster::Event) -> Option<&'static str> {
    use kluster::{EventDetail, EventReason};
    let detail = event.detail.as_ref();
    Some(match event.event_reason() {
        EventReason::FailedCreateNode if detail == Some(&EventDetail::QuotaExceeded) => {
            "The project's quota is used up: ask your cloud admin for more quota, pick a smaller flavor, or scale another pool down."
        }
        EventReason::FailedCreateNode if detail == Some(&EventDetail::NoValidHost) => {
            "No host in the pool's zone can place its flavor: pick another flavor or zone for the pool, or ask your cloud admin. Mission Control tries again, waiting longer each time."
        }
        EventReason::FailedCreateNode => {
            "Nodes could not be created; Mission Control keeps retrying."
        }
        EventReason::ConfigurationError if detail == Some(&EventDetail::SeveralRouters) => {
            "Several routers fit: create the kluster again and choose a router under Advanced."
        }
        EventReason::ConfigurationError => {
            "The network setup is incomplete: check Advanced when creating."
        }
        EventReason::FailedCreate => {
            "Creation is taking too long: look at the warnings before this one."
        }
        EventReason::DeletedBrokenNode => "A replacement node is being created.",
        EventReason::StoppedNode => {
            "Someone or something stopped the node's server; Mission Control starts it once, and replaces it if it stops again (where the pool allows replacement)."
        }
        EventReason::CloudUnavailable => {
            "The cloud did not answer; Mission Control keeps retrying."
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kluster::{Event, EventDetail};

    fn event(reason: &str, detail: Option<EventDetail>, message: &str) -> Event {
        Event {
            reason: reason.into(),
            kind: "Warning".into(),
            message: message.into(),
            detail,
            ..Default::default()
        }
    }

    #[test]
    fn advice_follows_reason_and_detail_not_the_words() {
        let quota = next_step(&event(
            "FailedCreateNode",
            Some(EventDetail::QuotaExceeded),
            "x",
        ));
        assert!(quota.is_some_and(|s| s.contains("ask your cloud admin for more quota")));
        // The words alone (e.g. a Kubernikus without the detail) get the general advice.
        let words = next_step(&event("FailedCreateNode", None, "Quota exceeded for cores"));
        assert_eq!(
            words,
            Some("Nodes could not be created; Mission Control keeps retrying.")
        );
        let routers = next_step(&event(
            "ConfigurationError",
            Some(EventDetail::SeveralRouters),
            "",
        ));
        assert!(routers.is_some_and(|s| s.contains("choose a router under Advanced")));
        let other = next_step(&event("ConfigurationError", None, "found 2 routers"));
        assert!(other.is_some_and(|s| s.contains("network setup is incomplete")));
        assert_eq!(next_step(&event("Running", None, "")), None);
        assert_eq!(
            next_step(&event(
                "FailedCreateNode",
                Some(EventDetail::Other("DiskFull".into())),
                ""
            )),
            words
        );
    }
}
