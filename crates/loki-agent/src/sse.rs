//! A small server-sent-events parser (pure): bytes in, complete events out.
//!
//! Follows the WHATWG `text/event-stream` rules that model APIs use: lines end in LF, CRLF or
//! CR; `event:` names the event, `data:` lines are joined with `\n`, a blank line dispatches,
//! lines starting with `:` are comments (keep-alives), one space after the colon is dropped,
//! and `id:`/`retry:` are ignored (nothing here reconnects). Bytes may split anywhere,
//! including inside a UTF-8 character: only complete lines are decoded.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` for the default `message` type.
    pub event: Option<String>,
    pub data: String,
}

/// Incremental parser state.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
    /// The previous chunk ended in CR: an LF starting the next one belongs to that line end.
    skip_lf: bool,
}

impl SseParser {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the events completed by them, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.skip_lf {
                self.skip_lf = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.skip_lf = b == b'\r';
                    let line = std::mem::take(&mut self.buf);
                    if let Some(ev) = self.line(&String::from_utf8_lossy(&line)) {
                        out.push(ev);
                    }
                }
                _ => self.buf.push(b),
            }
        }
        out
    }

    /// Ends the stream: a final event without its blank line is still dispatched.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            if let Some(ev) = self.line(&String::from_utf8_lossy(&line)) {
                return Some(ev);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => self.data.push(value.to_string()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if self.data.is_empty() {
            return None;
        }
        let data = std::mem::take(&mut self.data).join("\n");
        Some(SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const STREAM: &str = ": keep-alive\nevent: message_start\ndata: {\"a\":1}\n\ndata: line1\r\ndata:line2\r\n\r\nevent: ping\n\ndata: é\n\n";

    fn expected() -> Vec<SseEvent> {
        vec![
            SseEvent {
                event: Some("message_start".into()),
                data: "{\"a\":1}".into(),
            },
            SseEvent {
                event: None,
                data: "line1\nline2".into(),
            },
            SseEvent {
                event: None,
                data: "é".into(),
            },
        ]
    }

    #[test]
    fn parses_fields_comments_and_line_endings() {
        let mut p = SseParser::new();
        assert_eq!(p.push(STREAM.as_bytes()), expected());
        assert_eq!(p.finish(), None);
    }

    #[test]
    fn a_final_event_without_blank_line_is_dispatched_at_finish() {
        let mut p = SseParser::new();
        assert!(p.push(b"data: [DONE]").is_empty());
        assert_eq!(
            p.finish(),
            Some(SseEvent {
                event: None,
                data: "[DONE]".into()
            })
        );
    }

    proptest! {
        #[test]
        fn any_split_of_the_bytes_gives_the_same_events(cuts in proptest::collection::vec(0usize..STREAM.len(), 0..8)) {
            let bytes = STREAM.as_bytes();
            let mut cuts = cuts;
            cuts.sort_unstable();
            let mut p = SseParser::new();
            let mut got = Vec::new();
            let mut prev = 0;
            for c in cuts.into_iter().chain([bytes.len()]) {
                got.extend(p.push(&bytes[prev..c]));
                prev = c;
            }
            got.extend(p.finish());
            prop_assert_eq!(got, expected());
        }
    }
}
