//! The agent loop, as small steps: **sample** the model, **dispatch** the tools it asked for
//! ([`crate::dispatch`], after [`crate::sample`]), **apply** their results to the conversation, **decide** whether to go
//! on — with the guardrails ([`crate::guard`]) checking the prompt before the first sample and
//! each final answer or handoff before it is committed.
//!
//! The loop owns one [`ModelRequest`] for the whole run and appends to its `messages`, so a turn
//! costs no copy of the history; tool specs and the system prompt are built once per run.

use crate::cancel::until_cancelled;
use crate::dispatch::dispatch;
use crate::events::EventSink;
use crate::guard::{self, Checked};
use crate::run_state::{LoopState, Prepared};
use crate::sample::sample;
use agentctl_core::Background as _;
use agentctl_core::{
    BudgetReached, EffortPlan, GuardrailSubject, HandoffRequest, Message, ModelResponse, RunError,
    RunEvent, RunMetadata, RunResult, StopVerdict, TokensUsed,
};

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
        if let Some(plan) = run.effort {
            events.emit(|| effort_adjusted(&run.model_label, plan));
        }
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

/// The notice of an effort not sent as asked.
fn effort_adjusted(model: &str, plan: EffortPlan) -> RunEvent {
    let (asked, sent) = match plan {
        EffortPlan::Send(effort) => (effort, Some(effort)),
        EffortPlan::Nearest { asked, sent } => (asked, Some(sent)),
        EffortPlan::NotSent(asked) => (asked, None),
    };
    RunEvent::EffortAdjusted {
        model: model.to_owned(),
        asked,
        sent,
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

/// The turns of a run: sample, apply the answer (running its tools), and decide whether the
/// run goes on, ends with an answer or hands off — the guardrails and stop hooks having a say.
async fn drive(run: &mut Prepared, events: &EventSink) -> Result<RunResult, RunError> {
    let mut state = LoopState::start(run);
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
                // Work started in the background is read before the run may end.
                if let Some(result) = background_result(run).await? {
                    go_on_with(run, &mut state, result, added, events);
                    continue;
                }
                let subject = GuardrailSubject::Answer { text: &text };
                if let Checked::Stands =
                    guard::check_output(run, &mut state, subject, added, events).await?
                {
                    if let Some(reason) = stop_hooks(run, &mut state, &text).await {
                        // The stop hook's reason is the agent's next instruction.
                        let content = format!("Stop hook feedback:\n{reason}");
                        go_on_with(run, &mut state, content, added, events);
                        continue;
                    }
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

/// The run goes on with `content` as the next user message: the turn that ended (its `added`
/// messages and this one) is committed.
fn go_on_with(
    run: &mut Prepared,
    state: &mut LoopState,
    content: String,
    added: usize,
    events: &EventSink,
) {
    let message = Message::User { content };
    state.estimator.add(&message);
    run.request.messages.push(message);
    commit_turn(run, state, added + 1, events);
}

/// The next result of the run's background work, waiting while any is outstanding; `None`
/// when nothing is.
async fn background_result(run: &Prepared) -> Result<Option<String>, RunError> {
    tokio::select! {
        biased;
        () = run.cancel.cancelled() => Err(RunError::Cancelled),
        result = run.background.next() => Ok(result),
    }
}

/// Asks the stop hooks whether the run may end: the reason to go on, once per run (a second
/// block while `stop_hook_active` is not obeyed, so a hook cannot keep an agent running).
async fn stop_hooks(run: &Prepared, state: &mut LoopState, text: &str) -> Option<String> {
    let hooks = run.hooks.as_ref()?;
    let verdict = hooks
        .stop(&run.agent, run.depth, text, state.stop_continued)
        .await;
    match verdict {
        StopVerdict::Continue(reason) if !state.stop_continued => {
            state.stop_continued = true;
            Some(reason)
        }
        _ => None,
    }
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
    if let Some(budget) = budget_reached(run, state) {
        // Its tools would only feed a model call the budget does not allow.
        return Err(RunError::Budget {
            agent: run.agent.to_string(),
            budget,
            partial_text: partial_text(run, state),
        });
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

/// The budget the tokens used so far have reached, if any.
fn budget_reached(run: &Prepared, state: &LoopState) -> Option<BudgetReached> {
    let used = state.usage.input_tokens + state.usage.output_tokens;
    if let Some(limit) = run.token_budget.filter(|limit| used >= *limit) {
        return Some(BudgetReached::Tokens { used, limit });
    }
    let spent = cost_of(run, state)?;
    run.cost_budget
        .filter(|limit| spent >= *limit)
        .map(|limit| BudgetReached::Cost { used: spent, limit })
}

/// What the run's tokens cost so far, by the catalogue's list price.
fn cost_of(run: &Prepared, state: &LoopState) -> Option<f64> {
    run.price
        .map(|price| price.cost(state.usage.input_tokens, state.usage.output_tokens))
}

fn max_turns(run: &Prepared, state: &LoopState) -> RunError {
    RunError::MaxTurns {
        agent: run.agent.to_string(),
        turns: run.max_turns,
        partial_text: partial_text(run, state),
    }
}

/// What the model wrote in this run so far, turns joined by blank lines.
fn partial_text(run: &Prepared, state: &LoopState) -> String {
    run.request.messages[state.first_new..]
        .iter()
        .filter_map(|message| match message {
            Message::Assistant {
                content: Some(text),
                ..
            } if !text.is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n")
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
            cost_usd: cost_of(run, state),
        },
        messages: std::mem::take(&mut run.request.messages),
    }
}
