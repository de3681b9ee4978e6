//! A fake OpenTelemetry collector: an OTLP/HTTP receiver on `127.0.0.1:0` that decodes real
//! `ExportTraceServiceRequest`s (protobuf with `opentelemetry-proto`/`prost`, or the OTLP JSON
//! encoding) and keeps the spans for tests to read.
//!
//! It refuses what a collector refuses: another path (404), another method (405), a body whose
//! content type is neither `application/x-protobuf` nor `application/json` (415), a compressed
//! body (this fake does not inflate), a chunked body it cannot read (411) and a body that does
//! not decode (400). Every request is recorded with the status it got.

use crate::server::{RawRequest, read_raw_request, write_reply};
use crate::wire::{BodyPart, Reply};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// How long [`OtlpReceiver::wait_for_spans`] waits before failing the test: generous, so a slow
/// machine never fails a test that would pass, yet a lost span fails instead of hanging.
pub const OTLP_WAIT: Duration = Duration::from_secs(30);

/// One span as the receiver decoded it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedSpan {
    /// Trace id, 32 lowercase hex digits.
    pub trace_id: String,
    /// Span id, 16 lowercase hex digits.
    pub span_id: String,
    /// Parent span id (16 hex digits); `None` for a root span.
    pub parent_span_id: Option<String>,
    /// Span name, e.g. `chat gpt-4o`.
    pub name: String,
    /// `internal`, `server`, `client`, `producer`, `consumer` or `unspecified`.
    pub kind: &'static str,
    /// Attributes as JSON: strings, numbers (ints stay integers), booleans, arrays, objects.
    pub attributes: BTreeMap<String, Value>,
    /// Span ids this span links to.
    pub links: Vec<String>,
    /// Events, as `(name, attributes)`.
    pub events: Vec<(String, BTreeMap<String, Value>)>,
    /// `unset`, `ok` or `error`.
    pub status: &'static str,
    /// The status message (set on errors).
    pub status_message: String,
    /// Start, nanoseconds since the Unix epoch.
    pub start_time_unix_nano: u64,
    /// End, nanoseconds since the Unix epoch.
    pub end_time_unix_nano: u64,
    /// The resource's attributes (`service.name`, …).
    pub resource: BTreeMap<String, Value>,
    /// The instrumentation scope's name.
    pub scope: String,
}

impl ReceivedSpan {
    /// A string attribute.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).and_then(Value::as_str)
    }

    /// An integer attribute.
    pub fn int(&self, key: &str) -> Option<i64> {
        self.attributes.get(key).and_then(Value::as_i64)
    }

    /// A boolean attribute.
    pub fn bool(&self, key: &str) -> Option<bool> {
        self.attributes.get(key).and_then(Value::as_bool)
    }
}

/// One request the receiver answered.
#[derive(Debug, Clone)]
pub struct ReceivedRequest {
    /// HTTP method.
    pub method: String,
    /// Path.
    pub path: String,
    /// Headers, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The status it was answered with.
    pub status: u16,
    /// Why it was refused (empty when accepted).
    pub refusal: String,
}

impl ReceivedRequest {
    /// The value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| value.as_str())
    }
}

#[derive(Default)]
struct State {
    spans: Vec<ReceivedSpan>,
    requests: Vec<ReceivedRequest>,
}

/// A fake OTLP/HTTP collector on `127.0.0.1`; stops when dropped.
///
/// ```no_run
/// # async fn demo() {
/// use agentctl_test_support::OtlpReceiver;
/// let receiver = OtlpReceiver::start().await;
/// // … point an exporter at receiver.endpoint() (OTEL_EXPORTER_OTLP_ENDPOINT) …
/// let spans = receiver.wait_for_spans(3).await;
/// assert!(spans.iter().any(|span| span.name.starts_with("invoke_agent")));
/// # }
/// ```
pub struct OtlpReceiver {
    address: SocketAddr,
    /// The traces path, `/v1/traces` unless a vendor's.
    path: &'static str,
    state: Arc<Mutex<State>>,
    arrived: Arc<Notify>,
    task: JoinHandle<()>,
}

impl OtlpReceiver {
    /// Starts a receiver on `127.0.0.1:0`.
    pub async fn start() -> Self {
        Self::start_at("/v1/traces").await
    }

