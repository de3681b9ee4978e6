//! A small incremental Server-Sent Events parser.
//!
//! Network chunks split lines (and UTF-8 sequences) anywhere, so bytes are buffered until a whole
//! line is there. Follows the parts of the WHATWG rules the model APIs use: `event:` and `data:`
//! fields, multi-line data joined with `\n`, `:` comments, a blank line ending an event.

/// One complete event, borrowed from the parser until the next is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SseEvent<'a> {
    /// The `event:` field, if any.
    pub event: Option<&'a str>,
    /// The `data:` lines joined with `\n`.
    pub data: &'a str,
}

impl SseEvent<'_> {
    /// True for OpenAI's end-of-stream marker.
    pub fn is_done(&self) -> bool {
        self.data.trim() == "[DONE]"
    }
}

/// Turns a byte stream into events: [`push`](Self::push) each chunk (then
/// [`finish`](Self::finish) at the end) and read the events it completed with
/// [`next_event`](Self::next_event). Its buffers are reused from event to event, so a stream
/// costs no allocation per event once they have grown.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buffer: Vec<u8>,
    /// Where the first line not read yet starts in `buffer`.
    read: usize,
    /// `buffer` holds no line break before this: a long line is searched once, not again at
    /// every chunk.
    searched: usize,
    /// The stream has ended: the rest of `buffer` is a last line.
    finished: bool,
    /// The fields of the event being read.
    event: String,
    has_event: bool,
    data: String,
    data_lines: usize,
    /// The event was handed out: its fields are cleared before the next line is read.
    dispatched: bool,
}

impl SseParser {
    /// A parser with room for the chunks and events of a usual stream, so reading one does not
    /// `realloc` step by step (each of which takes the allocator's lock of the thread that
    /// allocated the buffer, contended when a stream's reads move between threads).
    pub fn new() -> Self {
        Self {
            buffer: Vec::with_capacity(512),
            data: String::with_capacity(256),
            ..Self::default()
        }
    }

    /// Adds a chunk of the stream.
    pub fn push(&mut self, chunk: &[u8]) {
        // Lines already read are dropped once, before the buffer grows.
        if self.read > 0 {
            self.buffer.drain(..self.read);
            self.searched = self.searched.saturating_sub(self.read);
            self.read = 0;
        }
        self.buffer.extend_from_slice(chunk);
    }

    /// Ends the stream: a last line without a line break, and a last event not followed by
    /// a blank line, are read too.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Bytes held for the event being read: its data so far and the line not ended yet. A
    /// caller stops a stream whose event grows past its limit.
    pub fn pending_bytes(&self) -> usize {
        self.buffer.len() - self.read + self.data.len()
    }

    /// The next complete event, if the chunks so far hold one.
    pub fn next_event(&mut self) -> Option<SseEvent<'_>> {
        if std::mem::take(&mut self.dispatched) {
            self.event.clear();
            self.has_event = false;
            self.data.clear();
            self.data_lines = 0;
        }
        if !self.read_to_event() {
            return None;
        }
        self.dispatched = true;
        Some(SseEvent {
            event: self.has_event.then_some(self.event.as_str()),
            data: &self.data,
        })
    }

    /// Reads lines up to the end of an event with data; false when the chunks so far end
    /// first.
    fn read_to_event(&mut self) -> bool {
        loop {
            let rest = &self.buffer[self.read..];
            let from = self.searched.saturating_sub(self.read).min(rest.len());
            let (line, next) = match memchr::memchr(b'\n', &rest[from..]) {
                Some(end) => (&rest[..from + end], self.read + from + end + 1),
                None if self.finished && !rest.is_empty() => (rest, self.buffer.len()),
                None if !self.finished => {
                    self.searched = self.buffer.len();
                    return false;
                }
                // The end of the stream ends the event being read.
                None => return std::mem::take(&mut self.data_lines) > 0,
            };
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                self.read = next;
                if self.data_lines > 0 {
                    return true;
                }
                // A blank line ends an event without data, which is not dispatched.
                self.event.clear();
                self.has_event = false;
                continue;
            }
            let (field, value) = match memchr::memchr(b':', line) {
                Some(colon) => {
                    let value = &line[colon + 1..];
                    (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (line, &[][..]),
            };
            match field {
                b"data" => {
                    if self.data_lines > 0 {
                        self.data.push('\n');
                    }
                    push_text(&mut self.data, value);
                    self.data_lines += 1;
                }
                b"event" => {
                    self.event.clear();
                    push_text(&mut self.event, value);
                    self.has_event = true;
                }
                // Comments (an empty field name) and other fields.
                _ => {}
            }
            self.read = next;
        }
    }
}

/// Appends `bytes` as text, invalid UTF-8 replaced.
fn push_text(text: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(valid) => text.push_str(valid),
        Err(_) => text.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event as owned strings, to compare.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Owned {
        event: Option<String>,
        data: String,
    }

    impl Owned {
        fn is_done(&self) -> bool {
            SseEvent {
                event: None,
                data: &self.data,
            }
            .is_done()
        }
    }

    fn drain(parser: &mut SseParser, events: &mut Vec<Owned>) {
        while let Some(event) = parser.next_event() {
            events.push(Owned {
                event: event.event.map(str::to_owned),
                data: event.data.to_owned(),
            });
        }
    }

    fn parse_in_pieces(input: &str, size: usize) -> Vec<Owned> {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        for piece in input.as_bytes().chunks(size) {
            parser.push(piece);
            drain(&mut parser, &mut events);
        }
        parser.finish();
        drain(&mut parser, &mut events);
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
    fn a_long_line_is_held_until_it_ends() {
        let mut parser = SseParser::default();
        parser.push(b"data: ");
        for _ in 0..100 {
            parser.push(b"xxxxxxxxxx");
            assert!(parser.next_event().is_none());
        }
        assert_eq!(parser.pending_bytes(), 1006);
        parser.push(b"\n\n");
        assert_eq!(
            parser.next_event().map(|event| event.data.len()),
            Some(1000)
        );
        assert!(parser.next_event().is_none());
        assert_eq!(parser.pending_bytes(), 0);
    }

    #[test]
    fn data_lines_without_the_blank_line_count_as_held() {
        // A hostile server that never ends its event: what it sent so far stays counted, so
        // the caller can stop it.
        let mut parser = SseParser::default();
        for _ in 0..100 {
            parser.push(b"data: xxxxxxxxxx\n");
            assert!(parser.next_event().is_none());
        }
        assert_eq!(parser.pending_bytes(), 100 * 10 + 99);
    }

    #[test]
    fn data_without_space_and_unknown_fields() {
        let events = parse_in_pieces("id: 7\nretry: 10\ndata:{}\n\n", 4);
        assert_eq!(
            events,
            vec![Owned {
                event: None,
                data: "{}".into()
            }]
        );
    }
}
