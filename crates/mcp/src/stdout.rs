//! A stdio server's stdout, checked line by line: every line must be a JSON-RPC message.
//!
//! The MCP spec forbids a stdio server to write anything but MCP messages on stdout, yet
//! servers print banners (`Starting server...`) or log there. rmcp skips a line that is not
//! JSON, so such a server fails later and far from the cause: a banner written without a
//! newline glues onto the `initialize` answer, the answer is skipped with it, and the client
//! waits for its timeout. [`JsonLines`] sits between the child's stdout and rmcp and fails the
//! transport on the first line that is not JSON, keeping the line for the error
//! ([`StdoutFault`]) — the connection then reports at once what the server wrote and that
//! servers must log to stderr.
//!
//! Lines are handed on only once they are checked, so rmcp never sees a bad one. A line that
//! cannot start a JSON value (`S` of `Starting…`) is reported as soon as the server pauses,
//! without waiting for its newline. Lines over [`MAX_CHECKED_LINE`] are passed on unchecked
//! (rmcp drops them), so memory stays bounded.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// Longest line held back to be checked: rmcp's own line limit (16 MiB). Longer lines pass
/// unchecked and rmcp drops them.
pub(crate) const MAX_CHECKED_LINE: usize = 16 * 1024 * 1024;

/// Characters of a bad line kept for the error message.
const QUOTE_CHARS: usize = 200;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The first line a server wrote on stdout that is not JSON, once there is one. Cheap to clone;
/// clones share the slot.
#[derive(Debug, Clone, Default)]
pub(crate) struct StdoutFault(Arc<Mutex<Option<String>>>);

impl StdoutFault {
    /// The offending line (shortened, lossily decoded), if the server wrote one.
    pub(crate) fn line(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set(&self, line: &[u8]) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(quote(line));
        }
    }
}

/// An [`AsyncRead`] over a server's stdout that yields only whole, valid JSON lines and fails
/// with [`io::ErrorKind::InvalidData`] at the first line that is not JSON.
pub(crate) struct JsonLines<R> {
    inner: R,
    /// Bytes read from `inner` and not yet handed on, from `head`.
    buf: Vec<u8>,
    head: usize,
    /// End of the checked bytes: `buf[head..ready]` may be handed on.
    ready: usize,
    /// Where the search for the pending line's newline resumes.
    scanned: usize,
    /// The pending line grew past [`MAX_CHECKED_LINE`]: it is passed on unchecked.
    oversized: bool,
    eof: bool,
    /// A bad line was found (and is in `fault`).
    failed: bool,
    fault: StdoutFault,
}

impl<R> JsonLines<R> {
    /// Wraps a server's stdout; the returned [`StdoutFault`] tells the line that failed it.
    pub(crate) fn new(inner: R) -> (Self, StdoutFault) {
        let fault = StdoutFault::default();
        let lines = Self {
            inner,
            buf: Vec::new(),
            head: 0,
            ready: 0,
            scanned: 0,
            oversized: false,
            eof: false,
            failed: false,
            fault: fault.clone(),
        };
        (lines, fault)
    }

    /// Checks the whole lines read so far; stops at the first bad one.
    fn check_lines(&mut self) {
        while !self.failed {
            let newline = self.buf[self.scanned..].iter().position(|b| *b == b'\n');
            match (newline, self.oversized) {
                (Some(offset), oversized) => {
                    let end = self.scanned + offset + 1;
                    let oversized = oversized || end - self.ready > MAX_CHECKED_LINE;
                    if !oversized && !is_json_line(&self.buf[self.ready..end]) {
                        self.fail(self.ready, end);
                        return;
                    }
                    self.oversized = false;
                    self.ready = end;
                    self.scanned = end;
                }
                (None, true) => {
                    self.ready = self.buf.len();
                    self.scanned = self.ready;
                    return;
                }
                (None, false) => {
                    self.scanned = self.buf.len();
                    if self.buf.len() - self.ready > MAX_CHECKED_LINE {
                        self.oversized = true;
                        self.ready = self.buf.len();
                    }
                    return;
                }
            }
        }
    }

    /// A pending line (no newline yet) that cannot become JSON is reported without waiting
    /// for the rest of it; at the end of the stream any pending line is checked whole.
    fn check_pending(&mut self, at_eof: bool) {
        let pending = &self.buf[self.ready..];
        if self.oversized || pending.is_empty() {
            return;
        }
        let bad = if at_eof {
            !is_json_line(pending)
        } else {
            !may_start_json(pending)
        };
        if bad {
            self.fail(self.ready, self.buf.len());
        } else if at_eof {
            // rmcp drops a last line without a newline; hand it on all the same.
            self.ready = self.buf.len();
        }
    }

    fn fail(&mut self, start: usize, end: usize) {
        self.failed = true;
        self.fault.set(&self.buf[start..end]);
    }

