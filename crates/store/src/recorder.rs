//! [`RunRecorder`]: writes a run to the store from its event stream, one transaction per model
//! turn, so a killed process leaves every finished turn readable. Used by the session runner
//! for the runs it starts and by the `task` tool for its sub-agents.
//!
//! What is stored is what the loop committed (`turn_committed`: the assistant message and the
//! tool results exactly as the next request carries them), never a reconstruction from
//! streamed deltas.

use crate::error::ContextError;
use crate::record::{
    HandoffSummary, NewMessage, NewRun, NewStep, PromptBudget, RunClosing, RunRecord, RunStatus,
};
use crate::store::SessionStore;
use agentctl_core::{GuardrailPolicy, Message, RunEvent, Usage};
use serde_json::json;
use std::sync::Arc;

/// How a run ended, for [`RunRecorder::finish`].
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnding {
    /// The run's final status.
    pub status: RunStatus,
    /// Whether the final answer (the last turn, when it called no tool) shows in the timeline.
    /// Intermediate turns never do; sub-agent scopes never do.
    pub answer_visible: bool,
    /// A last step to record (e.g. the `task_result` report).
    pub step: Option<NewStep>,
    /// The summary handed back to `main`, written after the status.
    pub handoff: Option<HandoffSummary>,
}

/// Records one run: its prompt at the start, then each committed model turn (the assistant
/// message and its tool results, with steps for model calls and tool decisions) in one
/// transaction as the next turn begins, and the status, usage and handoff at the end.
///
/// Intermediate turns are hidden from the timeline (`sessions show --all` lists them). A turn
/// the loop never committed (a cancelled run) leaves only its steps, so the history stays
/// paired. Store errors do not stop the run: the first one is kept and returned by
/// [`finish`](Self::finish). Dropped before `finish`, the run is closed as cancelled.
pub struct RunRecorder {
    store: Arc<dyn SessionStore>,
    run: RunRecord,
    /// Usage, turns and answers so far.
    tally: RunTally,
    /// The messages of the last committed turn, written when the next turn begins or at the
    /// end (when it is known whether the answer shows in the timeline).
    committed: Vec<Message>,
    /// Steps of the current turn.
    steps: Vec<NewStep>,
    /// The token budget of the model call in flight, stored with its `model_call` step.
    request: Option<PromptBudget>,
    /// The first store error; later ones are not kept.
    error: Option<ContextError>,
    finished: bool,
}

/// What a run has used and said so far, from its events: tokens, model turns, and the partial
/// answer of a stopped run. [`RunRecorder`] keeps one; a caller whose recorder writes elsewhere
/// (on a store thread) keeps its own from the same events.
///
/// ```
/// use agentctl_store::RunTally;
/// use agentctl_core::RunEvent;
///
/// let mut tally = RunTally::default();
/// tally.observe(&RunEvent::Usage { input_tokens: 10, output_tokens: 2 });
/// tally.observe(&RunEvent::TextDelta { text: "Half an ans".into(), provisional: false });
/// assert_eq!(tally.usage().input_tokens, 10);
/// assert_eq!(tally.partial_text(), "Half an ans");
/// ```
#[derive(Debug, Clone, Default)]
pub struct RunTally {
    /// Text streamed in the current turn.
    text: String,
    /// Texts of the turns committed so far.
    answers: Vec<String>,
    usage: Usage,
    turns: u32,
}

impl RunTally {
    /// Takes one event of the run.
    pub fn observe(&mut self, event: &RunEvent) {
        match event {
            RunEvent::ModelRequest { .. } => self.turns += 1,
            RunEvent::TextDelta { text, .. } => self.text.push_str(text),
            RunEvent::TurnCommitted { messages, .. } => {
                self.text.clear();
                if let Some(Message::Assistant {
                    content: Some(text),
                    ..
                }) = messages.first()
                    && !text.is_empty()
                {
                    self.answers.push(text.clone());
                }
            }
            // A rejected or repaired answer is not the run's partial answer either.
            RunEvent::Guardrail { passed, policy, .. }
                if !passed && *policy != GuardrailPolicy::Warn =>
            {
                self.text.clear();
            }
            RunEvent::Usage {
                input_tokens,
                output_tokens,
            } => {
                self.usage.input_tokens += input_tokens;
                self.usage.output_tokens += output_tokens;
            }
            _ => {}
        }
    }

    /// Tokens over all model calls so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Model turns started so far.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Everything the run wrote so far, turn by turn (committed answers, then the text of the
    /// turn in progress): the partial answer of a stopped run.
    pub fn partial_text(&self) -> String {
        let mut texts: Vec<&str> = self.answers.iter().map(String::as_str).collect();
        if !self.text.is_empty() {
            texts.push(&self.text);
        }
        texts.join("\n\n")
    }
}

impl std::fmt::Debug for RunRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunRecorder")
            .field("run", &self.run)
            .field("turns", &self.tally.turns())
            .finish_non_exhaustive()
    }
}

impl RunRecorder {
    /// Starts the store run and records its prompt (as the user's, in the run's workspace)
    /// with `steps` (e.g. the `task` step of a sub-agent).
    pub fn start(
        store: Arc<dyn SessionStore>,
        session: &str,
        run: &NewRun,
        prompt: &str,
        steps: Vec<NewStep>,
    ) -> Result<Self, ContextError> {
        let run = store.open_run(session, run, &Message::user(prompt), &steps)?;
        Ok(Self {
            store,
            run,
            tally: RunTally::default(),
            committed: Vec::new(),
            steps: Vec::new(),
            request: None,
            error: None,
            finished: false,
        })
    }

    /// Tokens over all model calls so far.
    pub fn usage(&self) -> Usage {
        self.tally.usage()
    }

