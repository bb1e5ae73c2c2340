//! Reading one of Nova's versioned notifications ([`read`]): the oslo.messaging envelope
//! (`{"oslo.version": "2.0", "oslo.message": "<json>"}`, or the message itself), its
//! `event_type`, and the instance payload's `tenant_id`, `uuid`, `state` and `metadata`
//! (`payload["nova_object.data"]`). Only what a reconciler must look at again wakes a
//! project ([`Notice::wakes`]).

use serde::Deserialize;
use serde_json::Value;

use crate::cloud::owner::UID_KEY;

/// The largest notification read; a bigger one is dropped unread (Nova's are a few KB).
pub const MAX_BODY: usize = 256 * 1024;

/// What one notification says about one server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// `instance.delete.end`, `instance.update`, …
    pub event: String,
    /// The server's project.
    pub project: String,
    /// The server's id.
    pub server: String,
    /// Its state after the event (`active`, `error`, `deleted`, …; empty when not said).
    pub state: String,
    /// Whether it carries a kluster's mark (`kluster` or `kluster_uid` metadata).
    pub klusters: bool,
}

/// Why a message was not read as a notice.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unread {
    /// Not JSON, or not shaped as an oslo.messaging notification.
    #[error("not a notification: {0}")]
    Malformed(String),
    /// Larger than [`MAX_BODY`].
    #[error("a notification of {0} bytes is over the limit")]
    TooLarge(usize),
}

/// Server states after which a reconciler acts (or must see the server go).
const ACTED_ON: [&str; 9] = [
    "error",
    "deleted",
    "soft-delete",
    "stopped",
    "shelved",
    "shelved_offloaded",
    "suspended",
    "paused",
    "rescued",
];

impl Notice {
    /// Whether a reconciler should look at the server's project now: a kluster's server
    /// that was deleted, came up, failed to come up, or went into a state nodes cannot run
    /// in. Progress updates (`building`, a task state changing while `active`) do not.
    pub fn wakes(&self) -> bool {
        if !self.klusters {
            return false;
        }
        match self.event.as_str() {
            "instance.delete.end"
            | "instance.create.end"
            | "instance.create.error"
            | "instance.soft_delete.end"
            | "instance.power_off.end"
            | "instance.shutdown.end" => true,
            "instance.update" => ACTED_ON.contains(&self.state.as_str()),
            _ => false,
        }
    }
}

#[derive(Deserialize)]
struct Message {
    event_type: String,
    #[serde(default)]
    payload: Value,
}

/// The notice in `body`; `Ok(None)` for a well-formed notification about something other
/// than an instance.
pub fn read(body: &[u8]) -> Result<Option<Notice>, Unread> {
    if body.len() > MAX_BODY {
        return Err(Unread::TooLarge(body.len()));
    }
    let bad = |e: serde_json::Error| Unread::Malformed(e.to_string());
    let outer: Value = serde_json::from_slice(body).map_err(bad)?;
    // messagingv2 wraps the message in an envelope; the older driver does not.
    let message: Message = match outer.get("oslo.message") {
        Some(Value::String(inner)) => serde_json::from_str(inner).map_err(bad)?,
        Some(_) => return Err(Unread::Malformed("oslo.message is not a string".into())),
        None => serde_json::from_value(outer).map_err(bad)?,
    };
    if !message.event_type.starts_with("instance.") {
        return Ok(None);
    }
    let Some(data) = message.payload.get("nova_object.data") else {
        return Ok(None); // a legacy (unversioned) notification
    };
    let text = |key: &str| {
        data.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let (project, server) = (text("tenant_id"), text("uuid"));
    if project.is_empty() || server.is_empty() {
        return Ok(None);
    }
    let klusters = data
        .get("metadata")
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key("kluster") || m.contains_key(UID_KEY));
    Ok(Some(Notice {
        event: message.event_type,
        project,
        server,
        state: text("state"),
        klusters,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// An envelope as messagingv2 sends it, for an instance payload.
    fn envelope(event: &str, state: &str, metadata: Value) -> Vec<u8> {
        let message = json!({
            "message_id": "m1",
            "publisher_id": "nova-compute:host1",
            "event_type": event,
            "priority": "INFO",
            "timestamp": "2026-12-07 21:00:00.000000",
            "payload": {
                "nova_object.name": "InstanceActionPayload",
                "nova_object.namespace": "nova",
                "nova_object.version": "1.8",
                "nova_object.data": {
                    "uuid": "srv-1",
                    "tenant_id": "proj-1",
                    "state": state,
                    "task_state": null,
                    "metadata": metadata,
                }
            }
        });
        serde_json::to_vec(&json!({
            "oslo.version": "2.0",
            "oslo.message": message.to_string(),
        }))
        .unwrap()
    }

    #[test]
    fn a_kluster_servers_delete_wakes_its_project() {
        let body = envelope(
            "instance.delete.end",
            "deleted",
            json!({"kluster": "k", "kluster_uid": "u"}),
        );
        let n = read(&body).unwrap().unwrap();
        assert_eq!(n.project, "proj-1");
        assert_eq!(n.server, "srv-1");
        assert!(n.klusters);
        assert!(n.wakes());
    }

    #[test]
    fn a_tenants_own_server_and_progress_updates_wake_nothing() {
        let own = envelope("instance.delete.end", "deleted", json!({"app": "db"}));
        assert!(!read(&own).unwrap().unwrap().wakes());
        let progress = envelope("instance.update", "building", json!({"kluster": "k"}));
        assert!(!read(&progress).unwrap().unwrap().wakes());
        let failed = envelope("instance.update", "error", json!({"kluster_uid": "u"}));
        assert!(read(&failed).unwrap().unwrap().wakes());
    }

    #[test]
    fn an_unwrapped_message_is_read_too_and_other_services_are_skipped() {
        let plain = json!({
            "event_type": "instance.create.end",
            "payload": {"nova_object.data": {"uuid": "s", "tenant_id": "p", "state": "active",
                "metadata": {"kluster": "k"}}}
        });
        let n = read(plain.to_string().as_bytes()).unwrap().unwrap();
        assert!(n.wakes());
        let other = json!({"event_type": "aggregate.create.end", "payload": {}});
        assert_eq!(read(other.to_string().as_bytes()), Ok(None));
        let legacy = json!({"event_type": "instance.exists", "payload": {"tenant_id": "p"}});
        assert_eq!(read(legacy.to_string().as_bytes()), Ok(None));
    }

    #[test]
    fn garbage_and_oversized_bodies_are_refused_in_words() {
        assert!(matches!(read(b"<html>"), Err(Unread::Malformed(_))));
        let bad_inner = br#"{"oslo.version":"2.0","oslo.message":"{not json"}"#;
        assert!(matches!(read(bad_inner), Err(Unread::Malformed(_))));
        let big = vec![b' '; MAX_BODY + 1];
        assert_eq!(read(&big), Err(Unread::TooLarge(MAX_BODY + 1)));
    }
}
