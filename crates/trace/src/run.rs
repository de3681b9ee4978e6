//! [`RunTracer`]: one run's spans, built from its events as they pass.
//!
//! * `run` — from the tracer's start to `run_finished`/`run_failed`, with the model, turns
//!   and tokens.
//! * `llm` — from `model_request` to the `usage` that ends the answer; it carries the turn's
//!   input (the prompt for the first call, the previous turn's tool results after), the
//!   answer's text and the tools it called. It is recorded once the calls are known (at the
//!   first event that is not one of them).
//! * `tool` — from `tool_call` to the end of the call: approval waits are inside the span but
//!   not in `latency_ms`, which is the tool's own time.
//! * `guardrail` — one per check, ending when its `guardrail` event arrives.
//!
//! The tracer holds only what is open — the model call in progress and the tool calls of one
//! turn, each text capped — so a run of any length keeps its trace memory flat: everything
//! finished has gone to the sink.

use crate::clock::Stamp;
use agentctl_core::{
    ContextMode, MAX_SPAN_TEXT_BYTES, RiskLevel, RunEvent, Span, SpanDetail, SpanId, SpanStatus,
    SpanTokens, ToolCall, TraceContext, Verdict,
};
use serde_json::Value;

/// Builds one run's spans from its events and records them through its [`TraceContext`].
///
/// ```
/// use agentctl_core::{ContextMode, Message, RunEvent, SpanKind, TraceId, TracePolicy};
/// use agentctl_trace::{MemorySink, OpenSpan, RunTracer};
/// use std::sync::Arc;
///
/// let sink = Arc::new(MemorySink::default());
/// let session = OpenSpan::root(TraceId::random(), None, sink.clone(), TracePolicy::default(),
///     agentctl_core::SpanDetail::Session { prompt: "hi".into() });
/// let mut run = RunTracer::start(&session.context(), "helper", "hi", 0);
/// run.event(&RunEvent::RunStarted { run_id: "r1".into(), agent: "helper".into(),
///     model: "openai:gpt-4o".into(), context_mode: ContextMode::Isolated });
/// run.event(&RunEvent::ModelRequest { turn: 1, message_count: 1, tool_count: 0,
///     prompt_token_budget: 1000, estimated_prompt_tokens: 10, model_context_window: 128_000 });
/// run.event(&RunEvent::TextDelta { text: "Hello!".into(), provisional: false });
/// run.event(&RunEvent::Usage { input_tokens: 10, output_tokens: 2 });
/// run.event(&RunEvent::TurnCommitted { turn: 1, messages: vec![Message::assistant("Hello!")] });
/// run.finish();
/// let kinds: Vec<SpanKind> = sink.spans().iter().map(|span| span.kind()).collect();
/// assert_eq!(kinds, [SpanKind::Llm, SpanKind::Run]);
/// ```
#[derive(Debug)]
pub struct RunTracer {
    ctx: TraceContext,
    id: SpanId,
    links: Vec<SpanId>,
    agent: String,
    depth: u32,
    start: Stamp,
    run_id: String,
    model: String,
    context_mode: Option<ContextMode>,
    turns: u32,
    tokens: SpanTokens,
    llm: Option<OpenLlm>,
    tools: Vec<OpenTool>,
    /// What the next model call adds to the conversation.
    next_prompt: String,
    /// The last event seen: a guardrail check ran since.
    last_event: Stamp,
    /// The error the run failed with, once it ended.
    ended: bool,
}

#[derive(Debug)]
struct OpenLlm {
    turn: u32,
    start: Stamp,
    end: Option<Stamp>,
    prompt: String,
    response: String,
    tool_calls: Vec<ToolCall>,
    tokens: SpanTokens,
}

#[derive(Debug)]
struct OpenTool {
    id: String,
    name: String,
    input: Value,
    start: Stamp,
    /// When the gate let it run.
    running: Option<Stamp>,
    risk: Option<RiskLevel>,
    decision: Option<Verdict>,
}

impl RunTracer {
    /// Starts tracing a run of `agent` on `prompt` under `ctx`'s parent span, at sub-agent
    /// nesting `depth`.
    pub fn start(ctx: &TraceContext, agent: &str, prompt: &str, depth: u32) -> Self {
        let now = Stamp::now();
        Self {
            ctx: ctx.clone(),
            id: SpanId::random(),
            links: Vec::new(),
            agent: agent.to_owned(),
            depth,
            start: now,
            run_id: String::new(),
            model: String::new(),
            context_mode: None,
            turns: 0,
            tokens: SpanTokens::default(),
            llm: None,
            tools: Vec::new(),
            next_prompt: capped(prompt),
            last_event: now,
            ended: false,
        }
    }

