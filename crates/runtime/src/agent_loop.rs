//! The agent loop, as small steps: **sample** the model, **dispatch** the tools it asked for
//! ([`crate::dispatch`]), **apply** their results to the conversation, **decide** whether to go
//! on — with the guardrails ([`crate::guard`]) checking the prompt before the first sample and
//! each final answer or handoff before it is committed.
//!
//! The loop owns one [`ModelRequest`] for the whole run and appends to its `messages`, so a turn
//! costs no copy of the history; tool specs and the system prompt are built once per run.

use crate::budget::{TokenEstimator, model_context_window, prompt_token_budget};
use crate::cancel::until_cancelled;
use crate::dispatch::dispatch;
pub(crate) use crate::events::EventSink;
use crate::guard::{self, Checked, TextBarrier};
use agentctl_core::{
    CallGate, ContextMode, GuardrailSubject, HandoffRequest, Message, ModelDelta, ModelProvider,
    ModelRef, ModelRequest, ModelResponse, ProviderError, Redactor, RunError, RunEvent,
    RunGuardrails, RunMetadata, RunResult, SubAgentRunner, TokensUsed, Tool, ToolFilter,
    ToolRegistry, ToolsSettings, TraceContext, Usage,
};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
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
    /// Decides every call (the runtime's gate, or its safe-only default).
    pub gate: Arc<dyn CallGate>,
    /// Masks known secrets in tool results and errors.
    pub redactor: Redactor,
    /// The agent's guardrails, if it declares any.
    pub guardrails: Option<Arc<dyn RunGuardrails>>,
    /// The run's prompt, as the input guardrails check it.
    pub prompt: Arc<str>,
    pub request: ModelRequest,
    pub working_dir: Arc<Path>,
    pub cancel: CancellationToken,
    /// Starts sub-agent runs on this run's runtime, for tools that delegate.
    pub sub_agents: Arc<dyn SubAgentRunner>,
    /// Nesting depth ([`RunOptions::depth`](agentctl_core::RunOptions::depth)).
    pub depth: u32,
    /// Time limits of tool calls (`tools.timeoutSeconds`, `tools.timeouts`).
    pub tool_limits: ToolsSettings,
    /// The trace the run belongs to, passed on to its tool calls.
    pub trace: Option<TraceContext>,
}

/// Runs a prepared run and reports its start and end. The run is kept here, and lent to the
/// steps: the future holds it once (an `async fn` would hold its argument twice, as argument
/// and as local).
#[expect(
    clippy::manual_async_fn,
    reason = "an async fn stores its argument twice: 616 bytes more per run"
)]
pub(crate) fn execute(
    mut run: Prepared,
    events: EventSink,
) -> impl Future<Output = Result<RunResult, RunError>> + Send {
    async move {
        events.emit(|| RunEvent::RunStarted {
            run_id: run.run_id.to_string(),
            agent: run.agent.to_string(),
            model: run.model_label.clone(),
            context_mode: run.context_mode,
        });
        // One watch on the token for the whole run, not one per step: a cancelled run's loop
        // is dropped wherever it waits (the model call, a tool, a guardrail check) and never
        // polled again.
        let cancel = run.cancel.clone();
        let outcome = until_cancelled(&cancel, drive(&mut run, &events))
            .await
            .and_then(|outcome| outcome);
        report_end(&outcome, &events);
        outcome
    }
}

/// Reports how a run ended: `run_finished` or `run_failed`.
pub(crate) fn report_end(outcome: &Result<RunResult, RunError>, events: &EventSink) {
    match outcome {
        Ok(result) => events.emit(|| RunEvent::RunFinished {
            result: Box::new(RunResult {
                text: result.text.clone(),
                metadata: result.metadata.clone(),
                messages: Vec::new(),
                handoff: result.handoff.clone(),
            }),
        }),
        Err(error) => events.emit(|| RunEvent::RunFailed {
            error: error.to_string(),
        }),
    }
}

