//! A turn's tracing: its runs' spans under the turn's own `session` root span, or under the
//! caller's span (a graph node), or nothing when the turn is not traced.

use super::state::Engine;
use agentctl_core::{AgentDefinition, RunEvent, SpanDetail, TraceContext};
use agentctl_store::TraceLog;
use agentctl_trace::{OpenSpan, RunTracer, TurnTrace};
use std::sync::Arc;

impl Engine {
    /// Where a turn of `agent` on `prompt` is traced: under `parent` (a graph node's span),
    /// else under a new `session` root span when the turn is traced at all.
    pub(crate) fn trace_turn(
        &self,
        agent: &AgentDefinition,
        parent: Option<&TraceContext>,
        prompt: &str,
    ) -> TurnTracing {
        if let Some(parent) = parent {
            return TurnTracing::under(parent.clone());
        }
        let store = self.session().map(|session| {
            (
                Arc::clone(session.store()) as Arc<dyn TraceLog>,
                session.id(),
            )
        });
        let detail = SpanDetail::Session {
            prompt: prompt.to_owned(),
        };
        match self
            .shared
            .tracing
            .begin(agent.spec.tracing.as_ref(), store, detail)
        {
            Some(root) => TurnTracing::rooted(root),
            None => TurnTracing::off(),
        }
    }
}

/// A turn's tracing: off, or its runs under a parent span — the turn's own `session` root
/// span, or the caller's (a graph node).
pub(crate) struct TurnTracing {
    root: Option<OpenSpan>,
    turn: Option<TurnTrace>,
    run: Option<RunTracer>,
}

impl TurnTracing {
    pub(crate) fn off() -> Self {
        Self {
            root: None,
            turn: None,
            run: None,
        }
    }

    /// Runs under `parent`'s span, which the caller ends.
    pub(crate) fn under(parent: TraceContext) -> Self {
        Self {
            root: None,
            turn: Some(TurnTrace::new(parent)),
            run: None,
        }
    }

    /// Runs under the turn's own root span.
    pub(crate) fn rooted(root: OpenSpan) -> Self {
        Self {
            turn: Some(TurnTrace::new(root.context())),
            root: Some(root),
            run: None,
        }
    }

    /// The context the turn's runs carry (their tools' sub-agents hang under it).
    pub(crate) fn context(&self) -> Option<&TraceContext> {
        self.turn.as_ref().map(TurnTrace::context)
    }

    /// Starts tracing the turn's next run (ending the previous one's, if still open).
    pub(crate) fn next_run(&mut self, agent: &str, prompt: &str, depth: u32) {
        if let Some(run) = self.run.take() {
            run.finish();
        }
        self.run = self
            .turn
            .as_mut()
            .map(|turn| turn.run(agent, prompt, depth));
    }

    pub(crate) fn event(&mut self, event: &RunEvent) {
        if let Some(run) = &mut self.run {
            run.event(event);
        }
        if let Some(turn) = &mut self.turn {
            turn.observe(event);
        }
    }

    pub(crate) fn handoff_failed(&mut self, error: &str) {
        if let Some(turn) = &mut self.turn {
            turn.handoff_failed(error);
        }
    }

    pub(crate) fn finish(mut self, error: Option<&str>) {
        if let Some(run) = self.run.take() {
            run.finish();
        }
        // A handoff the turn never acted on is recorded before the root ends.
        drop(self.turn.take());
        if let Some(root) = self.root.take() {
            root.end(error);
        }
    }
}
