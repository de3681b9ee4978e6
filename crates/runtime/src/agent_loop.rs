//! The agent loop, as small steps: **sample** the model, **dispatch** the tools it asked for,
//! **apply** their results to the conversation, **decide** whether to go on.
//!
//! The loop owns one [`ModelRequest`] for the whole run and appends to its `messages`, so a turn
//! costs no copy of the history; tool specs and the system prompt are built once per run.

use crate::budget::{TokenEstimator, model_context_window, prompt_token_budget};
use agentctl_core::{
    CallGate, ContextMode, DecidedBy, Decision, HandoffRequest, Message, ModelDelta, ModelProvider,
    ModelRef, ModelRequest, ModelResponse, PendingCall, ProviderError, Redactor, RiskLevel,
    RunError, RunEvent, RunMetadata, RunResult, SubAgentRunner, TokensUsed, Tool, ToolCall,
    ToolContext, ToolFilter, ToolRegistry, ToolsSettings, Usage, Verdict, not_allowed,
};
use futures_util::future::join_all;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Everything a run needs, resolved before the first turn.
pub(crate) struct Prepared {
    pub run_id: Arc<str>,
    pub agent: Arc<str>,
    pub model: ModelRef,
    pub model_label: String,
    pub provider: Arc<dyn ModelProvider>,
    pub context_mode: ContextMode,
    pub max_turns: u32,
    /// Tools the agent may use, sorted by name.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Every tool of the runtime: a call of a tool the agent may not use still reaches the
    /// gate, which refuses it with a `tool_decision`.
    pub registry: Arc<ToolRegistry>,
    pub filter: ToolFilter,
    /// Approval policy; `None` runs every call the filter lets through.
    pub gate: Option<Arc<dyn CallGate>>,
    /// Masks known secrets in tool results and errors.
    pub redactor: Redactor,
    pub request: ModelRequest,
    pub working_dir: Arc<Path>,
    pub cancel: CancellationToken,
    /// Starts sub-agent runs on this run's runtime, for tools that delegate.
    pub sub_agents: Arc<dyn SubAgentRunner>,
    /// Nesting depth ([`RunOptions::depth`](agentctl_core::RunOptions::depth)).
    pub depth: u32,
    /// Time limits of tool calls (`tools.timeoutSeconds`, `tools.timeouts`).
    pub tool_limits: ToolsSettings,
}

/// Where events go; building an event is skipped entirely when nobody listens.
pub(crate) struct EventSink {
    sender: Option<mpsc::UnboundedSender<RunEvent>>,
}

impl EventSink {
    pub(crate) fn channel(sender: mpsc::UnboundedSender<RunEvent>) -> Self {
        Self {
            sender: Some(sender),
        }
    }

    pub(crate) fn disabled() -> Self {
        Self { sender: None }
    }

    fn emit(&self, make: impl FnOnce() -> RunEvent) {
        if let Some(sender) = &self.sender {
            // A dropped receiver only means nobody watches any more.
            let _ = sender.send(make());
        }
    }
}

/// Runs a prepared run and reports its start and end.
pub(crate) async fn execute(
    prepared: Result<Prepared, RunError>,
    events: &EventSink,
) -> Result<RunResult, RunError> {
    let outcome = match prepared {
        Ok(run) => {
            events.emit(|| RunEvent::RunStarted {
                run_id: run.run_id.to_string(),
                agent: run.agent.to_string(),
                model: run.model_label.clone(),
                context_mode: run.context_mode,
            });
            drive(run, events).await
        }
        Err(error) => Err(error),
    };
    match &outcome {
        Ok(result) => events.emit(|| RunEvent::RunFinished {
            result: RunResult {
                text: result.text.clone(),
                metadata: result.metadata.clone(),
                messages: Vec::new(),
                handoff: result.handoff.clone(),
            },
        }),
        Err(error) => events.emit(|| RunEvent::RunFailed {
            error: error.to_string(),
        }),
    }
    outcome
}

/// Counters of one run.
struct LoopState {
    started: Instant,
    turn: u32,
    usage: Usage,
    estimator: TokenEstimator,
    window: u64,
    /// Index of the first message this run added (the prompt).
    first_new: usize,
}

/// What to do after a turn.
enum Next {
    Continue,
    Finish(String),
    /// A handoff tool asked to give the rest of the run to another agent.
    HandOff(String, HandoffRequest),
}