    /// The same tracer, its run linked to `span` (the handoff that started it).
    pub fn linked_to(mut self, span: SpanId) -> Self {
        self.links.push(span);
        self
    }

    /// The run span's id.
    pub fn span_id(&self) -> SpanId {
        self.id
    }

    /// Takes one event of the run.
    // Kept whole: one arm per run event, each the span it opens or closes.
    pub fn event(&mut self, event: &RunEvent) {
        let now = Stamp::now();
        match event {
            RunEvent::RunStarted {
                run_id,
                model,
                context_mode,
                ..
            } => {
                self.run_id.clone_from(run_id);
                self.model.clone_from(model);
                self.context_mode = Some(*context_mode);
            }
            RunEvent::ModelRequest { turn, .. } => {
                self.close_llm(now, true, None);
                self.turns = *turn;
                self.llm = Some(OpenLlm {
                    turn: *turn,
                    start: now,
                    end: None,
                    prompt: std::mem::take(&mut self.next_prompt),
                    response: String::new(),
                    tool_calls: Vec::new(),
                    tokens: SpanTokens::default(),
                });
            }
            RunEvent::TextDelta { text, .. } => {
                if let Some(llm) = &mut self.llm {
                    push_capped(&mut llm.response, text);
                }
            }
            RunEvent::Usage {
                input_tokens,
                output_tokens,
            } => {
                self.tokens.input += input_tokens;
                self.tokens.output += output_tokens;
                if let Some(llm) = &mut self.llm {
                    llm.end = Some(now);
                    llm.tokens = SpanTokens {
                        input: *input_tokens,
                        output: *output_tokens,
                    };
                }
            }
            RunEvent::ToolCall {
                id,
                name,
                arguments,
            } => {
                if let Some(llm) = &mut self.llm {
                    llm.tool_calls.push(ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments: arguments.clone(),
                        signature: None,
                    });
                }
                self.tools.push(OpenTool {
                    id: id.clone(),
                    name: name.clone(),
                    input: arguments.clone(),
                    start: now,
                    running: None,
                    risk: None,
                    decision: None,
                });
            }
            RunEvent::ApprovalRequested { .. } => self.close_llm(now, false, None),
            RunEvent::ToolDecision {
                id, risk, decision, ..
            } => {
                self.close_llm(now, false, None);
                if let Some(tool) = self.tools.iter_mut().find(|tool| &tool.id == id) {
                    tool.running = Some(now);
                    tool.risk = Some(*risk);
                    tool.decision = Some(*decision);
                }
            }
            RunEvent::ToolResult {
                id,
                name,
                content,
                is_error,
                duration_ms,
            } => {
                self.close_llm(now, false, None);
                self.tool_result(id, name, content, *is_error, *duration_ms, now);
            }
            RunEvent::Guardrail {
                name,
                stage,
                passed,
                policy,
                errors,
                attempt,
            } => {
                self.close_llm(now, false, None);
                let failed = !passed;
                self.record(
                    self.last_event,
                    self.last_event.ms_until(&now),
                    failed.then(|| format!("guardrail `{name}` failed")),
                    SpanDetail::Guardrail {
                        name: name.clone(),
                        stage: *stage,
                        passed: *passed,
                        policy: *policy,
                        errors: errors.clone(),
                        attempt: *attempt,
                    },
                    Vec::new(),
                );
            }
            RunEvent::RunFinished { result } => {
                self.tokens = SpanTokens {
                    input: result.metadata.tokens_used.input,
                    output: result.metadata.tokens_used.output,
                };
                self.turns = result.metadata.iterations;
                self.end(now, None);
            }
            RunEvent::RunFailed { error } => self.end(now, Some(error.clone())),
            // Committed turns and handoffs change nothing of the run's own spans: a handoff
            // is the turn's business (it ends when the target starts).
            _ => self.close_llm(now, false, None),
        }
        self.last_event = now;
    }

    /// Ends the run span if its events did not (the stream was dropped): the open model
    /// call and tool calls are recorded as cancelled.
    pub fn finish(mut self) {
        if !self.ended {
            self.end(Stamp::now(), Some("cancelled".into()));
        }
    }

    fn tool_result(
        &mut self,
        id: &str,
        name: &str,
        content: &str,
        is_error: bool,
        duration_ms: u64,
        now: Stamp,
    ) {
        let tool = match self.tools.iter().position(|tool| tool.id == id) {
            Some(index) => self.tools.swap_remove(index),
            None => OpenTool {
                id: id.to_owned(),
                name: name.to_owned(),
                input: Value::Null,
                start: now,
                running: None,
                risk: None,
                decision: None,
            },
        };
        #[allow(clippy::cast_precision_loss)]
        let latency_ms = duration_ms as f64;
        let waited = tool
            .running
            .map_or(0.0, |running| tool.start.ms_until(&running));
        push_capped(&mut self.next_prompt, &format!("[{name}] {content}\n"));
        self.record(
            tool.start,
            waited + latency_ms,
            is_error.then(|| first_line(content)),
            SpanDetail::Tool {
                name: tool.name,
                call_id: tool.id,
                input: tool.input,
                output: capped(content),
                latency_ms,
                error: is_error.then(|| capped(content)),
                risk: tool.risk,
                decision: tool.decision,
            },
            Vec::new(),
        );
    }

    /// Records the model call in progress once its answer ended (`force`: whatever its
    /// state, at the next call or the end of the run).
    fn close_llm(&mut self, now: Stamp, force: bool, error: Option<&str>) {
        let ready = self
            .llm
            .as_ref()
            .is_some_and(|llm| force || llm.end.is_some());
        if !ready {
            return;
        }
        let Some(llm) = self.llm.take() else { return };
        let (end, error) = match llm.end {
            Some(end) => (end, None),
            None => (
                now,
                Some(error.unwrap_or("the answer did not end").to_owned()),
            ),
        };
        let latency_ms = llm.start.ms_until(&end);
        self.record(
            llm.start,
            latency_ms,
            error,
            SpanDetail::Llm {
                model: self.model.clone(),
                turn: llm.turn,
                prompt: llm.prompt,
                response: llm.response,
                tool_calls: llm.tool_calls,
                tokens: llm.tokens,
                latency_ms,
            },
            Vec::new(),
        );
    }

    fn end(&mut self, now: Stamp, error: Option<String>) {
        if self.ended {
            return;
        }
        self.ended = true;
        let reason = error.as_deref().unwrap_or("the run ended before it");
        self.close_llm(now, true, Some(reason));
        for tool in std::mem::take(&mut self.tools) {
            let message = format!("not finished: {reason}");
            self.record(
                tool.start,
                tool.start.ms_until(&now),
                Some(message.clone()),
                SpanDetail::Tool {
                    name: tool.name,
                    call_id: tool.id,
                    input: tool.input,
                    output: String::new(),
                    latency_ms: 0.0,
                    error: Some(message),
                    risk: tool.risk,
                    decision: tool.decision,
                },
                Vec::new(),
            );
        }
        let span = Span {
            trace_id: self.ctx.trace_id(),
            span_id: self.id,
            parent_id: Some(self.ctx.parent()),
            links: std::mem::take(&mut self.links),
            session_id: self.ctx.session_id().map(str::to_owned),
            agent: Some(self.agent.clone()),
            start_unix_nano: self.start.unix_nano,
            duration_ms: self.start.ms_until(&now),
            status: status(error.as_ref()),
            error,
            detail: SpanDetail::Run {
                run_id: self.run_id.clone(),
                model: self.model.clone(),
                context_mode: self.context_mode,
                turns: self.turns,
                tokens: self.tokens,
                depth: self.depth,
            },
        };
        self.ctx.record(span);
    }

    /// Records a span inside the run. Tool spans take the id their call's own work (a
    /// sub-agent) hangs under.
    fn record(
        &self,
        start: Stamp,
        duration_ms: f64,
        error: Option<String>,
        detail: SpanDetail,
        links: Vec<SpanId>,
    ) {
        let span_id = match &detail {
            SpanDetail::Tool { call_id, .. } => {
                SpanId::of_tool_call(self.ctx.trace_id(), &self.run_id, call_id)
            }
            _ => SpanId::random(),
        };
        self.ctx.record(Span {
            trace_id: self.ctx.trace_id(),
            span_id,
            parent_id: Some(self.id),
            links,
            session_id: self.ctx.session_id().map(str::to_owned),
            agent: Some(self.agent.clone()),
            start_unix_nano: start.unix_nano,
            duration_ms,
            status: status(error.as_ref()),
            error,
            detail,
        });
    }
}

impl Drop for RunTracer {
    fn drop(&mut self) {
        if !self.ended {
            self.end(Stamp::now(), Some("cancelled".into()));
        }
    }
}

fn status(error: Option<&String>) -> SpanStatus {
    if error.is_some() {
        SpanStatus::Error
    } else {
        SpanStatus::Ok
    }
}

/// At most a little over [`MAX_SPAN_TEXT_BYTES`]: [`TraceContext::record`] cuts and marks the
/// rest; this only keeps what the tracer holds bounded.
fn capped(text: &str) -> String {
    let mut out = String::new();
    push_capped(&mut out, text);
    out
}

fn push_capped(out: &mut String, text: &str) {
    let room = (MAX_SPAN_TEXT_BYTES + 1).saturating_sub(out.len());
    if room == 0 {
        return;
    }
    let mut cut = text.len().min(room);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    out.push_str(&text[..cut]);
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    capped(line)
}
