//! The captured output of a command: capped streams, read concurrently, rendered for the model.

use super::MAX_STREAM_BYTES;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt};

/// `exit code: 3`, or the signal that killed the command.
pub(super) fn describe_status(status: &ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code: {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return format!("exit code: none (killed by signal {signal})");
        }
    }
    "exit code: unknown".to_owned()
}

/// Reads `pipe` into `sink` until it closes.
pub(super) fn pump<R>(mut pipe: R, sink: Arc<Mutex<Capped>>) -> tokio::task::JoinHandle<()>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 8192];
        while let Ok(read) = pipe.read(&mut chunk).await {
            if read == 0 {
                break;
            }
            if let Ok(mut sink) = sink.lock() {
                sink.push(&chunk[..read]);
            }
        }
    })
}

/// Appends `name:` and the stream's text (or `name: (empty)`) to `out`.
pub(super) fn render_stream(out: &mut String, name: &str, stream: &Mutex<Capped>) {
    let Ok(stream) = stream.lock() else {
        return;
    };
    if stream.is_empty() {
        let _ = writeln!(out, "{name}: (empty)");
    } else {
        let _ = writeln!(out, "{name}:");
        out.push_str(&stream.render());
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
}

/// A byte stream capped at [`MAX_STREAM_BYTES`]: the first two thirds and the last third are
/// kept, and the number of bytes dropped in between is counted.
#[derive(Debug, Default)]
pub(crate) struct Capped {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: usize,
}

impl Capped {
    const HEAD: usize = MAX_STREAM_BYTES * 2 / 3;
    const TAIL: usize = MAX_STREAM_BYTES - Self::HEAD;

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        let room = Self::HEAD.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        self.tail.extend(bytes);
        let excess = self.tail.len().saturating_sub(Self::TAIL);
        self.tail.drain(..excess);
        self.dropped += excess;
    }

    fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    pub(crate) fn render(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            let _ = write!(text, "\n[… {} bytes omitted …]\n", self.dropped);
        }
        let (a, b) = self.tail.as_slices();
        text.push_str(&String::from_utf8_lossy(&[a, b].concat()));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_keeps_head_and_tail() {
        let mut capped = Capped::default();
        for _ in 0..100 {
            capped.push(&[b'x'; 1000]);
        }
        capped.push(b"THE END");
        let text = capped.render();
        assert!(text.len() < MAX_STREAM_BYTES + 100);
        assert!(text.ends_with("THE END"));
        assert!(text.contains("bytes omitted"));
    }
}