    /// Model turns started so far.
    pub fn turns(&self) -> u32 {
        self.tally.turns()
    }

    /// The run in the store.
    pub fn run(&self) -> &RunRecord {
        &self.run
    }

    /// Takes one event of the run.
    pub fn event(&mut self, event: &RunEvent) {
        self.tally.observe(event);
        match event {
            RunEvent::ModelRequest {
                prompt_token_budget,
                estimated_prompt_tokens,
                model_context_window,
                ..
            } => {
                self.flush_turn();
                self.request = Some(PromptBudget {
                    prompt_token_budget: *prompt_token_budget,
                    estimated_prompt_tokens: *estimated_prompt_tokens,
                    model_context_window: *model_context_window,
                });
            }
            RunEvent::TurnCommitted { messages, .. } => {
                self.committed.extend(messages.iter().cloned());
            }
            RunEvent::ToolDecision { .. } | RunEvent::ApprovalRequested { .. } => {
                self.step("tool_decision", event);
            }
            RunEvent::TaskStopped { .. } => self.step("task_stopped", event),
            RunEvent::PlanUpdated { .. } => self.step("plan", event),
            RunEvent::Guardrail { .. } => self.step("guardrail", event),
            RunEvent::Usage {
                input_tokens,
                output_tokens,
            } => {
                let content = json!({"input_tokens": input_tokens, "output_tokens": output_tokens});
                self.model_call(content);
            }
            _ => {}
        }
    }

    fn step(&mut self, kind: &str, event: &RunEvent) {
        if let Ok(content) = serde_json::to_value(event) {
            self.steps.push(NewStep::new(kind, content));
        }
    }

    /// A `model_call` step, with the budget of the call in flight.
    fn model_call(&mut self, content: serde_json::Value) {
        let mut step = NewStep::new("model_call", content);
        step.budget = self.request.take();
        self.steps.push(step);
    }

    /// Everything the run wrote so far, turn by turn (committed answers, then the text of the
    /// turn in progress): the partial answer of a stopped run.
    pub fn partial_text(&self) -> String {
        self.tally.partial_text()
    }

    /// Records a further user message (e.g. a repair request).
    pub fn user(&mut self, text: &str) {
        self.flush_turn();
        let message = self.message(None, Message::user(text), false);
        let recorded = self.store.record_turn(self.run.id, &[message], &[]);
        self.check(recorded.map(drop));
    }

    /// Closes the run in one store call: the last turn, the ending's step, the status and
    /// usage, then the handoff summary. Returns the first store error of the whole run, if any.
    pub fn finish(mut self, ending: RunEnding) -> Option<ContextError> {
        self.close(
            ending.answer_visible,
            ending.status,
            ending.step,
            ending.handoff,
        );
        self.error.take()
    }

    /// Marks the run as not completely saved (writes of it were lost with a batch that failed
    /// to commit): [`finish`](Self::finish) returns `error` unless it has an earlier one.
    pub fn fail(&mut self, error: ContextError) {
        self.check(Err(error));
    }

    /// Drops the recorder without writing anything more: its run's start was never committed
    /// (the transaction it was part of failed), so there is no run to close.
    pub fn abandon(mut self) {
        self.finished = true;
    }

    fn close(
        &mut self,
        answer_visible: bool,
        status: RunStatus,
        step: Option<NewStep>,
        handoff: Option<HandoffSummary>,
    ) {
        self.finished = true;
        let (messages, mut steps) = self.last_turn(answer_visible);
        steps.extend(step);
        let closing = RunClosing {
            messages,
            steps,
            status,
            usage: self.tally.usage(),
            handoff,
        };
        let closed = self.store.close_run(self.run.id, &closing);
        self.check(closed);
    }

    /// Writes the last committed turn and the steps since (nothing when there are none).
    fn flush_turn(&mut self) {
        let (messages, steps) = self.last_turn(false);
        if messages.is_empty() && steps.is_empty() {
            return;
        }
        let recorded = self.store.record_turn(self.run.id, &messages, &steps);
        self.check(recorded.map(drop));
    }

    /// Takes the last committed turn and the steps since, as rows. A final answer (an
    /// assistant message without tool calls) is visible when `answer_visible`; everything else
    /// of a run is hidden from the timeline.
    fn last_turn(&mut self, answer_visible: bool) -> (Vec<NewMessage>, Vec<NewStep>) {
        // A call that never answered (failed, cancelled) still leaves its budget: a prompt
        // over the window is when it matters most.
        if self.request.is_some() {
            self.model_call(json!({"completed": false}));
        }
        let committed = std::mem::take(&mut self.committed);
        let steps = std::mem::take(&mut self.steps);
        let agent = self.run.agent.clone();
        let messages = committed
            .into_iter()
            .map(|message| {
                let visible = answer_visible
                    && matches!(&message, Message::Assistant { tool_calls, .. } if tool_calls.is_empty());
                self.message(Some(&agent), message, visible)
            })
            .collect();
        (messages, steps)
    }

    /// A message of the run's workspace; sub-agent scopes never reach the timeline whatever
    /// `visible` says.
    fn message(&self, agent: Option<&str>, message: Message, visible: bool) -> NewMessage {
        let message = NewMessage::new(self.run.context_scope.clone(), agent, message);
        if visible { message } else { message.hidden() }
    }

    fn check(&mut self, result: Result<(), ContextError>) {
        if let Err(error) = result
            && self.error.is_none()
        {
            self.error = Some(error);
        }
    }
}

impl Drop for RunRecorder {
    fn drop(&mut self) {
        if !self.finished {
            // Dropped mid-run (e.g. a tool call future dropped because its run was cancelled).
            self.close(false, RunStatus::Cancelled, None, None);
        }
    }
}
