//! The export pipeline behind [`crate::OtelSink`]: the SDK's `BatchSpanProcessor` (its own
//! thread, a bounded queue) feeding the OTLP/HTTP exporter through the blocking reqwest
//! client, wrapped so that the first failure, with its real cause, reaches the sink's owner
//! once.

use super::config::{OtelConfig, OtelError};
use super::mapping::resource;
use async_trait::async_trait;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SpanData, SpanExporter};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// What the owner of an [`crate::OtelSink`] is told, once, when spans cannot be delivered: a
/// collector that is down, refuses the export or does not answer in time.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportWarning {
    /// The traces URL (without credentials).
    pub endpoint: String,
    /// Why: the connection error, the HTTP status the collector answered, or the time waited.
    pub cause: String,
}

impl fmt::Display for ExportWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "OpenTelemetry export to {} failed: {}; spans that cannot be delivered are dropped (further failures are not reported)",
            self.endpoint, self.cause
        )
    }
}

/// Receives the one [`ExportWarning`] of a sink. It is called from the export thread (or from
/// whoever calls `flush`/`shutdown`), so it must return quickly: print, log or queue it.
pub type WarningCallback = Arc<dyn Fn(ExportWarning) + Send + Sync>;

/// Hands out at most one warning.
pub(crate) struct Warner {
    endpoint: String,
    warned: AtomicBool,
    callback: WarningCallback,
}

impl Warner {
    pub(crate) fn new(endpoint: String, callback: WarningCallback) -> Self {
        Self {
            endpoint,
            warned: AtomicBool::new(false),
            callback,
        }
    }

    pub(crate) fn warn(&self, cause: String) {
        if !self.warned.swap(true, Ordering::SeqCst) {
            (self.callback)(ExportWarning {
                endpoint: self.endpoint.clone(),
                cause,
            });
        }
    }
}

impl fmt::Debug for Warner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Warner")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// The last failure the HTTP client saw, in words. The OTLP exporter reports a network error
/// as only "network error"; this keeps the cause ("Connection refused", "timed out").
type Cause = Arc<Mutex<Option<String>>>;

/// The blocking reqwest client, remembering why the last request failed.
#[derive(Debug)]
struct RecordingClient {
    inner: reqwest::blocking::Client,
    timeout: Duration,
    cause: Cause,
}

#[async_trait]
impl HttpClient for RecordingClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let result = self.inner.send_bytes(request).await;
        let failure = match &result {
            Ok(response) if !response.status().is_success() => {
                Some(status_cause(response.status(), response.body()))
            }
            Ok(_) => None,
            Err(error) => Some(error_cause(error.as_ref(), self.timeout)),
        };
        if let Some(failure) = failure {
            *self.cause.lock().unwrap_or_else(PoisonError::into_inner) = Some(failure);
        }
        result
    }
}

/// "HTTP 415 Unsupported Media Type: <start of the collector's answer>".
fn status_cause(status: reqwest::StatusCode, body: &[u8]) -> String {
    let mut cause = format!("the collector answered HTTP {status}");
    // Collectors answer in text, JSON or protobuf; keep what reads as text.
    let text: String = std::str::from_utf8(body)
        .unwrap_or("")
        .chars()
        .filter(|character| !character.is_control())
        .take(200)
        .collect();
    if !text.trim().is_empty() {
        cause.push_str(": ");
        cause.push_str(text.trim());
    }
    cause
}

/// The innermost cause of a transport error ("Connection refused (os error 111)"), or that
/// the collector did not answer in time.
fn error_cause(error: &(dyn std::error::Error + 'static), timeout: Duration) -> String {
    let mut current = error;
    let mut timed_out = false;
    loop {
        if let Some(reqwest) = current.downcast_ref::<reqwest::Error>() {
            timed_out |= reqwest.is_timeout();
        }
        match current.source() {
            Some(source) => current = source,
            None => break,
        }
    }
    if timed_out {
        format!("no answer within {timeout:?}")
    } else {
        current.to_string()
    }
}

/// The OTLP exporter, warning its owner (once) when an export fails.
#[derive(Debug)]
struct WarningExporter {
    inner: opentelemetry_otlp::SpanExporter,
    cause: Cause,
    warner: Arc<Warner>,
}

impl SpanExporter for WarningExporter {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(error) = &result {
            let recorded = self
                .cause
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            self.warner
                .warn(recorded.unwrap_or_else(|| error.to_string()));
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// Builds the HTTP client, the exporter and the batch processor (which starts its thread).
///
/// Must not run on a tokio worker: building (or dropping, on an error path) the blocking
/// reqwest client starts and stops a runtime of its own, which tokio forbids there.
pub(crate) fn build_processor(
    config: &OtelConfig,
    warner: Arc<Warner>,
) -> Result<BatchSpanProcessor, OtelError> {
    let start_error = |reason: String| OtelError::Start {
        endpoint: warner_endpoint(&warner),
        reason,
    };
    agentctl_core::install_crypto_provider();
    let client = reqwest::blocking::Client::builder()
        .timeout(config.timeout)
        .build()
        .map_err(|error| start_error(format!("the HTTP client: {error}")))?;
    let cause = Cause::default();
    let client = RecordingClient {
        inner: client,
        timeout: config.timeout,
        cause: Arc::clone(&cause),
    };
    // The exporter percent-decodes header values once more; escape `%` so they arrive as given.
    let headers: HashMap<String, String> = config
        .headers
        .iter()
        .map(|(key, value)| (key.clone(), value.replace('%', "%25")))
        .collect();
    let mut exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_endpoint(config.endpoint.clone())
        .with_protocol(Protocol::HttpBinary)
        .with_timeout(config.timeout)
        .with_headers(headers)
        .build()
        .map_err(|error| start_error(error.to_string()))?;
    exporter.set_resource(&resource(config.service_name.as_deref()));
    let exporter = WarningExporter {
        inner: exporter,
        cause,
        warner,
    };
    Ok(BatchSpanProcessor::builder(exporter).build())
}

fn warner_endpoint(warner: &Warner) -> String {
    warner.endpoint.clone()
}
