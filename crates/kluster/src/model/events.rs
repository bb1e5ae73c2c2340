//! Events about a kluster: the Kubernikus [`Event`] and the controller's [`ProjectEvent`].

use serde::{Deserialize, Serialize};

use crate::event::{EventReason, EventType};

/// Extension (the controller's event stream): an event of a project with its identity.
/// `id` names the event (an aggregated repeat keeps it); `seq` grows with every change, so a
/// reader resumes after the last `seq` it saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
