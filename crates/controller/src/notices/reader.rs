//! The task that reads Nova's notifications ([`run`]): one AMQP connection at a time, a
//! queue of its own bound to `nova` / `<topic>.info` and `<topic>.error`, messages taken
//! without acknowledgement (a notice lost is caught by the next full listing). A failed or
//! closed connection is tried again after a pause that doubles up to [`BACKOFF_CAP`]
//! (with jitter), and starts over after a connection that lasted.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use lapin::options::{BasicConsumeOptions, QueueBindOptions, QueueDeclareOptions};
use lapin::tcp::OwnedTLSConfig;
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Connection, ConnectionProperties};

use super::{parse, redacted, NoticeConfig, Notices, EXCHANGE};
use crate::metrics::Metrics;

/// Most messages the queue holds for a reader that is behind; older ones are dropped.
pub const MAX_QUEUED: i32 = 10_000;

/// Longest wait for a connection to open and the queue to be bound.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// First pause before connecting again.
const BACKOFF_FIRST: Duration = Duration::from_secs(1);

/// Longest pause before connecting again.
pub const BACKOFF_CAP: Duration = Duration::from_secs(30);

/// A connection that delivered this long starts the backoff over when it ends.
const LASTED: Duration = Duration::from_secs(60);

/// Reads notifications into `notices` until `shutdown` completes.
pub async fn run(
    config: NoticeConfig,
    notices: Arc<Notices>,
    metrics: Arc<Metrics>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let bus = redacted(&config.url);
    let mut backoff = BACKOFF_FIRST;
    let mut last_error = String::new();
    loop {
        let began = tokio::time::Instant::now();
        let ended = tokio::select! {
            _ = &mut shutdown => {
                notices.disconnected();
                metrics.notices_connected(false);
                return;
            }
            ended = session(&config, &notices, &metrics) => ended,
        };
        let delivered = notices.connected();
        notices.disconnected();
        metrics.notices_connected(false);
        if delivered && began.elapsed() >= LASTED {
            backoff = BACKOFF_FIRST;
        }
        // The same failure again (the exchange not there until Nova first publishes) is
        // said once, then only at debug level.
        match ended == last_error {
            true => tracing::debug!(
                controller = "notices",
                bus,
                error = ended,
                "still not reading Nova's notifications"
            ),
            false => {
                tracing::warn!(controller = "notices", bus, error = ended, retry_in = ?backoff, "not reading Nova's notifications: polling instead")
            }
        }
        last_error = ended;
        let jitter = backoff.mul_f64(rand_fraction() * 0.25);
        tokio::select! {
            _ = &mut shutdown => return,
            _ = tokio::time::sleep(backoff + jitter) => {}
        }
        backoff = (backoff * 2).min(BACKOFF_CAP);
    }
}

/// A number in [0, 1) for jitter (not for secrets).
fn rand_fraction() -> f64 {
    let mut b = [0u8; 2];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut b);
    f64::from(u16::from_le_bytes(b)) / 65536.0
}

/// One connection, from opening to its end: why it ended, in words without the password.
async fn session(config: &NoticeConfig, notices: &Notices, metrics: &Metrics) -> String {
    let consumer = match tokio::time::timeout(CONNECT_TIMEOUT, open(config)).await {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return e,
        Err(_) => return format!("no connection within {CONNECT_TIMEOUT:?}"),
    };
    let (connection, mut consumer) = consumer;
    notices.connected_now();
    metrics.notices_connected(true);
    tracing::info!(
        controller = "notices",
        bus = redacted(&config.url),
        "reading Nova's notifications"
    );
    while let Some(delivery) = consumer.next().await {
        let delivery = match delivery {
            Ok(d) => d,
            Err(e) => return format!("the bus failed: {e}"),
        };
        match parse::read(&delivery.data) {
            Ok(Some(n)) if n.wakes() => {
                metrics.notice("woke");
                tracing::debug!(
                    controller = "notices",
                    project = n.project,
                    server = n.server,
                    event = n.event,
                    "a kluster's server changed"
                );
                notices.heard(Some(n.project));
            }
            Ok(_) => {
                metrics.notice("ignored");
                notices.heard(None);
            }
            Err(e) => {
                metrics.notice("unreadable");
                tracing::debug!(controller = "notices", error = %e, "a message on the bus was not read");
            }
        }
    }
    drop(connection);
    "the bus ended the subscription".into()
}

/// Opens a connection and subscribes a queue of its own to the notifications.
async fn open(config: &NoticeConfig) -> Result<(Connection, lapin::Consumer), String> {
    let cert_chain = match &config.ca_file {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| format!("reading the CA file {}: {e}", path.display()))?,
        ),
        None => None,
    };
    let tls = OwnedTLSConfig {
        identity: None,
        cert_chain,
    };
    let runtime = lapin::runtime::default_runtime().map_err(|e| e.to_string())?;
    let props = ConnectionProperties::default().with_connection_name("mission-control".into());
    let failed = |what: &str, e: lapin::Error| format!("{what}: {e}");
    let connection = Connection::connect_with_config(config.url.trim(), props, tls, runtime)
        .await
        .map_err(|e| failed("connecting", e))?;
    let channel = connection
        .create_channel()
        .await
        .map_err(|e| failed("opening a channel", e))?;
    let mut args = FieldTable::default();
    args.insert("x-max-length".into(), AMQPValue::LongInt(MAX_QUEUED));
    let own = QueueDeclareOptions {
        exclusive: true,
        auto_delete: true,
        ..Default::default()
    };
    let queue = channel
        .queue_declare("".into(), own, args)
        .await
        .map_err(|e| failed("declaring a queue", e))?;
    for priority in ["info", "error"] {
        let key = format!("{}.{priority}", config.topic);
        channel
            .queue_bind(
                queue.name().clone(),
                EXCHANGE.into(),
                key.as_str().into(),
                QueueBindOptions::default(),
                FieldTable::default(),
            )
            .await
            .map_err(|e| failed(&format!("binding to {EXCHANGE}/{key}"), e))?;
    }
    let no_ack = BasicConsumeOptions {
        no_ack: true,
        ..Default::default()
    };
    let consumer = channel
        .basic_consume(
            queue.name().clone(),
            "".into(),
            no_ack,
            FieldTable::default(),
        )
        .await
        .map_err(|e| failed("subscribing", e))?;
    Ok((connection, consumer))
}
