//! Where a run's spans go: the [`TraceContext`] a run passes to its tool calls, the
//! [`TracePolicy`] every span goes through and the [`SpanSink`] that writes it.

use super::{MAX_SPAN_TEXT_BYTES, Span, SpanDetail, SpanId, SpanKind, TRUNCATION_MARK, TraceId};
use crate::redact::Redactor;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// Writes finished spans somewhere: a file, the session store, a collector, the console.
///
/// A sink must not block for long or fail the run: it buffers, drops or reports a warning
/// through whatever channel its owner gave it.
pub trait SpanSink: Send + Sync {
    /// Takes one finished span (already filtered, masked and capped).
    fn record(&self, span: &Span);

    /// Writes out what is buffered; called when the front end is done.
    fn flush(&self) {}
}

/// What every span of a trace goes through before a sink sees it.
#[derive(Debug, Clone, Default)]
pub struct TracePolicy {
    /// Kinds recorded; empty records all.
    pub events: Vec<SpanKind>,
    /// Masks the session's secrets in every text of a span.
    pub redactor: Redactor,
}

impl TracePolicy {
    /// Whether spans of `kind` are recorded.
    pub fn records(&self, kind: SpanKind) -> bool {
        self.events.is_empty() || self.events.contains(&kind)
    }
}

/// Where a run's spans go and what they hang under: the trace, the parent span, the session,
/// the sink and the policy. Cheap to clone; a run that is not traced has none.
#[derive(Clone)]
pub struct TraceContext {
    trace_id: TraceId,
    parent: SpanId,
    session_id: Option<Arc<str>>,
    sink: Arc<dyn SpanSink>,
    policy: Arc<TracePolicy>,
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceContext")
            .field("trace_id", &self.trace_id)
            .field("parent", &self.parent)
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

impl TraceContext {
    /// A context whose spans hang under `parent` in `trace_id`.
    pub fn new(
        trace_id: TraceId,
        parent: SpanId,
        session_id: Option<&str>,
        sink: Arc<dyn SpanSink>,
        policy: TracePolicy,
    ) -> Self {
        Self {
            trace_id,
            parent,
            session_id: session_id.map(Arc::from),
            sink,
            policy: Arc::new(policy),
        }
    }

    /// The trace.
    pub fn trace_id(&self) -> TraceId {
        self.trace_id
    }

    /// The span new spans hang under.
    pub fn parent(&self) -> SpanId {
        self.parent
    }

    /// The session, when recorded in one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The policy.
    pub fn policy(&self) -> &TracePolicy {
        &self.policy
    }

    /// The same trace, under another parent.
    pub fn child(&self, parent: SpanId) -> Self {
        Self {
            parent,
            ..self.clone()
        }
    }

    /// The context of a tool call's own work: under the call's span
    /// ([`SpanId::of_tool_call`]).
    pub fn for_tool_call(&self, run_id: &str, call_id: &str) -> Self {
        self.child(SpanId::of_tool_call(self.trace_id, run_id, call_id))
    }

    /// Records a finished span: dropped when the `events` filter leaves its kind out, else
    /// masked (the session's secrets), capped ([`MAX_SPAN_TEXT_BYTES`]) and written.
    pub fn record(&self, mut span: Span) {
        if !self.policy.records(span.kind()) {
            return;
        }
        let redactor = &self.policy.redactor;
        if let Some(error) = &mut span.error {
            *error = bounded(redactor, error);
        }
        match &mut span.detail {
            SpanDetail::Session { prompt } => *prompt = bounded(redactor, prompt),
            SpanDetail::Llm {
                prompt,
                response,
                tool_calls,
                ..
            } => {
                *prompt = bounded(redactor, prompt);
                *response = bounded(redactor, response);
                for call in tool_calls {
                    call.arguments = bounded_value(redactor, &call.arguments);
                }
            }
            SpanDetail::Tool {
                input,
                output,
                error,
                ..
            } => {
                *input = bounded_value(redactor, input);
                *output = bounded(redactor, output);
                if let Some(error) = error {
                    *error = bounded(redactor, error);
                }
            }
            SpanDetail::Handoff {
                reason, payload, ..
            } => {
                *reason = bounded(redactor, reason);
                *payload = bounded_value(redactor, payload);
            }
            SpanDetail::Guardrail { errors, .. } => {
                for error in errors {
                    *error = bounded(redactor, error);
                }
            }
            SpanDetail::Graph { .. }
            | SpanDetail::Node { .. }
            | SpanDetail::Branch { .. }
            | SpanDetail::Run { .. } => {}
        }
        self.sink.record(&span);
    }