async fn drive(mut run: Prepared, events: &EventSink) -> Result<RunResult, RunError> {
    let mut estimator = TokenEstimator::new(run.request.system.as_deref(), &run.request.tools);
    for message in &run.request.messages {
        estimator.add(message);
    }
    let mut state = LoopState {
        started: Instant::now(),
        turn: 0,
        usage: Usage::default(),
        estimator,
        window: model_context_window(&run.model.model),
        first_new: run.request.messages.len().saturating_sub(1),
    };
    loop {
        if run.cancel.is_cancelled() {
            return Err(RunError::Cancelled);
        }
        if state.turn >= run.max_turns {
            return Err(max_turns(&run, &state));
        }
        let response = sample(&run, &mut state, events).await?;
        match apply_response(&mut run, &mut state, response, events).await? {
            Next::Continue => {}
            Next::Finish(text) => return Ok(finish(run, &state, text, None)),
            Next::HandOff(text, request) => {
                events.emit(|| RunEvent::Handoff {
                    from: request.from.clone(),
                    to: request.to.clone(),
                    reason: request.reason.clone(),
                    payload: request.payload.clone(),
                });
                return Ok(finish(run, &state, text, Some(request)));
            }
        }
    }
}

/// Step 1: one model call, streamed into `text_delta` events.
async fn sample(
    run: &Prepared,
    state: &mut LoopState,
    events: &EventSink,
) -> Result<ModelResponse, RunError> {
    state.turn += 1;
    events.emit(|| RunEvent::ModelRequest {
        turn: state.turn,
        message_count: run.request.messages.len(),
        tool_count: run.request.tools.len(),
        prompt_token_budget: prompt_token_budget(state.window, run.request.max_tokens),
        estimated_prompt_tokens: state.estimator.estimate(),
        model_context_window: state.window,
    });
    let streamed_text = AtomicBool::new(false);
    let on_delta = |delta: ModelDelta| {
        if let ModelDelta::Text { text } = delta {
            streamed_text.store(true, Ordering::Relaxed);
            events.emit(|| RunEvent::TextDelta {
                text,
                provisional: false,
            });
        }
    };
    let response = tokio::select! {
        biased;
        () = run.cancel.cancelled() => return Err(RunError::Cancelled),
        response = run.provider.complete(&run.request, &on_delta) => response,
    };
    let response = match response {
        Ok(response) => response,
        Err(ProviderError::Cancelled) => return Err(RunError::Cancelled),
        Err(error) => return Err(error.into()),
    };
    // Providers that do not stream report no deltas: the text still reaches listeners once.
    if !streamed_text.load(Ordering::Relaxed)
        && let Some(text) = response.text.as_ref().filter(|text| !text.is_empty())
    {
        events.emit(|| RunEvent::TextDelta {
            text: text.clone(),
            provisional: false,
        });
    }
    state.usage.add(response.usage);
    state.estimator.calibrate(response.usage.input_tokens);
    events.emit(|| RunEvent::Usage {
        input_tokens: response.usage.input_tokens,
        output_tokens: response.usage.output_tokens,
    });
    Ok(response)
}

/// Steps 2–4: record the answer, run the tools it asks for, append their results, decide.
async fn apply_response(
    run: &mut Prepared,
    state: &mut LoopState,
    response: ModelResponse,
    events: &EventSink,
) -> Result<Next, RunError> {
    let ModelResponse {
        text, tool_calls, ..
    } = response;
    if tool_calls.is_empty() {
        let text = text.unwrap_or_default();
        let message = Message::Assistant {
            content: Some(text.clone()),
            tool_calls,
        };
        state.estimator.add(&message);
        run.request.messages.push(message);
        commit_turn(run, state, 1, events);
        return Ok(Next::Finish(text));
    }
    let message = Message::Assistant {
        content: text,
        tool_calls,
    };
    state.estimator.add(&message);
    run.request.messages.push(message);
    if state.turn >= run.max_turns {
        // The model wants more turns than it may have: running the tools would be wasted.
        return Err(max_turns(run, state));
    }
    let turn_text = match run.request.messages.last() {
        Some(Message::Assistant { content, .. }) => content.clone().unwrap_or_default(),
        _ => String::new(),
    };
    let (results, handoff) = {
        let Some(Message::Assistant { tool_calls, .. }) = run.request.messages.last() else {
            return Err(RunError::Aborted(
                "the assistant message was not recorded".into(),
            ));
        };
        tokio::select! {
            biased;
            () = run.cancel.cancelled() => return Err(RunError::Cancelled),
            results = dispatch(run, tool_calls, events) => results,
        }
    };
    let added = results.len() + 1;
    for message in results {
        state.estimator.add(&message);
        run.request.messages.push(message);
    }
    commit_turn(run, state, added, events);
    Ok(match handoff {
        Some(request) => Next::HandOff(turn_text, request),
        None => Next::Continue,
    })
}

