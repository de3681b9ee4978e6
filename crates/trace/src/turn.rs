//! [`TurnTrace`]: the runs of one turn — the first agent's and those handoffs start — under
//! one parent span, with a `handoff` span between each pair.

use crate::clock::Stamp;
use crate::run::RunTracer;
use agentctl_core::{RunEvent, Span, SpanDetail, SpanId, SpanStatus, TraceContext};
use serde_json::Value;

/// The runs of a turn under one parent span (a `session` or a graph `node`).
///
/// A `handoff` span starts at the `handoff` event and ends when the target's run starts (or
/// could not), so its duration is what starting the target cost; the target's run links back
/// to it.
///
/// ```
/// use agentctl_core::{RunEvent, SpanDetail, SpanKind, TraceId, TracePolicy};
/// use agentctl_trace::{MemorySink, OpenSpan, TurnTrace};
/// use serde_json::json;
/// use std::sync::Arc;
///
/// let sink = Arc::new(MemorySink::default());
/// let session = OpenSpan::root(TraceId::random(), None, sink.clone(), TracePolicy::default(),
///     SpanDetail::Session { prompt: "it crashes".into() });
/// let mut turn = TurnTrace::new(session.context());
/// let mut first = turn.run("debug-analyzer", "it crashes", 0);
/// let handoff = RunEvent::Handoff { from: "debug-analyzer".into(), to: "code-fixer".into(),
///     reason: "Can auto-fix".into(), payload: json!({"file": "app.ts"}) };
/// first.event(&handoff);
/// turn.observe(&handoff);
/// first.finish();
/// let second = turn.run("code-fixer", "brief", 0);
/// second.finish();
/// session.end(None);
/// let spans = sink.spans();
/// let kinds: Vec<SpanKind> = spans.iter().map(|span| span.kind()).collect();
/// assert_eq!(kinds, [SpanKind::Run, SpanKind::Handoff, SpanKind::Run, SpanKind::Session]);
/// assert_eq!(spans[2].links, [spans[1].span_id]);
/// ```
#[derive(Debug)]
pub struct TurnTrace {
    ctx: TraceContext,
    handoff: Option<PendingHandoff>,
}

#[derive(Debug)]
struct PendingHandoff {
    start: Stamp,
    from: String,
    to: String,
    reason: String,
    payload: Value,
}

impl TurnTrace {
    /// The runs of a turn under `ctx`'s parent span.
    pub fn new(ctx: TraceContext) -> Self {
        Self { ctx, handoff: None }
    }

    /// The context runs of the turn hang under.
    pub fn context(&self) -> &TraceContext {
        &self.ctx
    }

    /// Starts tracing the next run of the turn; after a handoff, its span is recorded and
    /// linked from the new run's.
    pub fn run(&mut self, agent: &str, prompt: &str, depth: u32) -> RunTracer {
        let tracer = RunTracer::start(&self.ctx, agent, prompt, depth);
        match self.end_handoff(None) {
            Some(span) => tracer.linked_to(span),
            None => tracer,
        }
    }

    /// Notes a run's `handoff` event (other events are ignored).
    pub fn observe(&mut self, event: &RunEvent) {
        if let RunEvent::Handoff {
            from,
            to,
            reason,
            payload,
        } = event
        {
            self.handoff = Some(PendingHandoff {
                start: Stamp::now(),
                from: from.clone(),
                to: to.clone(),
                reason: reason.clone(),
                payload: payload.clone(),
            });
        }
    }

    /// Records the pending handoff's span, failed with `error` (the target could not start).
    pub fn handoff_failed(&mut self, error: &str) {
        self.end_handoff(Some(error.to_owned()));
    }

    fn end_handoff(&mut self, error: Option<String>) -> Option<SpanId> {
        let handoff = self.handoff.take()?;
        let span_id = SpanId::random();
        self.ctx.record(Span {
            trace_id: self.ctx.trace_id(),
            span_id,
            parent_id: Some(self.ctx.parent()),
            links: Vec::new(),
            session_id: self.ctx.session_id().map(str::to_owned),
            agent: Some(handoff.from.clone()),
            start_unix_nano: handoff.start.unix_nano,
            duration_ms: handoff.start.elapsed_ms(),
            status: if error.is_some() {
                SpanStatus::Error
            } else {
                SpanStatus::Ok
            },
            error,
            detail: SpanDetail::Handoff {
                from: handoff.from,
                to: handoff.to,
                reason: handoff.reason,
                payload: handoff.payload,
            },
        });
        Some(span_id)
    }
}

impl Drop for TurnTrace {
    fn drop(&mut self) {
        // A handoff whose target never started (the turn stopped at the handoff limit).
        if self.handoff.is_some() {
            self.end_handoff(Some("the target did not start".into()));
        }
    }
}
