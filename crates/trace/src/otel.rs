//! The `otel` backend: spans sent to an OpenTelemetry collector (or Jaeger, Tempo, Honeycomb…)
//! as OTLP over HTTP with protobuf, named and attributed by the GenAI semantic conventions.
//!
//! [`OtelSink`] turns each span into the SDK's record ([`span_data`]) and hands it to the SDK's
//! `BatchSpanProcessor`, whose own thread batches and exports; `record` only queues, so tracing
//! never slows or fails a run. The blocking reqwest client lives on that thread, away from the
//! CLI's tokio workers, where it could not run.

mod config;
mod export;
mod mapping;
mod vendors;

pub use config::{
    CAPTURE_CONTENT_VAR, DEFAULT_ENDPOINT, DEFAULT_SHUTDOWN_TIMEOUT, DEFAULT_TIMEOUT, OtelConfig,
    OtelError, SDK_DISABLED_VAR, capture_content_from_env, sdk_disabled_from_env,
};
pub use export::{ExportWarning, WarningCallback};
pub(crate) use mapping::resource;
pub use mapping::{SCOPE_NAME, span_data};
pub use vendors::{LANGFUSE_DEFAULT_HOST, LANGSMITH_DEFAULT_ENDPOINT};

use agentctl_core::{Span, SpanSink};
use export::{Warner, build_processor};
use opentelemetry_sdk::error::OTelSdkError;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SpanProcessor};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

/// Sends spans to an OpenTelemetry collector as OTLP/HTTP protobuf, in batches, from a thread
/// of its own.
///
/// The standard `OTEL_EXPORTER_OTLP_*` variables say where to send ([`OtelConfig::from_env`]).
/// `record` never blocks: it queues (up to 2048 spans, `OTEL_BSP_MAX_QUEUE_SIZE`; beyond that
/// spans are dropped). A collector that is down, refuses the spans or does not answer produces
/// one [`ExportWarning`] through the owner's callback, naming the endpoint and the cause.
///
/// Time bounds: one export takes at most the exporter timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`,
/// 10 s by default, retries included), on the export thread. `flush` and `shutdown` (also run
/// on drop) each wait at most [`OtelConfig::shutdown_timeout`] (2 s by default); once the
/// collector has failed to answer within it, later ones do not wait again. So a collector that
/// accepts connections and never answers holds the process about 2 s at exit.
///
/// ```no_run
/// use agentctl_trace::{OtelConfig, OtelSink};
/// use std::sync::Arc;
///
/// let sink = OtelSink::new(
///     OtelConfig::from_env()?,
///     Arc::new(|warning| eprintln!("warning: {warning}")),
/// )?;
/// // … give it to a TraceContext; spans are exported in batches …
/// sink.shutdown();
/// # Ok::<(), agentctl_trace::OtelError>(())
/// ```
pub struct OtelSink {
    processor: Arc<BatchSpanProcessor>,
    capture_content: bool,
    endpoint: String,
    shutdown_timeout: Duration,
    warner: Arc<Warner>,
    /// The collector did not answer within `shutdown_timeout` once: later waits are skipped.
    stuck: AtomicBool,
    closed: AtomicBool,
}

impl fmt::Debug for OtelSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelSink")
            .field("endpoint", &self.endpoint)
            .field("capture_content", &self.capture_content)
            .finish_non_exhaustive()
    }
}

impl OtelSink {
    /// Starts the export thread for `config`; `on_warning` hears, once, that spans could not be
    /// delivered. Safe to call from async code: the HTTP client is built on a thread of its own.
    pub fn new(config: OtelConfig, on_warning: WarningCallback) -> Result<Self, OtelError> {
        let endpoint = config::shown_endpoint(&config.endpoint);
        let warner = Arc::new(Warner::new(endpoint.clone(), on_warning));
        let start_error = |reason: String| OtelError::Start {
            endpoint: endpoint.clone(),
            reason,
        };
        let setup = {
            let (config, warner) = (config.clone(), Arc::clone(&warner));
            // The blocking reqwest client runs a runtime of its own, which cannot be started
            // (or dropped) on a tokio worker thread: build everything elsewhere.
            move || build_processor(&config, warner)
        };
        let processor = std::thread::Builder::new()
            .name("agentctl-otel-setup".into())
            .spawn(setup)
            .map_err(|error| start_error(format!("cannot start a thread: {error}")))?
            .join()
            .map_err(|_| start_error("the setup thread panicked".into()))??;
        Ok(Self {
            processor: Arc::new(processor),
            capture_content: config.capture_content,
            endpoint,
            shutdown_timeout: config.shutdown_timeout,
            warner,
            stuck: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        })
    }

    /// [`OtelSink::new`] with [`OtelConfig::from_env`].
    pub fn from_env(on_warning: WarningCallback) -> Result<Self, OtelError> {
        Self::new(OtelConfig::from_env()?, on_warning)
    }

    /// The traces URL spans go to (without credentials).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Whether message content goes into spans.
    pub fn capture_content(&self) -> bool {
        self.capture_content
    }

    /// Exports what is queued and stops the export thread, waiting at most the shutdown
    /// timeout; spans recorded afterwards are ignored. Runs on drop; calling it again does
    /// nothing.
    pub fn shutdown(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let wait = if self.stuck.load(Ordering::SeqCst) {
            Duration::ZERO
        } else {
            self.shutdown_timeout
        };
        if let Err(OTelSdkError::Timeout(_)) = self.processor.shutdown_with_timeout(wait) {
            self.unanswered();
        }
    }

    fn unanswered(&self) {
        self.stuck.store(true, Ordering::SeqCst);
        self.warner.warn(format!(
            "the collector did not answer within {:?}; spans still queued are dropped",
            self.shutdown_timeout
        ));
    }
}

impl SpanSink for OtelSink {
    /// Queues the span for the export thread; never blocks (a full queue drops the span).
    fn record(&self, span: &Span) {
        if self.closed.load(Ordering::Relaxed) {
            return;
        }
        self.processor.on_end(span_data(span, self.capture_content));
    }

    /// Exports what is queued, waiting at most the shutdown timeout.
    fn flush(&self) {
        if self.closed.load(Ordering::SeqCst) || self.stuck.load(Ordering::SeqCst) {
            return;
        }
        // The processor's own flush waits up to 5 s; wait on another thread to keep our bound.
        let processor = Arc::clone(&self.processor);
        let (send, receive) = mpsc::channel();
        let flushing = std::thread::Builder::new()
            .name("agentctl-otel-flush".into())
            .spawn(move || {
                let _ = send.send(processor.force_flush());
            });
        if flushing.is_err() {
            return;
        }
        // A failed export was already reported by the exporter itself.
        if let Err(mpsc::RecvTimeoutError::Timeout) = receive.recv_timeout(self.shutdown_timeout) {
            self.unanswered();
        }
    }
}

impl Drop for OtelSink {
    fn drop(&mut self) {
        self.shutdown();
    }
}