    /// Starts a receiver whose traces path is `path` (a vendor's, e.g. LangSmith's
    /// `/otel/v1/traces`); any other path is refused.
    pub async fn start_at(path: &'static str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|error| panic!("OTLP receiver: cannot bind 127.0.0.1:0: {error}"));
        let address = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("OTLP receiver: {error}"));
        let state = Arc::new(Mutex::new(State::default()));
        let arrived = Arc::new(Notify::new());
        let (shared, notify) = (Arc::clone(&state), Arc::clone(&arrived));
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let (state, notify) = (Arc::clone(&shared), Arc::clone(&notify));
                tokio::spawn(async move {
                    let Some(request) = read_raw_request(&mut stream).await else {
                        return;
                    };
                    let reply = receive(&request, path, &state);
                    notify.notify_waiters();
                    write_reply(&mut stream, reply).await;
                });
            }
        });
        Self {
            address,
            path,
            state,
            arrived,
            task,
        }
    }

    /// The base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` takes it: `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.address)
    }

    /// The traces URL, as `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` takes it:
    /// `http://127.0.0.1:PORT/v1/traces`.
    pub fn traces_url(&self) -> String {
        format!("http://{}{}", self.address, self.path)
    }

    /// Every span received so far, in arrival order.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.lock().spans.clone()
    }

    /// Every request answered so far, accepted or refused.
    pub fn requests(&self) -> Vec<ReceivedRequest> {
        self.lock().requests.clone()
    }

    /// Waits until at least `count` spans arrived and returns them all; fails the test after
    /// [`OTLP_WAIT`], listing what did arrive.
    pub async fn wait_for_spans(&self, count: usize) -> Vec<ReceivedSpan> {
        let wait = async {
            loop {
                // Register before looking, so an arrival between the look and the wait is seen.
                let notified = self.arrived.notified();
                if self.lock().spans.len() >= count {
                    return;
                }
                notified.await;
            }
        };
        if tokio::time::timeout(OTLP_WAIT, wait).await.is_err() {
            let state = self.lock();
            let names: Vec<&str> = state.spans.iter().map(|span| span.name.as_str()).collect();
            let statuses: Vec<u16> = state
                .requests
                .iter()
                .map(|request| request.status)
                .collect();
            panic!(
                "OTLP receiver: waited {OTLP_WAIT:?} for {count} spans, got {}: {names:?} (request statuses {statuses:?})",
                names.len()
            );
        }
        self.spans()
    }

    /// The only span named `name`; panics when there is none or several.
    pub fn span(&self, name: &str) -> ReceivedSpan {
        let matching: Vec<ReceivedSpan> = self
            .spans()
            .into_iter()
            .filter(|span| span.name == name)
            .collect();
        match <[ReceivedSpan; 1]>::try_from(matching) {
            Ok([span]) => span,
            Err(matching) => {
                let names: Vec<String> = self.spans().into_iter().map(|span| span.name).collect();
                panic!(
                    "OTLP receiver: expected one span named `{name}`, found {}; spans: {names:?}",
                    matching.len()
                )
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Checks, decodes and records one request; returns the collector's answer.
fn receive(request: &RawRequest, path: &str, state: &Mutex<State>) -> Reply {
    let (reply, refusal, spans) = match answer(request, path) {
        Ok((reply, spans)) => (reply, String::new(), spans),
        Err((status, why)) => (text_reply(status, &why), why, Vec::new()),
    };
    let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
    state.requests.push(ReceivedRequest {
        method: request.method.clone(),
        path: request.path.clone(),
        headers: request.headers.clone(),
        status: reply.status,
        refusal,
    });
    state.spans.extend(spans);
    reply
}

type Refusal = (u16, String);

fn answer(request: &RawRequest, path: &str) -> Result<(Reply, Vec<ReceivedSpan>), Refusal> {
    if request.path.split('?').next() != Some(path) {
        return Err((404, format!("no OTLP signal at `{}`", request.path)));
    }
    if request.method != "POST" {
        return Err((405, format!("`{}` is not POST", request.method)));
    }
    if request.header("transfer-encoding").is_some() {
        return Err((411, "send a content-length".to_owned()));
    }
    if let Some(encoding) = request
        .header("content-encoding")
        .filter(|encoding| !encoding.eq_ignore_ascii_case("identity"))
    {
        return Err((
            415,
            format!("content-encoding `{encoding}` is not supported"),
        ));
    }
    let content_type = request.header("content-type").unwrap_or("");
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (decoded, reply) = match media.as_str() {
        "application/x-protobuf" => {
            let decoded = ExportTraceServiceRequest::decode(request.body.as_slice())
                .map_err(|error| (400, format!("not an ExportTraceServiceRequest: {error}")))?;
            let response = ExportTraceServiceResponse::default().encode_to_vec();
            (
                decoded,
                bytes_reply(200, "application/x-protobuf", response),
            )
        }
        "application/json" => {
            let decoded: ExportTraceServiceRequest = serde_json::from_slice(&request.body)
                .map_err(|error| (400, format!("not an OTLP JSON trace request: {error}")))?;
            (
                decoded,
                bytes_reply(200, "application/json", b"{}".to_vec()),
            )
        }
        _ => {
            return Err((
                415,
                format!(
                    "content-type `{content_type}` is not application/x-protobuf or application/json"
                ),
            ));
        }
    };
    Ok((reply, spans_of(decoded)?))
}

fn spans_of(request: ExportTraceServiceRequest) -> Result<Vec<ReceivedSpan>, Refusal> {
    let mut spans = Vec::new();
    for resource_spans in request.resource_spans {
        let resource = attributes(
            resource_spans
                .resource
                .map(|resource| resource.attributes)
                .unwrap_or_default(),
        );
        for scope_spans in resource_spans.scope_spans {
            let scope = scope_spans
                .scope
                .map(|scope| scope.name)
                .unwrap_or_default();
            for span in scope_spans.spans {
                // A collector rejects spans with malformed ids.
                let (Some(trace_id), Some(span_id)) =
                    (id_hex(&span.trace_id, 16), id_hex(&span.span_id, 8))
                else {
                    return Err((400, format!("span `{}` has an invalid id", span.name)));
                };
                let parent_span_id = if span.parent_span_id.is_empty() {
                    None
                } else {
                    Some(id_hex(&span.parent_span_id, 8).ok_or_else(|| {
                        (
                            400,
                            format!("span `{}` has an invalid parent id", span.name),
                        )
                    })?)
                };
                let (status, status_message) = match span.status {
                    Some(status) => (
                        match status.code {
                            1 => "ok",
                            2 => "error",
                            _ => "unset",
                        },
                        status.message,
                    ),
                    None => ("unset", String::new()),
                };
                spans.push(ReceivedSpan {
                    trace_id,
                    span_id,
                    parent_span_id,
                    kind: kind_name(span.kind),
                    name: span.name,
                    attributes: attributes(span.attributes),
                    links: span
                        .links
                        .iter()
                        .filter_map(|link| id_hex(&link.span_id, 8))
                        .collect(),
                    events: span
                        .events
                        .into_iter()
                        .map(|event| (event.name, attributes(event.attributes)))
                        .collect(),
                    status,
                    status_message,
                    start_time_unix_nano: span.start_time_unix_nano,
                    end_time_unix_nano: span.end_time_unix_nano,
                    resource: resource.clone(),
                    scope: scope.clone(),
                });
            }
        }
    }
    Ok(spans)
}

fn kind_name(kind: i32) -> &'static str {
    match SpanKind::try_from(kind) {
        Ok(SpanKind::Internal) => "internal",
        Ok(SpanKind::Server) => "server",
        Ok(SpanKind::Client) => "client",
        Ok(SpanKind::Producer) => "producer",
        Ok(SpanKind::Consumer) => "consumer",
        Ok(SpanKind::Unspecified) | Err(_) => "unspecified",
    }
}

/// `bytes` as lowercase hex when it is a valid (non-zero, right-sized) id.
fn id_hex(bytes: &[u8], size: usize) -> Option<String> {
    if bytes.len() != size || bytes.iter().all(|byte| *byte == 0) {
        return None;
    }
    let mut hex = String::with_capacity(size * 2);
    for byte in bytes {
        let _ = write!(hex, "{byte:02x}");
    }
    Some(hex)
}

fn attributes(list: Vec<KeyValue>) -> BTreeMap<String, Value> {
    list.into_iter()
        .map(|pair| (pair.key, pair.value.map(json_of).unwrap_or(Value::Null)))
        .collect()
}

fn json_of(value: AnyValue) -> Value {
    match value.value {
        Some(any_value::Value::StringValue(text)) => Value::String(text),
        Some(any_value::Value::BoolValue(flag)) => Value::Bool(flag),
        Some(any_value::Value::IntValue(number)) => json!(number),
        Some(any_value::Value::DoubleValue(number)) => json!(number),
        Some(any_value::Value::ArrayValue(array)) => {
            Value::Array(array.values.into_iter().map(json_of).collect())
        }
        Some(any_value::Value::KvlistValue(list)) => {
            Value::Object(attributes(list.values).into_iter().collect())
        }
        Some(any_value::Value::BytesValue(bytes)) => json!(bytes),
        Some(any_value::Value::StringValueStrindex(index)) => json!({"strindex": index}),
        None => Value::Null,
    }
}

fn bytes_reply(status: u16, content_type: &str, body: Vec<u8>) -> Reply {
    Reply {
        delay: Duration::ZERO,
        status,
        headers: vec![
            ("content-type".into(), content_type.into()),
            ("content-length".into(), body.len().to_string()),
        ],
        body: vec![BodyPart::Bytes(body)],
    }
}

fn text_reply(status: u16, why: &str) -> Reply {
    bytes_reply(
        status,
        "text/plain; charset=utf-8",
        format!("OTLP receiver: {why}").into_bytes(),
    )
}
