//! The controller's project event stream (`GET /api/v1/events/stream`, a Mission Control
//! extension) as a typed [`Stream`] of [`StreamEvent`]s, read with the one SSE parser.

use std::pin::Pin;

use futures_util::stream::{self, Stream};
use kluster::ProjectEvent;

use crate::sse::Parser;
use crate::Error;

/// Largest frame the stream accepts.
pub const MAX_FRAME: usize = 4 << 20;

/// One message of the event stream.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// Subscribed: the stream goes on after sequence number `0` (the latest at connect,
    /// or the `after` asked for).
    Ready(i64),
    /// A new or counted-up event.
    Event(ProjectEvent),
    /// Kluster `0` changed (its spec or status).
    Kluster(String),
    /// The controller no longer accepts the token: the stream ends after this.
    Unauthorized,
}

/// The typed event stream; it ends when the controller ends it, and yields an error
/// (then ends) when the connection breaks or a frame is too large.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, Error>> + Send>>;

/// The typed stream of an accepted answer.
pub(crate) fn of_response(resp: reqwest::Response) -> EventStream {
    struct St {
        resp: Option<reqwest::Response>,
        parser: Parser,
        queue: std::collections::VecDeque<StreamEvent>,
    }
    let st = St {
        resp: Some(resp),
        parser: Parser::new(MAX_FRAME),
        queue: Default::default(),
    };
    Box::pin(stream::unfold(st, |mut st| async move {
        loop {
            if let Some(e) = st.queue.pop_front() {
                if e == StreamEvent::Unauthorized {
                    // Nothing after it counts: the stream ends here.
                    st.queue.clear();
                    st.resp = None;
                }
                return Some((Ok(e), st));
            }
            let resp = st.resp.as_mut()?;
            let chunk = match resp.chunk().await {
                Ok(Some(c)) => c,
                Ok(None) => return None,
                Err(e) => {
                    st.resp = None;
                    return Some((Err(crate::error::unreachable(e)), st));
                }
            };
            match st.parser.push(&chunk) {
                Ok(frames) => st.queue.extend(frames.into_iter().filter_map(typed)),
                Err(e) => {
                    st.resp = None;
                    return Some((Err(Error::Unreachable(e.to_string())), st));
                }
            }
        }
    }))
}

/// The typed message of a frame; `None` for frames this client does not know (or whose
/// data does not parse: one bad event does not end the stream).
fn typed(f: crate::sse::Frame) -> Option<StreamEvent> {
    Some(match f.event.as_str() {
        "ready" => StreamEvent::Ready(f.data.trim().parse().unwrap_or(0)),
        "event" => StreamEvent::Event(serde_json::from_str(&f.data).ok()?),
        "kluster" => StreamEvent::Kluster(f.data.trim().to_string()),
        "unauthorized" => StreamEvent::Unauthorized,
        _ => return None,
    })
}
