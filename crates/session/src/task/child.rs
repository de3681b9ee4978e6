//! One task: start the child run, watch its events against the budget, check the result
//! (with one repair turn), record everything and build the caller's tool result.

use super::dispatch::Lease;
use super::prompt::{self, Brief};
use super::report::{TaskReport, TaskStatus, human};
use super::{Inner, TaskArgs, schema};
use crate::capability::AgentCapabilityContext;
use crate::engine::Recording;
use agentctl_core::{AgentDefinition, ContextMode, Message, RunStream, SubAgentRunner};
use agentctl_core::{
    RunError, RunEvent, RunOptions, RunResult, ToolContext, ToolError, ToolOutput,
};
use agentctl_guardrails::JsonSchemaCheck;
use agentctl_store::{HandoffSummary, NewRun, NewStep, RunEnding, RunId, RunTally, Source};
use agentctl_trace::RunTracer;
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;

/// Characters of a failed child's answer quoted back to the caller.
const QUOTED_ANSWER_CHARS: usize = 2_000;

/// What one call asks for, checked, and who runs it.
pub(crate) struct ChildRequest<'a> {
    pub args: &'a TaskArgs,
    pub validator: Option<&'a JsonSchemaCheck>,
    /// The child, its system prompt ending with its task's capability context.
    pub agent: &'a AgentDefinition,
    /// That context, recorded with the task.
    pub context: &'a AgentCapabilityContext,
    /// The pool executor the task took, given back when the task ends (dropped).
    pub lease: Option<Lease>,
    pub parent: RunId,
}

/// A summary of the caller's recent turns, read on the session's store thread.
async fn summary(inner: &Inner, parent: RunId) -> Option<String> {
    let writer = inner.writer().ok()?;
    let store = Arc::clone(&inner.store);
    let session = inner.session.clone();
    let last = inner.config.summary_messages;
    let read = writer.call(move |_| {
        Ok::<_, agentctl_store::ContextError>(prompt::context_summary(
            store.as_ref(),
            &session,
            parent,
            last,
        ))
    });
    read.await.ok().flatten()
}

/// Runs one task to its end and returns what the caller's model reads.
pub(crate) async fn run(
    inner: &Inner,
    runner: &dyn SubAgentRunner,
    ctx: &ToolContext,
    request: ChildRequest<'_>,
) -> Result<ToolOutput, ToolError> {
    let started = Instant::now();
    let ChildRequest {
        args,
        validator,
        agent,
        context,
        mut lease,
        parent,
    } = request;
    let model = runner
        .resolve_model(agent, &RunOptions::new())
        .map_err(|error| {
            // An agent whose model cannot be resolved cannot take tasks either.
            if let Some(lease) = &mut lease {
                lease.fail();
            }
            ToolError::failed(format!("task not started: {error}"))
        })?;
    let (prompt, recorder) = start(inner, ctx, args, agent, context, (parent, model)).await?;
    let mut child = Supervisor {
        inner,
        runner,
        ctx,
        agent,
        recorder,
        tally: RunTally::default(),
        deadline: tokio::time::Instant::now() + inner.config.timeout,
        stop: None,
    };
    let (ending, repaired) = child.run_checked(&prompt, validator).await;
    let (status, body, handoff) = conclude(&ending, validator, &child.tally);
    if status == TaskStatus::Failed
        && let Some(lease) = &mut lease
    {
        lease.fail();
    }
    let mut report = child.report(status, started, repaired);
    report.bd_task_id = context
        .task
        .as_ref()
        .and_then(|task| task.bd_task_id.clone());
    let report_json = serde_json::to_value(&report).unwrap_or(Value::Null);
    let Supervisor { recorder, .. } = child;
    let store_error = recorder
        .finish(RunEnding {
            status: status.run_status(),
            answer_visible: false,
            step: Some(NewStep::new("task_result", report_json)),
            handoff,
        })
        .await;
    let mut content = format!("{body}\n\n{report}");
    if let Some(error) = store_error {
        content.push_str(&format!(
            "\n(the sub-agent's steps could not all be saved: {error})"
        ));
    }
    match status {
        TaskStatus::Completed => Ok(ToolOutput::text(content)),
        TaskStatus::Cancelled => Err(ToolError::Cancelled),
        _ => Err(ToolError::Failed(content)),
    }
}

