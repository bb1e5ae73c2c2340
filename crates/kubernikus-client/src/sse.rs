//! The one Server-Sent Events frame parser: bytes in, `(event, data)` frames out, with a
//! bound on a frame's size.

/// One SSE frame: its `event:` name (empty when absent) and its `data:` lines joined.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The `event:` field (`""` when the frame has none: a plain `message`).
    pub event: String,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
    /// The `id:` field, when there is one.
    pub id: Option<String>,
}

/// Splits a byte stream into frames. Frames end at a blank line; comments (`:` lines) are
/// skipped; a frame that grows past the bound is an error.
#[derive(Debug)]
pub struct Parser {
    buf: String,
    max_frame: usize,
}

/// A frame grew past the parser's bound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an event frame over {0} bytes")]
pub struct TooLarge(pub usize);

impl Parser {
    /// A parser that refuses frames longer than `max_frame` bytes.
    pub fn new(max_frame: usize) -> Self {
        Self {
            buf: String::new(),
            max_frame,
        }
    }

    /// Feeds `chunk`, returning every frame it completes.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Frame>, TooLarge> {
        self.buf.push_str(&String::from_utf8_lossy(chunk));
        if self.buf.contains('\r') {
            self.buf = self.buf.replace("\r\n", "\n").replace('\r', "\n");
        }
        let mut out = Vec::new();
        while let Some(end) = self.buf.find("\n\n") {
            let raw: String = self.buf.drain(..end + 2).collect();
            if let Some(f) = parse(&raw) {
                out.push(f);
            }
        }
        if self.buf.len() > self.max_frame {
            return Err(TooLarge(self.max_frame));
        }
        Ok(out)
    }
}

/// One frame's fields; `None` for a frame of comments only.
fn parse(raw: &str) -> Option<Frame> {
    let mut f = Frame::default();
    let mut data: Vec<&str> = Vec::new();
    let mut any = false;
    for line in raw.lines() {
        if line.is_empty() || line.starts_with(':') {
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        any = true;
        match field {
            "event" => f.event = value.to_string(),
            "data" => data.push(value),
            "id" => f.id = Some(value.to_string()),
            _ => {}
        }
    }
    f.data = data.join("\n");
    any.then_some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_across_chunks_with_comments_ids_and_multiline_data() {
        let mut p = Parser::new(1024);
        assert_eq!(p.push(b": keep-alive\n\nevent: rea").unwrap(), vec![]);
        let f = p
            .push(b"dy\ndata: 7\n\nid: 3\ndata: a\ndata:b\n\n")
            .unwrap();
        assert_eq!(
            f,
            vec![
                Frame {
                    event: "ready".into(),
                    data: "7".into(),
                    id: None
                },
                Frame {
                    event: String::new(),
                    data: "a\nb".into(),
                    id: Some("3".into())
                },
            ]
        );
        let f = p.push(b"event: x\r\ndata: y\r\n\r\n").unwrap();
        assert_eq!((f[0].event.as_str(), f[0].data.as_str()), ("x", "y"));
    }

    #[test]
    fn a_frame_past_the_bound_is_refused() {
        let mut p = Parser::new(16);
        assert_eq!(p.push(&[b'x'; 17]), Err(TooLarge(16)));
    }
}