    fn failure(&self) -> Option<io::Error> {
        if !self.failed {
            return None;
        }
        let line = self.fault.line().unwrap_or_default();
        Some(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the server wrote a line that is not JSON-RPC on stdout: {line:?}"),
        ))
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for JsonLines<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            // Checked lines first, so every good message before a bad line still arrives.
            if this.head < this.ready {
                let n = (this.ready - this.head).min(out.remaining());
                out.put_slice(&this.buf[this.head..this.head + n]);
                this.head += n;
                return Poll::Ready(Ok(()));
            }
            if let Some(error) = this.failure() {
                return Poll::Ready(Err(error));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            if this.head > 0 {
                // Only the pending line is left: move it to the front once per read.
                this.buf.drain(..this.head);
                this.ready -= this.head;
                this.scanned -= this.head;
                this.head = 0;
            }
            let mut chunk = [0u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => {
                    this.check_pending(false);
                    if !this.failed {
                        return Poll::Pending;
                    }
                }
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) => {
                    if read.filled().is_empty() {
                        this.eof = true;
                        this.check_pending(true);
                    } else {
                        this.buf.extend_from_slice(read.filled());
                        this.check_lines();
                    }
                }
            }
        }
    }
}

/// The line without its newline, carriage return, byte-order mark and surrounding blanks.
fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_prefix(BOM).unwrap_or(line);
    line.trim_ascii()
}

/// A blank line, or one JSON object or array (rmcp answers malformed messages itself).
fn is_json_line(line: &[u8]) -> bool {
    let line = trimmed(line);
    line.is_empty()
        || (matches!(line.first(), Some(b'{' | b'['))
            && serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok())
}

/// False when the start of a line already rules out a JSON message.
fn may_start_json(pending: &[u8]) -> bool {
    // A byte-order mark may be split across reads.
    if BOM.starts_with(pending) {
        return true;
    }
    let pending = pending.strip_prefix(BOM).unwrap_or(pending);
    match pending.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(first) => matches!(first, b'{' | b'['),
        None => true,
    }
}

/// The line as it goes in an error message: decoded, without its line end, shortened.
fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']);
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    async fn read_all(input: &[u8]) -> (Vec<u8>, io::Result<()>, Option<String>) {
        let (lines, fault) = JsonLines::new(input);
        let mut lines = lines;
        let mut out = Vec::new();
        let result = lines.read_to_end(&mut out).await.map(drop);
        (out, result, fault.line())
    }

    #[tokio::test]
    async fn json_lines_pass_unchanged() {
        let input =
            b"{\"jsonrpc\":\"2.0\",\"id\":1}\r\n\n  \n\xEF\xBB\xBF[{\"a\":1}]\n{\"last\":true}";
        let (out, result, fault) = read_all(input).await;
        result.unwrap();
        assert_eq!(out, input);
        assert_eq!(fault, None);
    }

    #[tokio::test]
    async fn the_first_bad_line_fails_after_the_good_ones() {
        let input = b"{\"id\":1}\nStarting server...\n{\"id\":2}\n";
        let (out, result, fault) = read_all(input).await;
        assert_eq!(out, b"{\"id\":1}\n");
        let error = result.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(
            error.to_string().contains("\"Starting server...\""),
            "{error}"
        );
        assert_eq!(fault.as_deref(), Some("Starting server..."));
    }

    #[tokio::test]
    async fn broken_json_and_glued_banners_are_bad() {
        for input in [
            &b"{\"id\":1\n"[..],
            b"Loading...{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n",
            b"{\"id\":1} trailing\n",
            b"42\n",
            b"\xFF\xFE{}\n",
            b"usage: server [--port N]",
        ] {
            let (out, result, fault) = read_all(input).await;
            assert!(out.is_empty(), "{input:?}");
            assert!(result.is_err(), "{input:?}");
            assert!(fault.is_some(), "{input:?}");
        }
    }

    #[tokio::test]
    async fn a_banner_without_newline_fails_without_waiting_for_more() {
        let (mut server, client) = tokio::io::duplex(64);
        let (mut lines, fault) = JsonLines::new(client);
        server.write_all(b"Starting server").await.unwrap();
        // The server keeps its stdout open: the read must still end.
        let mut buf = [0u8; 16];
        let error = lines.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert_eq!(fault.line().as_deref(), Some("Starting server"));
    }

    #[tokio::test]
    async fn a_line_split_across_reads_is_checked_whole() {
        let (mut server, client) = tokio::io::duplex(8);
        let (mut lines, fault) = JsonLines::new(client);
        let writer = tokio::spawn(async move {
            for piece in [&b"\xEF"[..], b"\xBB\xBF {\"a\":", b" [1, 2]}", b"\n"] {
                server.write_all(piece).await.unwrap();
                tokio::task::yield_now().await;
            }
        });
        let mut out = Vec::new();
        lines.read_to_end(&mut out).await.unwrap();
        writer.await.unwrap();
        assert_eq!(out, b"\xEF\xBB\xBF {\"a\": [1, 2]}\n");
        assert_eq!(fault.line(), None);
    }

    #[tokio::test]
    async fn oversized_lines_pass_unchecked_and_memory_stays_bounded() {
        let mut input = vec![b'{'];
        input.resize(MAX_CHECKED_LINE + 10, b'x');
        input.extend_from_slice(b"\n{\"after\":1}\nnot json\n");
        let (out, result, fault) = read_all(&input).await;
        assert!(result.is_err());
        assert_eq!(out.len(), input.len() - b"not json\n".len());
        assert_eq!(fault.as_deref(), Some("not json"));
    }

    #[test]
    fn quotes_are_short_and_lossy() {
        let long = "é".repeat(500);
        let quoted = quote(long.as_bytes());
        assert_eq!(quoted.chars().count(), QUOTE_CHARS + 1);
        assert_eq!(quote(b"a\xFFb\r\n"), "a\u{FFFD}b");
    }
}