    /// Asks the sink to write out what it buffers.
    pub fn flush(&self) {
        self.sink.flush();
    }
}

/// `text` masked and cut to [`MAX_SPAN_TEXT_BYTES`] (at a character boundary, marked).
pub fn bounded(redactor: &Redactor, text: &str) -> String {
    let masked = redactor.redact(text);
    truncate(&masked).into_owned()
}

fn truncate(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_SPAN_TEXT_BYTES {
        return text.into();
    }
    let mut cut = MAX_SPAN_TEXT_BYTES - TRUNCATION_MARK.len();
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{TRUNCATION_MARK}", &text[..cut]).into()
}

/// A JSON value masked; one too large becomes `{"truncated": true, "preview": "…"}`, which
/// stays valid JSON and says what happened.
fn bounded_value(redactor: &Redactor, value: &Value) -> Value {
    let mut masked = value.clone();
    redactor.redact_json(&mut masked);
    let text = masked.to_string();
    if text.len() <= MAX_SPAN_TEXT_BYTES {
        return masked;
    }
    serde_json::json!({"truncated": true, "bytes": text.len(), "preview": truncate(&text)})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::SpanStatus;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Collect(Mutex<Vec<Span>>);

    impl SpanSink for Collect {
        fn record(&self, span: &Span) {
            self.0.lock().unwrap().push(span.clone());
        }
    }

    fn tool_span(trace: TraceId, output: String) -> Span {
        Span {
            trace_id: trace,
            span_id: SpanId::random(),
            parent_id: None,
            links: Vec::new(),
            session_id: None,
            agent: Some("a".into()),
            start_unix_nano: 1,
            duration_ms: 2.5,
            status: SpanStatus::Ok,
            error: None,
            detail: SpanDetail::Tool {
                name: "read_file".into(),
                call_id: "c1".into(),
                input: serde_json::json!({"path": "sk-secret-123456", "big": "x".repeat(20_000)}),
                output,
                latency_ms: 2.5,
                error: None,
                risk: None,
                decision: None,
            },
        }
    }

    #[test]
    fn ids_round_trip_as_hex_and_tool_call_ids_are_stable() {
        let trace = TraceId::from_bytes([0xab; 16]);
        assert_eq!(trace.to_string(), "ab".repeat(16));
        assert_eq!(TraceId::from_hex(&trace.to_string()), Some(trace));
        assert_eq!(SpanId::from_hex("zz00000000000000"), None);
        assert_eq!(SpanId::from_hex("00"), None);
        let a = SpanId::of_tool_call(trace, "7", "call_1");
        assert_eq!(a, SpanId::of_tool_call(trace, "7", "call_1"));
        assert_ne!(a, SpanId::of_tool_call(trace, "7", "call_2"));
        assert_ne!(a, SpanId::of_tool_call(trace, "71", "call_"));
    }

    #[test]
    fn record_filters_masks_and_caps() {
        let sink = Arc::new(Collect::default());
        let trace = TraceId::random();
        let policy = TracePolicy {
            events: vec![SpanKind::Tool],
            redactor: Redactor::new(["sk-secret-123456"]),
        };
        let ctx = TraceContext::new(trace, SpanId::random(), None, sink.clone(), policy);
        ctx.record(tool_span(trace, "é".repeat(20_000)));
        let mut session = tool_span(trace, String::new());
        session.detail = SpanDetail::Session {
            prompt: "hi".into(),
        };
        ctx.record(session);
        let spans = sink.0.lock().unwrap();
        assert_eq!(spans.len(), 1, "the session span is filtered out");
        let SpanDetail::Tool { input, output, .. } = &spans[0].detail else {
            panic!("not a tool span")
        };
        assert!(output.len() <= MAX_SPAN_TEXT_BYTES && output.ends_with(TRUNCATION_MARK));
        assert_eq!(input["truncated"], true);
        assert!(!input.to_string().contains("sk-secret-123456"));
    }

    #[test]
    fn for_tool_call_hangs_under_the_calls_span() {
        let trace = TraceId::random();
        let ctx = TraceContext::new(
            trace,
            SpanId::random(),
            Some("s"),
            Arc::new(Collect::default()),
            TracePolicy::default(),
        );
        let child = ctx.for_tool_call("3", "c9");
        assert_eq!(child.parent(), SpanId::of_tool_call(trace, "3", "c9"));
        assert_eq!(child.session_id(), Some("s"));
    }
}