/// Reports the last `count` messages as the turn the loop committed.
fn commit_turn(run: &Prepared, state: &LoopState, count: usize, events: &EventSink) {
    events.emit(|| {
        let messages = &run.request.messages;
        RunEvent::TurnCommitted {
            turn: state.turn,
            messages: messages[messages.len().saturating_sub(count)..].to_vec(),
        }
    });
}

/// Step 2: run the calls, concurrently when none of them mutates, and return the tool
/// messages in call order, with the handoff one of them asked for. When several calls of one
/// reply hand off, the first wins and the others read that they were ignored.
async fn dispatch(
    run: &Prepared,
    calls: &[ToolCall],
    events: &EventSink,
) -> (Vec<Message>, Option<HandoffRequest>) {
    for call in calls {
        events.emit(|| RunEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
    }
    let sequential = calls.len() == 1
        || calls.iter().any(|call| {
            run.registry
                .get(&call.name)
                .is_some_and(|tool| tool.is_mutating())
        });
    let outcomes = if sequential {
        let mut outcomes = Vec::with_capacity(calls.len());
        for call in calls {
            outcomes.push(call_tool(run, call, events).await);
        }
        outcomes
    } else {
        join_all(calls.iter().map(|call| call_tool(run, call, events))).await
    };
    let mut handoff: Option<HandoffRequest> = None;
    let messages = calls
        .iter()
        .zip(outcomes)
        .map(|(call, mut outcome)| {
            if let Some(request) = outcome.handoff.take() {
                match &handoff {
                    None => handoff = Some(request),
                    Some(first) => {
                        outcome.content = format!(
                            "Ignored: this reply already hands off to {}; only the first handoff of a reply is made.",
                            first.to
                        );
                        outcome.is_error = true;
                    }
                }
            }
            events.emit(|| RunEvent::ToolResult {
                id: call.id.clone(),
                name: call.name.clone(),
                content: outcome.content.clone(),
                is_error: outcome.is_error,
                duration_ms: outcome.duration_ms,
            });
            Message::Tool {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: outcome.content,
                is_error: outcome.is_error,
            }
        })
        .collect();
    (messages, handoff)
}

struct Outcome {
    content: String,
    is_error: bool,
    duration_ms: u64,
    handoff: Option<HandoffRequest>,
}

/// Step 3 for one call: report unknown, refuse, or (once the gate allows it) run it.
/// Failures become error results the model reads; they never end the run.
async fn call_tool(run: &Prepared, call: &ToolCall, events: &EventSink) -> Outcome {
    // Time spent waiting for the user's approval is not the tool's.
    let mut started = Instant::now();
    let result = match run.registry.get(&call.name) {
        // A tool the agent may not use is refused as such, registered or not.
        None if !run.filter.allows(&call.name) => {
            let decision = Decision::deny(RiskLevel::Medium, not_allowed(&call.name));
            emit_decision(events, call, &decision);
            Err(not_allowed(&call.name))
        }
        None => Err(unknown_tool(run, &call.name)),
        Some(tool) => match approve(run, call, tool.as_ref(), events).await {
            Some(denial) => Err(denial),
            None => {
                started = Instant::now();
                let ctx = ToolContext::new(
                    Arc::clone(&run.run_id),
                    Arc::clone(&run.agent),
                    call.id.clone(),
                    Arc::clone(&run.working_dir),
                    run.cancel.clone(),
                )
                .with_sub_agents(Arc::clone(&run.sub_agents), run.depth);
                let limit = run.tool_limits.timeout_for(&call.name);
                // Dropping a call that ran out of time stops it: tools that start processes
                // kill their process groups when dropped.
                match tokio::time::timeout(limit, tool.call(call.arguments.clone(), &ctx)).await {
                    Ok(result) => result.map_err(|error| error.to_string()),
                    Err(_) => Err(format!(
                        "{} did not finish within {} s and was stopped (settings tools.timeoutSeconds, tools.timeouts.{})",
                        call.name,
                        limit.as_secs(),
                        call.name
                    )),
                }
            }
        },
    };
    let duration_ms = started.elapsed().as_millis().try_into().unwrap_or(u64::MAX);
    let (mut content, is_error, handoff) = match result {
        Ok(output) => (output.content, false, output.handoff),
        Err(message) => (message, true, None),
    };
    // A secret a tool read (a key in a file, a server's echo) goes no further.
    run.redactor.redact_string(&mut content);
    Outcome {
        content,
        is_error,
        duration_ms,
        handoff,
    }
}

/// Passes a call through the gate; returns the denial the model should read. Without a gate
/// only the agent's tool lists apply.
async fn approve(
    run: &Prepared,
    call: &ToolCall,
    tool: &dyn Tool,
    events: &EventSink,
) -> Option<String> {
    let pending = PendingCall {
        agent: &run.agent,
        filter: &run.filter,
        call,
        tool,
    };
    let decision = match &run.gate {
        Some(gate) => gate.decide(&pending),
        None if run.filter.allows(&call.name) => Decision::allow(
            tool.risk(),
            "no approval gate: the agent's tool list allows it",
        ),
        None => Decision::deny(tool.risk(), not_allowed(&call.name)),
    };
    let decision = match (decision, &run.gate) {
        (Decision::Ask { risk, reason }, Some(gate)) => {
            events.emit(|| RunEvent::ApprovalRequested {
                id: call.id.clone(),
                name: call.name.clone(),
                risk,
                reason: reason.clone(),
            });
            gate.ask(&pending, risk, &reason).await
        }
        (decision, _) => decision,
    };
    emit_decision(events, call, &decision);
    match decision {
        Decision::Allow { .. } => None,
        Decision::Deny { reason, .. } => Some(reason),
        // A gate that answers "ask" to its own question: refuse rather than run unasked.
        Decision::Ask { risk, reason } => Some(format!(
            "denied: {} needs approval (risk {risk}: {reason}) and was not approved",
            call.name
        )),
    }
}

fn emit_decision(events: &EventSink, call: &ToolCall, decision: &Decision) {
    events.emit(|| {
        let (verdict, by, hint) = match decision {
            Decision::Allow { by, .. } => (Verdict::Allow, *by, None),
            Decision::Deny { by, hint, .. } => (Verdict::Deny, *by, hint.clone()),
            Decision::Ask { .. } => (Verdict::Deny, DecidedBy::Policy, None),
        };
        RunEvent::ToolDecision {
            id: call.id.clone(),
            name: call.name.clone(),
            risk: decision.risk(),
            decision: verdict,
            reason: decision.reason().to_owned(),
            by,
            hint,
        }
    });
}

fn unknown_tool(run: &Prepared, name: &str) -> String {
    if run.tools.is_empty() {
        return format!("Unknown tool: {name}. This agent has no tools.");
    }
    let names: Vec<&str> = run.tools.iter().map(|tool| tool.name()).collect();
    format!(
        "Unknown tool: {name}. Available tools: {}",
        names.join(", ")
    )
}

fn max_turns(run: &Prepared, state: &LoopState) -> RunError {
    let partial_text = run.request.messages[state.first_new..]
        .iter()
        .filter_map(|message| match message {
            Message::Assistant {
                content: Some(text),
                ..
            } if !text.is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    RunError::MaxTurns {
        agent: run.agent.to_string(),
        turns: run.max_turns,
        partial_text,
    }
}

/// Step 4, the end: the result with the conversation.
fn finish(
    run: Prepared,
    state: &LoopState,
    text: String,
    handoff: Option<HandoffRequest>,
) -> RunResult {
    RunResult {
        text,
        handoff,
        metadata: RunMetadata {
            run_id: run.run_id.to_string(),
            agent: run.agent.to_string(),
            model: run.model_label,
            tokens_used: TokensUsed {
                input: state.usage.input_tokens,
                output: state.usage.output_tokens,
            },
            duration_ms: state
                .started
                .elapsed()
                .as_millis()
                .try_into()
                .unwrap_or(u64::MAX),
            iterations: state.turn,
            context_mode: run.context_mode,
        },
        messages: run.request.messages,
    }
}
