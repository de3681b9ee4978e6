//! Spans that enclose runs — a turn's `session`, a `graph`, a graph `node` — open while their
//! runs go on, recorded when they end.

use crate::clock::Stamp;
use agentctl_core::{
    Span, SpanDetail, SpanId, SpanSink, SpanStatus, TraceContext, TraceId, TracePolicy,
};
use std::sync::Arc;

/// A span that started and has not ended. Dropped without [`end`](Self::end) (a turn given
/// up half way), it is recorded as failed with "cancelled", so a trace never has children
/// whose parent is missing.
///
/// ```
/// use agentctl_core::{SpanDetail, SpanKind, TraceId, TracePolicy};
/// use agentctl_trace::{MemorySink, OpenSpan};
/// use std::sync::Arc;
///
/// let sink = Arc::new(MemorySink::default());
/// let session = OpenSpan::root(TraceId::random(), Some("s1"), sink.clone(), TracePolicy::default(),
///     SpanDetail::Session { prompt: "Fix the bug".into() });
/// let node = OpenSpan::start(&session.context(), Some("fixer"),
///     SpanDetail::Node { graph: "flow".into(), node: "fix".into(), agent: "fixer".into(), step: 1 });
/// node.end(None);
/// session.end(None);
/// let spans = sink.spans();
/// assert_eq!(spans[0].kind(), SpanKind::Node);
/// assert_eq!(spans[0].parent_id, Some(spans[1].span_id));
/// assert_eq!(spans[1].parent_id, None);
/// ```
#[derive(Debug)]
pub struct OpenSpan {
    /// Records the span and gives its children their context.
    ctx: TraceContext,
    parent: Option<agentctl_core::SpanId>,
    id: SpanId,
    start: Stamp,
    agent: Option<String>,
    detail: SpanDetail,
    ended: bool,
}

impl OpenSpan {
    /// Starts the root span of a new trace.
    pub fn root(
        trace_id: TraceId,
        session_id: Option<&str>,
        sink: Arc<dyn SpanSink>,
        policy: TracePolicy,
        detail: SpanDetail,
    ) -> Self {
        let id = SpanId::random();
        Self {
            ctx: TraceContext::new(trace_id, id, session_id, sink, policy),
            parent: None,
            id,
            start: Stamp::now(),
            agent: None,
            detail,
            ended: false,
        }
    }

    /// Starts a span under `parent`'s parent span.
    pub fn start(parent: &TraceContext, agent: Option<&str>, detail: SpanDetail) -> Self {
        let id = SpanId::random();
        Self {
            ctx: parent.child(id),
            parent: Some(parent.parent()),
            id,
            start: Stamp::now(),
            agent: agent.map(str::to_owned),
            detail,
            ended: false,
        }
    }

    /// The span's id.
    pub fn id(&self) -> SpanId {
        self.id
    }

    /// The context of what happens inside the span.
    pub fn context(&self) -> TraceContext {
        self.ctx.clone()
    }

    /// What the span is about, to complete before it ends (e.g. the step a node got).
    pub fn detail_mut(&mut self) -> &mut SpanDetail {
        &mut self.detail
    }

    /// Ends the span, failed with `error` when given, and records it.
    pub fn end(mut self, error: Option<&str>) {
        self.record(error.map(str::to_owned));
    }

    fn record(&mut self, error: Option<String>) {
        self.ended = true;
        let detail = std::mem::replace(
            &mut self.detail,
            SpanDetail::Session {
                prompt: String::new(),
            },
        );
        self.ctx.record(Span {
            trace_id: self.ctx.trace_id(),
            span_id: self.id,
            parent_id: self.parent,
            links: Vec::new(),
            session_id: self.ctx.session_id().map(str::to_owned),
            agent: self.agent.clone(),
            start_unix_nano: self.start.unix_nano,
            duration_ms: self.start.elapsed_ms(),
            status: if error.is_some() {
                SpanStatus::Error
            } else {
                SpanStatus::Ok
            },
            error,
            detail,
        });
    }
}

impl Drop for OpenSpan {
    fn drop(&mut self) {
        if !self.ended {
            self.record(Some("cancelled".into()));
        }
    }
}
