//! Nova's notifications, when the operator points the controller at the cloud's message
//! bus (`controller_openstack_notifications_url`): a server of a kluster deleted, failed or
//! come up wakes its project's pass at once ([`Notices::subscribe`]), and while the bus is
//! heard an idle project's look asks the cloud nothing between full listings
//! ([`Notices::trusted_since`]): polling becomes the slow safety net.
//!
//! The reader ([`reader`]) binds a queue of its own (exclusive, deleted with its connection,
//! capped at [`reader::MAX_QUEUED`] messages, oldest dropped) to Nova's exchange `nova` with
//! the routing keys `<topic>.info` and `<topic>.error`, and reconnects with a backoff. A
//! notice missed while it was away cannot be trusted to have been seen: the trust starts
//! again from the new connection, and only once a notification arrived on it (a bus that
//! carries nothing, because Nova sends none, is never trusted).

pub mod parse;
pub mod reader;

use std::path::PathBuf;
use std::sync::Mutex;

use tokio::sync::broadcast;
use tokio::time::Instant;

/// Nova's exchange (its `control_exchange`).
pub const EXCHANGE: &str = "nova";

/// Nova's versioned notifications' topic, unless configured otherwise
/// (`[notifications] versioned_notifications_topics`).
pub const DEFAULT_TOPIC: &str = "versioned_notifications";

/// Where the notifications are read.
#[derive(Clone, PartialEq, Eq)]
pub struct NoticeConfig {
    /// `amqp://user:password@host:port/vhost` (or `amqps://`); holds a password, never
    /// logged.
    pub url: String,
    /// The topic Nova publishes versioned notifications under.
    pub topic: String,
    /// A PEM file of CA certificates for `amqps://` (a private CA).
    pub ca_file: Option<PathBuf>,
}

impl std::fmt::Debug for NoticeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NoticeConfig")
            .field("url", &redacted(&self.url))
            .field("topic", &self.topic)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

/// `url` without its user and password: `amqp://host:port/vhost`.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        Err(_) => "<not a URL>".into(),
    }
}

/// Checks a notifications URL: amqp or amqps with a host (words never repeat it).
pub fn check_url(url: &str) -> Result<(), String> {
    match url::Url::parse(url.trim()) {
        Ok(u) if matches!(u.scheme(), "amqp" | "amqps") && u.has_host() => Ok(()),
        Ok(_) => Err("expected an amqp:// or amqps:// URL with a host".into()),
        Err(e) => Err(format!("not a URL ({e})")),
    }
}

/// The reader's state, as the reconcilers see it.
#[derive(Debug, Default)]
struct Heard {
    /// When the current connection began to deliver (`None`: not connected).
    since: Option<Instant>,
    /// Whether a notification arrived on it.
    any: bool,
}

/// What the bus says, shared by the reader and the reconcile loop.
#[derive(Debug)]
pub struct Notices {
    projects: broadcast::Sender<String>,
    heard: Mutex<Heard>,
}

impl Default for Notices {
    fn default() -> Self {
        Notices {
            projects: broadcast::channel(1024).0,
            heard: Mutex::default(),
        }
    }
}

impl Notices {
    /// Projects whose servers changed, from now on (a lagging reader should assume every
    /// project did).
    pub fn subscribe(&self) -> broadcast::Receiver<String> {
        self.projects.subscribe()
    }

    /// Whether every change since `t` would have been told: the bus has delivered without
    /// a break since before `t`, and it carries Nova's notifications.
    pub fn trusted_since(&self, t: Instant) -> bool {
        let h = self.heard.lock().unwrap_or_else(|e| e.into_inner());
        h.any && h.since.is_some_and(|since| since <= t)
    }

    /// Whether the bus is connected now (for `/metrics` and logs).
    pub fn connected(&self) -> bool {
        let h = self.heard.lock().unwrap_or_else(|e| e.into_inner());
        h.since.is_some()
    }

    /// The reader began to deliver on a new connection.
    pub fn connected_now(&self) {
        let mut h = self.heard.lock().unwrap_or_else(|e| e.into_inner());
        *h = Heard {
            since: Some(Instant::now()),
            any: false,
        };
    }

    /// The reader lost its connection: nothing is trusted until the next one delivers.
    pub fn disconnected(&self) {
        let mut h = self.heard.lock().unwrap_or_else(|e| e.into_inner());
        *h = Heard::default();
    }

    /// A notification arrived; `wake` names the project to look at again.
    pub fn heard(&self, wake: Option<String>) {
        {
            let mut h = self.heard.lock().unwrap_or_else(|e| e.into_inner());
            h.any = true;
        }
        if let Some(project) = wake {
            let _ = self.projects.send(project);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn trust_needs_a_connection_from_before_and_a_notification_on_it() {
        let n = Notices::default();
        let before = Instant::now();
        assert!(!n.trusted_since(before), "never connected");
        tokio::time::advance(Duration::from_secs(1)).await;
        n.connected_now();
        tokio::time::advance(Duration::from_secs(1)).await;
        let listed = Instant::now();
        assert!(!n.trusted_since(listed), "nothing heard yet");
        n.heard(None);
        assert!(n.trusted_since(listed));
        assert!(!n.trusted_since(before), "listed before the connection");
        n.disconnected();
        assert!(!n.trusted_since(listed));
        tokio::time::advance(Duration::from_secs(1)).await;
        n.connected_now();
        n.heard(None);
        assert!(!n.trusted_since(listed), "a break in between");
    }

    #[test]
    fn urls_are_checked_and_logged_without_their_password() {
        assert_eq!(
            redacted("amqp://nova:s3cret@10.0.0.1:5672/vh"),
            "amqp://10.0.0.1:5672/vh"
        );
        assert!(check_url("amqps://u:p@rabbit.example.com/").is_ok());
        let e = check_url("http://u:s3cret@x/").unwrap_err();
        assert!(!e.contains("s3cret"));
        assert!(check_url("rabbit").is_err());
        let c = NoticeConfig {
            url: "amqp://u:s3cret@h/".into(),
            topic: DEFAULT_TOPIC.into(),
            ca_file: None,
        };
        assert!(!format!("{c:?}").contains("s3cret"));
    }
}