/// Counters of one run.
pub(crate) struct LoopState {
    started: Instant,
    turn: u32,
    usage: Usage,
    pub(crate) estimator: TokenEstimator,
    window: u64,
    /// Index of the first message this run added (the prompt).
    first_new: usize,
    /// Repairs asked for by output guardrails so far.
    pub(crate) repairs: u32,
    /// Answers that failed an output guardrail, each with the repair request after it: never
    /// committed, removed once an answer stands.
    pub(crate) set_aside: Vec<Range<usize>>,
}

/// What to do after a turn. A final turn (answer or handoff) is not committed yet: the output
/// guardrails decide whether it stands; `added` counts its messages.
enum Next {
    Continue,
    Finish {
        text: String,
        added: usize,
    },
    /// A handoff tool asked to give the rest of the run to another agent.
    HandOff {
        text: String,
        request: HandoffRequest,
        added: usize,
    },
}

async fn drive(run: &mut Prepared, events: &EventSink) -> Result<RunResult, RunError> {
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
        repairs: 0,
        set_aside: Vec::new(),
    };
    guard::check_input(run, events).await?;
    loop {
        if run.cancel.is_cancelled() {
            return Err(RunError::Cancelled);
        }
        if state.turn >= run.max_turns {
            return Err(max_turns(run, &state));
        }
        let response = if state.turn == 0 {
            guard::sample_checked(run, &mut state, events).await?
        } else {
            sample(run, &mut state, events, None).await?
        };
        // Bound first: a temporary of the `match` scrutinee would live (in the future) across
        // the guardrail awaits below.
        let next = apply_response(run, &mut state, response, events).await?;
        match next {
            Next::Continue => {}
            Next::Finish { text, added } => {
                let subject = GuardrailSubject::Answer { text: &text };
                if let Checked::Stands =
                    guard::check_output(run, &mut state, subject, added, events).await?
                {
                    commit_turn(run, &state, added, events);
                    return Ok(finish(run, &state, text, None));
                }
            }
            Next::HandOff {
                text,
                request,
                added,
            } => {
                let subject = GuardrailSubject::Handoff {
                    to: &request.to,
                    text: &text,
                    payload: &request.payload,
                };
                if let Checked::Stands =
                    guard::check_output(run, &mut state, subject, added, events).await?
                {
                    commit_turn(run, &state, added, events);
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
}

/// Step 1: one model call, streamed into `text_delta` events (held by `barrier` while the
/// parallel input guardrails run).
pub(crate) async fn sample(
    run: &Prepared,
    state: &mut LoopState,
    events: &EventSink,
    barrier: Option<&TextBarrier>,
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
    let provisional = guard::text_is_provisional(run);
    let emit_text = |text: String| {
        let event = || RunEvent::TextDelta { text, provisional };
        match barrier {
            Some(barrier) => barrier.pass(event(), events),
            None => events.emit(event),
        }
    };
    let on_delta = |delta: ModelDelta| {
        if let ModelDelta::Text { text } = delta {
            streamed_text.store(true, Ordering::Relaxed);
            emit_text(text);
        }
    };
    let response = match run.provider.complete(&run.request, &on_delta).await {
        Ok(response) => response,
        Err(ProviderError::Cancelled) => return Err(RunError::Cancelled),
        Err(error) => return Err(error.into()),
    };
    // Providers that do not stream report no deltas: the text still reaches listeners once.
    if !streamed_text.load(Ordering::Relaxed)
        && let Some(text) = response.text.as_ref().filter(|text| !text.is_empty())
    {
        emit_text(text.clone());
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
        return Ok(Next::Finish { text, added: 1 });
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
        dispatch(run, tool_calls, events).await
    };
    let added = results.len() + 1;
    for message in results {
        state.estimator.add(&message);
        run.request.messages.push(message);
    }
    Ok(match handoff {
        Some(request) => Next::HandOff {
            text: turn_text,
            request,
            added,
        },
        None => {
            commit_turn(run, state, added, events);
            Next::Continue
        }
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

/// Step 4, the end: the result, with the conversation taken from the run.
fn finish(
    run: &mut Prepared,
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
            model: std::mem::take(&mut run.model_label),
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
        messages: std::mem::take(&mut run.request.messages),
    }
}