/// The child's first message (the brief, its resources read off the async workers) and its
/// store run, started with the `task` step.
async fn start(
    inner: &Inner,
    ctx: &ToolContext,
    args: &TaskArgs,
    agent: &AgentDefinition,
    context: &AgentCapabilityContext,
    (parent, model): (RunId, agentctl_core::ModelRef),
) -> Result<(String, Recording), ToolError> {
    let config = &inner.config;
    let brief = Brief {
        goal: args.goal.clone(),
        caller: ctx.agent().to_owned(),
        context_summary: summary(inner, parent).await,
        hints: args.hints.clone(),
        schema: args.schema.clone(),
        resources: args.resources.clone(),
    };
    let root = ctx.working_dir().to_path_buf();
    let expansion = tokio::task::spawn_blocking(move || prompt::first_message(&brief, &root))
        .await
        .map_err(|error| ToolError::failed(format!("task not started: {error}")))?;
    let task_step = json!({
        "task_id": ctx.call_id(),
        "goal": args.goal,
        "caller": ctx.agent(),
        "depth": ctx.depth() + 1,
        "hints": args.hints,
        "resources": args.resources,
        "files": expansion.files,
        "warnings": expansion.warnings,
        "schema": args.schema,
        "capabilities": args.capabilities,
        "capability_context": context,
        "budget": {
            "max_turns": config.max_turns,
            "max_tokens": config.max_tokens,
            "timeout_ms": millis(config.timeout),
        },
    });
    let run = NewRun {
        agent: agent.name().to_owned(),
        mode: ContextMode::Run,
        parent_run_id: Some(parent),
        handoff: false,
        model: Some(model.to_string()),
        source: Source::TASK,
    };
    let not_started =
        |error| ToolError::failed(format!("task not started: session store: {error}"));
    let writer = inner.writer().map_err(not_started)?;
    let recorder = writer
        .start_run(
            Arc::clone(&inner.store),
            inner.session.clone(),
            run,
            expansion.text.clone(),
            vec![NewStep::new("task", task_step)],
        )
        .await
        .map_err(not_started)?;
    Ok((expansion.text, recorder))
}

/// How the child's run(s) ended.
enum Ending {
    /// It answered (not yet checked against a schema).
    Answer(Box<RunResult>),
    /// It answered twice, and the last answer does not match the schema.
    Invalid {
        answer: String,
        violations: Vec<String>,
    },
    /// It was stopped or failed.
    Stopped { status: TaskStatus, detail: String },
}

/// The child's status, the caller's text and the handoff for `main`.
fn conclude(
    ending: &Ending,
    validator: Option<&JsonSchemaCheck>,
    tally: &RunTally,
) -> (TaskStatus, String, Option<HandoffSummary>) {
    match ending {
        Ending::Answer(result) => {
            // Checked already; a schema answer goes back as compact JSON.
            let body = match validator.map(|v| schema::check(v, &result.text)) {
                Some(Ok(value)) => value.to_string(),
                _ => result.text.clone(),
            };
            let handoff = handoff(&body, Vec::new());
            (TaskStatus::Completed, body, Some(handoff))
        }
        Ending::Invalid { answer, violations } => {
            let mut body =
                String::from("task result does not match the schema, even after one repair turn:");
            for violation in violations {
                body.push_str(&format!("\n- {violation}"));
            }
            body.push_str(&format!(
                "\nLast answer: {}",
                prompt::shorten_to(answer, QUOTED_ANSWER_CHARS)
            ));
            let open = violations.iter().map(|v| format!("schema: {v}")).collect();
            (TaskStatus::InvalidResult, body, Some(handoff(answer, open)))
        }
        Ending::Stopped { status, detail } => {
            let partial = tally.partial_text();
            let mut body = format!("task stopped ({status}): {detail}");
            if !partial.trim().is_empty() {
                body.push_str(&format!(
                    "\nPartial answer: {}",
                    prompt::shorten_to(&partial, QUOTED_ANSWER_CHARS)
                ));
            }
            let handoff = (*status != TaskStatus::Cancelled).then(|| {
                let summary = if partial.trim().is_empty() {
                    "(no answer)".to_owned()
                } else {
                    partial
                };
                handoff(&summary, vec![format!("stopped ({status}): {detail}")])
            });
            (*status, body, handoff)
        }
    }
}

fn handoff(summary: &str, open_items: Vec<String>) -> HandoffSummary {
    HandoffSummary {
        summary: summary.to_owned(),
        files_changed: Vec::new(),
        open_items,
    }
}

fn repair_prompt(violations: &[String]) -> String {
    let mut text = String::from("Your answer does not match the required JSON Schema:\n");
    for violation in violations {
        text.push_str(&format!("- {violation}\n"));
    }
    text.push_str("Reply with only the corrected JSON value: no prose, no code fence.");
    text
}

/// A running task: its recorder, deadline and why it was stopped, if it was.
struct Supervisor<'a> {
    inner: &'a Inner,
    runner: &'a dyn SubAgentRunner,
    ctx: &'a ToolContext,
    agent: &'a AgentDefinition,
    /// The child's run, recorded on the session's store thread.
    recorder: Recording,
    /// Its tokens, turns and partial answer, from the same events.
    tally: RunTally,
    deadline: tokio::time::Instant,
    /// Set when the supervisor cancelled the child for its budget.
    stop: Option<TaskStatus>,
}

