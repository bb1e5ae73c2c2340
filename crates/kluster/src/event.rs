//! Event types and reasons as enums, spelled on the wire as Kubernikus spells them. A reason
//! this code does not know (a real Kubernikus may send others) parses as
//! [`EventReason::Other`] and is written back unchanged.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Whether an event is routine or needs attention.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventType {
    /// Routine progress.
    #[default]
    Normal,
    /// Something needs attention.
    Warning,
}

impl EventType {
    /// The wire spelling: `Normal` or `Warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }

    /// Parses the wire spelling; `None` for anything else.
    pub fn parse(s: &str) -> Option<EventType> {
        match s {
            "Normal" => Some(EventType::Normal),
            "Warning" => Some(EventType::Warning),
            _ => None,
        }
    }
}

impl std::fmt::Display for EventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why an event was recorded: the reasons Kubernikus's controllers (and this one) use.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventReason {
    /// The kluster is waiting for the ground controller (a phase's Normal event).
    Pending,
    /// The control plane is coming up.
    Creating,
    /// The kluster runs.
    Running,
    /// The control plane moves to a new version.
    Upgrading,
    /// The kluster is being deleted.
    Terminating,
    /// The kluster did not reach Running within the creation timeout.
    FailedCreate,
    /// The kluster's OpenStack settings are ambiguous or wrong (e.g. several routers).
    ConfigurationError,
    /// The cloud did not answer this pass.
    CloudUnavailable,
    /// Extension: a node's server was asked for; `SuccessfulCreateNode` follows when it is
    /// up.
    CreatingNode,
    /// A node's server was created and is up (ACTIVE).
    SuccessfulCreateNode,
    /// A node's server could not be created (e.g. quota).
    FailedCreateNode,
    /// A node's server was deleted.
    SuccessfulDeleteNode,
    /// A node's server could not be deleted.
    FailedDeleteNode,
    /// A broken node (ERROR, or never registered) was deleted to be replaced.
    DeletedBrokenNode,
    /// Extension: a node was found stopped (SHUTOFF, SUSPENDED, …) and started, or could
    /// not be.
    StoppedNode,
    /// Deorbit waits for the kluster's volumes to go.
    WaitingForDeorbitVolumes,
    /// Deorbit waits for the kluster's load balancers to go.
    WaitingForDeorbitLoadBalancers,
    /// Deorbit waits for the kluster's routes to go.
    WaitingForDeorbitRoutes,
    /// Extension: deorbit waits for the floating IPs made for the kluster's services.
    WaitingForDeorbitFloatingIPs,
    /// Extension: deorbit waits for the security groups made for the kluster's services.
    WaitingForDeorbitSecurityGroups,
    /// Deorbit waits for the kluster's nodes to go.
    WaitingForDeorbitNodes,
    /// The kluster's volumes are gone.
    SuccessfulDeorbitVolumes,
    /// The kluster's load balancers are gone.
    SuccessfulDeorbitLoadBalancers,
    /// The kluster's routes are gone.
    SuccessfulDeorbitRoutes,
    /// Extension: the floating IPs made for the kluster's services are gone.
    SuccessfulDeorbitFloatingIPs,
    /// Extension: the security groups made for the kluster's services are gone.
    SuccessfulDeorbitSecurityGroups,
    /// Nothing of the kluster is left in the cloud.
    SuccessfulDeorbit,
    /// A deorbit step failed.
    FailedDeorbit,
    /// Extension: a cloud resource carries the kluster's name but not its uid (a tenant's
    /// own, or an earlier kluster's of the same name): it is left alone.
    NotOwned,
    /// A reason this code does not know, kept as sent.
    Other(String),
}

/// Every known reason with its wire spelling (`Other` aside).
const KNOWN: &[(EventReason, &str)] = &[
    (EventReason::Pending, "Pending"),
    (EventReason::Creating, "Creating"),
    (EventReason::Running, "Running"),
    (EventReason::Upgrading, "Upgrading"),
    (EventReason::Terminating, "Terminating"),
    (EventReason::FailedCreate, "FailedCreate"),
    (EventReason::ConfigurationError, "ConfigurationError"),
    (EventReason::CloudUnavailable, "CloudUnavailable"),
    (EventReason::CreatingNode, "CreatingNode"),
    (EventReason::SuccessfulCreateNode, "SuccessfulCreateNode"),
    (EventReason::FailedCreateNode, "FailedCreateNode"),
    (EventReason::SuccessfulDeleteNode, "SuccessfulDeleteNode"),
    (EventReason::FailedDeleteNode, "FailedDeleteNode"),
    (EventReason::DeletedBrokenNode, "DeletedBrokenNode"),
    (EventReason::StoppedNode, "StoppedNode"),
    (
        EventReason::WaitingForDeorbitVolumes,
        "WaitingForDeorbitVolumes",
    ),
    (
        EventReason::WaitingForDeorbitLoadBalancers,
        "WaitingForDeorbitLoadBalancers",
    ),
    (
        EventReason::WaitingForDeorbitRoutes,
        "WaitingForDeorbitRoutes",
    ),
    (
        EventReason::WaitingForDeorbitFloatingIPs,
        "WaitingForDeorbitFloatingIPs",
    ),
    (
        EventReason::WaitingForDeorbitSecurityGroups,
        "WaitingForDeorbitSecurityGroups",
    ),
    (
        EventReason::WaitingForDeorbitNodes,
        "WaitingForDeorbitNodes",
    ),
    (
        EventReason::SuccessfulDeorbitVolumes,
        "SuccessfulDeorbitVolumes",
    ),
    (
        EventReason::SuccessfulDeorbitFloatingIPs,
        "SuccessfulDeorbitFloatingIPs",
    ),
    (
        EventReason::SuccessfulDeorbitSecurityGroups,
        "SuccessfulDeorbitSecurityGroups",
    ),
    (
        EventReason::SuccessfulDeorbitLoadBalancers,
        "SuccessfulDeorbitLoadBalancers",
    ),
    (
        EventReason::SuccessfulDeorbitRoutes,
        "SuccessfulDeorbitRoutes",
    ),
    (EventReason::SuccessfulDeorbit, "SuccessfulDeorbit"),
    (EventReason::FailedDeorbit, "FailedDeorbit"),
    (EventReason::NotOwned, "NotOwned"),
];

