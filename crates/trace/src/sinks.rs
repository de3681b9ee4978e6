//! Where spans go: the session store, JSONL files, several sinks at once, memory (tests and
//! embedders). The console and OpenTelemetry have modules of their own.

use agentctl_core::{Span, SpanSink};
use agentctl_private_files::{create_private_dir_all, open_private_append};
use agentctl_store::{TraceLog, utc_timestamp};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Tells the user about a backend's trouble (a file that cannot be written, a collector that
/// does not answer); the run goes on.
pub type WarningFn = Arc<dyn Fn(String) + Send + Sync>;

/// Calls `warn` the first time only: a backend that fails for every span says so once.
#[derive(Clone)]
pub(crate) struct WarnOnce {
    warn: WarningFn,
    warned: Arc<AtomicBool>,
}

impl WarnOnce {
    pub(crate) fn new(warn: WarningFn) -> Self {
        Self {
            warn,
            warned: Arc::new(AtomicBool::new(false)),
        }
    }

    pub(crate) fn warn(&self, message: impl FnOnce() -> String) {
        if !self.warned.swap(true, Ordering::Relaxed) {
            (self.warn)(message());
        }
    }
}

/// Keeps spans in memory, in the order recorded: for tests and for embedders that inspect a
/// trace themselves.
#[derive(Debug, Default)]
pub struct MemorySink {
    spans: Mutex<Vec<Span>>,
}

impl MemorySink {
    /// The spans recorded so far.
    pub fn spans(&self) -> Vec<Span> {
        self.spans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl SpanSink for MemorySink {
    fn record(&self, span: &Span) {
        self.spans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(span.clone());
    }
}

/// Every span to each of several sinks.
pub struct FanOut {
    sinks: Vec<Arc<dyn SpanSink>>,
}

impl FanOut {
    /// A sink writing to all of `sinks`.
    pub fn new(sinks: Vec<Arc<dyn SpanSink>>) -> Self {
        Self { sinks }
    }
}

impl SpanSink for FanOut {
    fn record(&self, span: &Span) {
        for sink in &self.sinks {
            sink.record(span);
        }
    }

    fn flush(&self) {
        for sink in &self.sinks {
            sink.flush();
        }
    }
}

/// Spans into the session store, where `agentctl trace export` and `trace show` read them.
pub struct StoreSink {
    store: Arc<dyn TraceLog>,
    session: String,
    warn: WarnOnce,
}

impl StoreSink {
    /// Writes spans of `session` to `store`; the first failure is reported through `warn`.
    pub fn new(store: Arc<dyn TraceLog>, session: &str, warn: WarningFn) -> Self {
        Self {
            store,
            session: session.to_owned(),
            warn: WarnOnce::new(warn),
        }
    }
}

impl SpanSink for StoreSink {
    fn record(&self, span: &Span) {
        if let Err(error) = self.store.record_span(&self.session, span) {
            self.warn
                .warn(|| format!("trace spans are not saved to the session: {error}"));
        }
    }
}

/// One JSONL file per session under a traces directory (`.agentctl/traces`), in the seed's
/// layout `YYYY-MM-DD/session-<id>.jsonl`: the day the session's file was created, so a
/// session that goes on after midnight keeps one file. Spans without a session go to
/// `trace-<trace id>.jsonl`. Each span is appended as one line when it finishes and nothing
/// is kept in memory but the open files.
///
/// The files hold prompts, answers and tool results: folders are created `0700` and files
/// `0600` whatever the umask, and a file of an earlier run that others could read is made
/// private when it is opened again, with a notice through `warn`.
pub struct JsonlSink {
    dir: PathBuf,
    files: Mutex<HashMap<String, File>>,
    warn: WarnOnce,
    /// Every file made private, once each (its next opening finds it private).
    notify: WarningFn,
}

impl JsonlSink {
    /// Writes under `dir`; failures are reported once through `warn`, and so is each file
    /// made private ("tightened … from 0644 to 0600").
    pub fn new(dir: &Path, warn: WarningFn) -> Self {
        Self {
            dir: dir.to_path_buf(),
            files: Mutex::new(HashMap::new()),
            warn: WarnOnce::new(Arc::clone(&warn)),
            notify: warn,
        }
    }

    /// The file spans of `name` (`session-<id>.jsonl`) go to: an existing one under any day,
    /// else one under today's.
    fn path_for(&self, name: &str) -> PathBuf {
        let existing = std::fs::read_dir(&self.dir).ok().and_then(|days| {
            days.flatten()
                .map(|day| day.path().join(name))
                .find(|path| path.is_file())
        });
        existing.unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| {
                    i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX)
                });
            let day = utc_timestamp(now);
            self.dir.join(&day[..10]).join(name)
        })
    }

    fn write(&self, span: &Span) -> std::io::Result<()> {
        let name = match &span.session_id {
            Some(session) => format!("session-{}.jsonl", file_safe(session)),
            None => format!("trace-{}.jsonl", span.trace_id),
        };
        let mut line = serde_json::to_vec(span).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        let file = match files.get_mut(&name) {
            Some(file) => file,
            None => {
                let path = self.path_for(&name);
                if let Some(parent) = path.parent() {
                    create_private_dir_all(parent)?;
                }
                let (file, tightened) = open_private_append(&path)?;
                if let Some(notice) = tightened {
                    (self.notify)(notice.to_string());
                }
                files.entry(name).or_insert(file)
            }
        };
        // One write per line: with O_APPEND, lines of two processes never interleave.
        file.write_all(&line)
    }
}

impl SpanSink for JsonlSink {
    fn record(&self, span: &Span) {
        if let Err(error) = self.write(span) {
            self.warn.warn(|| {
                format!(
                    "trace spans are not written under {}: {error}",
                    self.dir.display()
                )
            });
        }
    }
}

/// A session id as a file name part: ids are `YYYYMMDD-HHMMSS-xxxx`, but nothing that could
/// leave the directory is let through whatever an embedder passes.
fn file_safe(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