impl Supervisor<'_> {
    /// Runs the child on `prompt`; with a schema, a non-matching answer gets one repair turn.
    /// Returns how it ended and whether a repair was asked for.
    async fn run_checked(
        &mut self,
        prompt: &str,
        validator: Option<&JsonSchemaCheck>,
    ) -> (Ending, bool) {
        let first = self
            .drive(prompt, Vec::new(), self.inner.config.max_turns)
            .await;
        let ending = self.ending(first);
        let (Ending::Answer(result), Some(validator)) = (&ending, validator) else {
            return (ending, false);
        };
        let Err(violations) = schema::check(validator, &result.text) else {
            return (ending, false);
        };
        let repair = repair_prompt(&violations);
        let history = result.messages.clone();
        self.recorder.user(&repair);
        let second = self.drive(&repair, history, 1).await;
        let ending = match self.ending(second) {
            Ending::Answer(result) => match schema::check(validator, &result.text) {
                Ok(_) => Ending::Answer(result),
                Err(violations) => Ending::Invalid {
                    answer: result.text,
                    violations,
                },
            },
            other => other,
        };
        (ending, true)
    }

    /// The budget report of the task, as it ended with `status`.
    fn report(&self, status: TaskStatus, started: Instant, repaired: bool) -> TaskReport {
        let config = &self.inner.config;
        TaskReport {
            agent: self.agent.name().to_owned(),
            run_id: self.recorder.run().id,
            status,
            turns: self.tally.turns(),
            max_turns: config.max_turns,
            input_tokens: self.tally.usage().input_tokens,
            output_tokens: self.tally.usage().output_tokens,
            max_tokens: config.max_tokens,
            duration_ms: millis(started.elapsed()),
            timeout_ms: millis(config.timeout),
            repaired,
            bd_task_id: None,
        }
    }

    /// Runs the child once (`history` empty for the first run) and records its events until
    /// it ends; stops it when its token or time budget runs out.
    async fn drive(
        &mut self,
        prompt: &str,
        history: Vec<Message>,
        max_turns: u32,
    ) -> Result<RunResult, RunError> {
        if self.stop.is_some() || tokio::time::Instant::now() >= self.deadline {
            self.stop.get_or_insert(TaskStatus::Timeout);
            return Err(RunError::Cancelled);
        }
        // The child runs under its store run's id, so its own task calls find their parent.
        let options = RunOptions::new()
            .run_id(self.recorder.run().id.to_string())
            .context_mode(ContextMode::Isolated)
            .history(history)
            .max_turns(max_turns)
            .depth(self.ctx.depth() + 1)
            .cancel(self.ctx.cancellation().clone())
            .working_dir(self.ctx.working_dir());
        // The child's spans hang under this call's `tool` span, in the caller's trace.
        let options = RunOptions {
            trace: self.ctx.trace().cloned(),
            ..options
        };
        let mut tracer = self
            .ctx
            .trace()
            .map(|trace| RunTracer::start(trace, self.agent.name(), prompt, self.ctx.depth() + 1));
        let mut handle: Box<dyn RunStream> = self.runner.start(self.agent, prompt, options);
        let max_tokens = self.inner.config.max_tokens;
        loop {
            let event = tokio::select! {
                biased;
                () = tokio::time::sleep_until(self.deadline), if self.stop.is_none() => {
                    self.stop = Some(TaskStatus::Timeout);
                    handle.cancel();
                    continue;
                }
                event = handle.next() => event,
            };
            let Some(event) = event else { break };
            self.recorder.event(&event);
            self.tally.observe(&event);
            if let Some(tracer) = &mut tracer {
                tracer.event(&event);
            }
            if matches!(event, RunEvent::Usage { .. }) && self.stop.is_none() {
                let used = self.tally.usage().input_tokens + self.tally.usage().output_tokens;
                if used > max_tokens {
                    self.stop = Some(TaskStatus::TokenBudget);
                    handle.cancel();
                }
            }
        }
        if let Some(tracer) = tracer {
            tracer.finish();
        }
        handle.into_result().await
    }

    /// Classifies a run's outcome.
    fn ending(&self, outcome: Result<RunResult, RunError>) -> Ending {
        let config = &self.inner.config;
        match outcome {
            // An answer that arrived while the child was being stopped still counts.
            Ok(result) => Ending::Answer(Box::new(result)),
            Err(RunError::Cancelled) => match self.stop {
                Some(TaskStatus::TokenBudget) => Ending::Stopped {
                    status: TaskStatus::TokenBudget,
                    detail: format!(
                        "used {} tokens, over the budget of {}",
                        self.tally.usage().input_tokens + self.tally.usage().output_tokens,
                        config.max_tokens
                    ),
                },
                Some(TaskStatus::Timeout) => Ending::Stopped {
                    status: TaskStatus::Timeout,
                    detail: format!("no result within {}", human(config.timeout)),
                },
                _ => Ending::Stopped {
                    status: TaskStatus::Cancelled,
                    detail: "the calling run was cancelled".into(),
                },
            },
            Err(RunError::MaxTurns { turns, .. }) => Ending::Stopped {
                status: TaskStatus::MaxTurns,
                detail: format!("no final answer within {turns} turns"),
            },
            Err(error) => Ending::Stopped {
                status: TaskStatus::Failed,
                detail: error.to_string(),
            },
        }
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    duration.as_millis().try_into().unwrap_or(u64::MAX)
}
