//! What the dashboard and the controller both need to serve, and nothing of either's
//! domain: a dashboard pointed at a real Kubernikus builds with this crate and without the
//! controller.
//!
//! - [`clock`]: the time source, real or moved by tests.
//! - [`seal`]: secrets sealed at rest (sessions, CA keys, passwords) and the key file.
//! - [`net`]: which proxies' `X-Forwarded-For` is believed.
//! - [`request`]: request ids, the kluster a route names, probes.
//! - [`metrics`]: HTTP metrics by route template and the text exposition.
//! - [`telemetry`]: logs (text or JSON) and OTLP traces.
//! - [`shutdown`]: a shutdown signal both servers and their background work watch.

pub mod clock;
pub mod metrics;
pub mod net;
pub mod request;
pub mod seal;
pub mod shutdown;
pub mod telemetry;
