//! A small incremental Server-Sent Events parser.
//!
//! Network chunks split lines (and UTF-8 sequences) anywhere, so bytes are buffered until a whole
//! line is there. Follows the parts of the WHATWG rules the model APIs use: `event:` and `data:`
//! fields, multi-line data joined with `\n`, `:` comments, a blank line ending an event.

/// One complete event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

impl SseEvent {
    /// True for OpenAI's end-of-stream marker.
    pub fn is_done(&self) -> bool {
        self.data.trim() == "[DONE]"
    }
}

/// Turns a byte stream into events.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buffer: Vec<u8>,
    pending: Pending,
}

/// The fields of the event being read.
#[derive(Debug, Default)]
struct Pending {
    event: Option<String>,
    data: Vec<String>,
}

impl SseParser {
    /// Adds a chunk and returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        // Lines are read in place and the buffer is drained once, after the last whole line.
        let mut start = 0;
        while let Some(offset) = self.buffer[start..].iter().position(|&b| b == b'\n') {
            let end = start + offset;
            let mut line = &self.buffer[start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            if let Some(event) = self.pending.line(&String::from_utf8_lossy(line)) {
                events.push(event);
            }
            start = end + 1;
        }
        self.buffer.drain(..start);
        events
    }

    /// Ends the stream: returns a last event not followed by a blank line, if any.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buffer.is_empty() {
            let rest = std::mem::take(&mut self.buffer);
            let line = String::from_utf8_lossy(&rest)
                .trim_end_matches('\r')
                .to_owned();
            if let Some(event) = self.pending.line(&line) {
                return Some(event);
            }
        }
        self.pending.dispatch()
    }
}

impl Pending {
    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => self.data.push(value.to_owned()),
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        let data = match self.data.len() {
            0 => return None,
            // The usual case: one `data:` line, taken as it is.
            1 => self.data.pop().unwrap_or_default(),
            _ => std::mem::take(&mut self.data).join("\n"),
        };
        Some(SseEvent { event, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(input: &str, size: usize) -> Vec<SseEvent> {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        for piece in input.as_bytes().chunks(size) {
            events.extend(parser.push(piece));
        }
        events.extend(parser.finish());
        events
    }

    #[test]
    fn same_events_whatever_the_chunking() {
        let input = ": keep-alive\n\nevent: message_start\ndata: {\"a\":1}\n\n\
                     data: line one\r\ndata: line two\r\n\r\ndata: héllo ✓\n\ndata: [DONE]\n\n";
        let whole = parse_in_pieces(input, input.len());
        assert_eq!(whole.len(), 4);
        assert_eq!(whole[0].event.as_deref(), Some("message_start"));
        assert_eq!(whole[0].data, "{\"a\":1}");
        assert_eq!(whole[1].data, "line one\nline two");
        assert_eq!(whole[2].data, "héllo ✓");
        assert!(whole[3].is_done());
        for size in 1..8 {
            assert_eq!(parse_in_pieces(input, size), whole, "chunk size {size}");
        }
    }

    #[test]
    fn last_event_without_blank_line_is_kept() {
        assert_eq!(parse_in_pieces("data: x\n\ndata: tail", 3).len(), 2);
        assert_eq!(parse_in_pieces("event: ping\n\n", 2), Vec::new());
    }

    #[test]
    fn data_without_space_and_unknown_fields() {
        let events = parse_in_pieces("id: 7\nretry: 10\ndata:{}\n\n", 4);
        assert_eq!(
            events,
            vec![SseEvent {
                event: None,
                data: "{}".into()
            }]
        );
    }
}