impl EventReason {
    /// The wire spelling, e.g. `FailedCreateNode`.
    pub fn as_str(&self) -> &str {
        match self {
            EventReason::Other(s) => s,
            known => KNOWN
                .iter()
                .find(|(r, _)| r == known)
                .map_or("", |(_, s)| s),
        }
    }

    /// Parses a wire spelling; unknown reasons become [`EventReason::Other`].
    pub fn parse(s: &str) -> EventReason {
        KNOWN
            .iter()
            .find(|(_, w)| *w == s)
            .map_or_else(|| EventReason::Other(s.to_string()), |(r, _)| r.clone())
    }
}

impl std::fmt::Display for EventReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(EventReason::parse(&s))
    }
}

/// Extension: a typed detail of an event, for advice that depends on more than the
/// reason (spelled as the variant's name; unknown ones are kept as [`EventDetail::Other`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventDetail {
    /// The cloud refused a server: the project's quota (instances, cores or RAM) is used up.
    QuotaExceeded,
    /// Several routers fit the kluster: one has to be chosen.
    SeveralRouters,
    /// Nova found no host to place a server on (a full zone, or a flavor no host fits).
    NoValidHost,
    /// A detail this code does not know, kept as sent.
    Other(String),
}

impl EventDetail {
    /// The wire spelling, e.g. `QuotaExceeded`.
    pub fn as_str(&self) -> &str {
        match self {
            EventDetail::QuotaExceeded => "QuotaExceeded",
            EventDetail::SeveralRouters => "SeveralRouters",
            EventDetail::NoValidHost => "NoValidHost",
            EventDetail::Other(s) => s,
        }
    }

    /// Parses a wire spelling; unknown details become [`EventDetail::Other`].
    pub fn parse(s: &str) -> EventDetail {
        match s {
            "QuotaExceeded" => EventDetail::QuotaExceeded,
            "SeveralRouters" => EventDetail::SeveralRouters,
            "NoValidHost" => EventDetail::NoValidHost,
            other => EventDetail::Other(other.to_string()),
        }
    }
}

impl std::fmt::Display for EventDetail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventDetail {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventDetail {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(EventDetail::parse(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, KlusterPhase};

    #[test]
    fn reasons_round_trip_with_their_kubernikus_spelling() {
        for (r, wire) in KNOWN {
            assert_eq!(r.as_str(), *wire);
            assert_eq!(EventReason::parse(wire), *r);
            let json = serde_json::to_string(r).unwrap();
            assert_eq!(json, format!("\"{wire}\""));
            assert_eq!(serde_json::from_str::<EventReason>(&json).unwrap(), *r);
        }
        let other: EventReason = serde_json::from_str("\"MigrationFailed\"").unwrap();
        assert_eq!(other, EventReason::Other("MigrationFailed".into()));
        assert_eq!(
            serde_json::to_string(&other).unwrap(),
            "\"MigrationFailed\""
        );
        for p in [
            KlusterPhase::Pending,
            KlusterPhase::Creating,
            KlusterPhase::Running,
            KlusterPhase::Upgrading,
            KlusterPhase::Terminating,
        ] {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.as_str()));
            assert_eq!(p.reason().as_str(), p.as_str());
        }
    }

    #[test]
    fn types_spell_normal_and_warning() {
        assert_eq!(
            serde_json::to_string(&EventType::Warning).unwrap(),
            "\"Warning\""
        );
        assert_eq!(EventType::parse("Normal"), Some(EventType::Normal));
        assert_eq!(EventType::parse("Error"), None);
        let e = Event {
            kind: "Warning".into(),
            reason: "FailedCreateNode".into(),
            ..Default::default()
        };
        assert_eq!(e.event_type(), Some(EventType::Warning));
        assert_eq!(e.event_reason(), EventReason::FailedCreateNode);
    }

    #[test]
    fn details_are_optional_on_the_wire_and_unknown_ones_kept() {
        let plain: Event = serde_json::from_str(
            r#"{"count":1,"lastTimestamp":"t","firstTimestamp":"t","reason":"FailedCreateNode","message":"m","type":"Warning"}"#,
        )
        .unwrap();
        assert_eq!(plain.detail, None);
        assert!(!serde_json::to_string(&plain).unwrap().contains("detail"));
        let quota = Event {
            detail: Some(EventDetail::QuotaExceeded),
            ..plain
        };
        let json = serde_json::to_value(&quota).unwrap();
        assert_eq!(json["detail"], "QuotaExceeded");
        assert_eq!(serde_json::from_value::<Event>(json).unwrap(), quota);
        for d in [
            EventDetail::QuotaExceeded,
            EventDetail::SeveralRouters,
            EventDetail::NoValidHost,
        ] {
            assert_eq!(EventDetail::parse(d.as_str()), d);
        }
        assert_eq!(
            serde_json::from_str::<EventDetail>("\"DiskFull\"").unwrap(),
            EventDetail::Other("DiskFull".into())
        );
    }
}
