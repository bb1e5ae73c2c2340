//! Events about a kluster: the Kubernikus [`Event`] and the controller's [`ProjectEvent`].

use serde::{Deserialize, Serialize};

use crate::event::{EventReason, EventType};

/// Extension (the controller's event stream): an event of a project with its identity.
/// `id` names the event (an aggregated repeat keeps it); `seq` grows with every change, so a
/// reader resumes after the last `seq` it saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "FlatProjectEvent")]
pub struct ProjectEvent {
    /// Stable id of the (aggregated) event.
    pub id: i64,
    /// Change sequence number, monotonic across the controller.
    pub seq: i64,
    /// The kluster the event is about.
    pub kluster: String,
    /// The event in the Kubernikus shape.
    #[serde(flatten)]
    pub event: Event,
}

/// A [`ProjectEvent`] as read: the same JSON, its event's fields beside its own. (Read with
/// `#[serde(flatten)]`, it went through serde's buffered generic decoding, which costs the
/// browser's first load several KB of WASM.)
#[derive(Deserialize)]
struct FlatProjectEvent {
    id: i64,
    seq: i64,
    kluster: String,
    count: i64,
    #[serde(rename = "lastTimestamp")]
    last_timestamp: String,
    #[serde(rename = "firstTimestamp")]
    first_timestamp: String,
    reason: String,
    message: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    detail: Option<crate::event::EventDetail>,
}

impl From<FlatProjectEvent> for ProjectEvent {
    fn from(f: FlatProjectEvent) -> Self {
        ProjectEvent {
            id: f.id,
            seq: f.seq,
            kluster: f.kluster,
            event: Event {
                count: f.count,
                last_timestamp: f.last_timestamp,
                first_timestamp: f.first_timestamp,
                reason: f.reason,
                message: f.message,
                kind: f.kind,
                detail: f.detail,
            },
        }
    }
}

/// A Kubernetes-style event about a kluster.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// How often it occurred.
    pub count: i64,
    /// Most recent occurrence (RFC 3339).
    #[serde(rename = "lastTimestamp")]
    pub last_timestamp: String,
    /// First occurrence (RFC 3339).
    #[serde(rename = "firstTimestamp")]
    pub first_timestamp: String,
    /// Machine-readable reason, e.g. `FailedCreateNode`.
    pub reason: String,
    /// Human-readable message.
    pub message: String,
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Extension: what the event is about, in a word a client can act on (e.g.
    /// `QuotaExceeded` on a `FailedCreateNode`); absent from a real Kubernikus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<crate::event::EventDetail>,
}

impl Event {
    /// The event's type; `None` when it is neither `Normal` nor `Warning`.
    pub fn event_type(&self) -> Option<EventType> {
        EventType::parse(&self.kind)
    }

    /// The event's reason ([`EventReason::Other`] when unknown).
    pub fn event_reason(&self) -> EventReason {
        EventReason::parse(&self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_event_reads_back_what_it_writes_with_its_event_fields_beside_its_own() {
        let e = ProjectEvent {
            id: 7,
            seq: 42,
            kluster: "k1".into(),
            event: Event {
                count: 3,
                last_timestamp: "2026-12-02T03:00:00Z".into(),
                first_timestamp: "2026-12-02T02:00:00Z".into(),
                reason: "FailedCreateNode".into(),
                message: "quota".into(),
                kind: "Warning".into(),
                detail: Some(crate::event::EventDetail::parse("QuotaExceeded")),
            },
        };
        let json = serde_json::to_value(&e).expect("serializes");
        assert_eq!(json["lastTimestamp"], "2026-12-02T03:00:00Z");
        assert_eq!(json["kluster"], "k1");
        let back: ProjectEvent = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, e);
        let without_detail = serde_json::json!({"id": 1, "seq": 2, "kluster": "k", "count": 1,
            "lastTimestamp": "t", "firstTimestamp": "t", "reason": "r", "message": "m",
            "type": "Normal", "extra": true});
        let read: ProjectEvent = serde_json::from_value(without_detail).expect("reads");
        assert_eq!((read.seq, read.event.detail), (2, None));
        let missing_count = serde_json::json!({"id": 1, "seq": 2, "kluster": "k"});
        assert!(serde_json::from_value::<ProjectEvent>(missing_count).is_err());
    }
}
