//! Writes a child run to the store from its event stream: one transaction per model turn, in
//! the child's hidden `sub:` workspace; on drop (the caller's run was cancelled and the tool
//! call future dropped) the run is still closed as cancelled.

use crate::error::ContextError;
use crate::record::{HandoffSummary, NewMessage, NewRun, NewStep, RunRecord, RunStatus};
use crate::store::SessionStore;
use agentctl_core::{ContextMode, Message, ToolCall, Usage};
use agentctl_runtime::RunEvent;
use serde_json::{Value, json};
use std::sync::Arc;

/// The store side of one child run.
pub(crate) struct ChildRecorder {
    store: Arc<dyn SessionStore>,
    run: RunRecord,
    /// Text of the current turn.
    text: String,
    /// Tool calls of the current turn.
    calls: Vec<ToolCall>,
    /// Their results, as they arrive.
    results: Vec<Message>,
    /// Steps of the current turn.
    steps: Vec<NewStep>,
    /// Texts of the turns recorded so far.
    answers: Vec<String>,
    /// Tokens over all of the child's model calls.
    pub(crate) usage: Usage,
    /// Model turns started.
    pub(crate) turns: u32,
    /// The first store error; later ones are not kept.
    pub(crate) error: Option<ContextError>,
    finished: bool,
}

/// What a child run is, for [`ChildRecorder::start`].
pub(crate) struct ChildStart<'a> {
    pub session: &'a str,
    pub agent: &'a str,
    pub parent: crate::record::RunId,
    pub model: String,
    /// The first user message.
    pub prompt: &'a str,
    /// The `task` step: goal, hints, resources, schema, budget.
    pub task: Value,
}

impl ChildRecorder {
    /// Starts the child's store run (a sub-agent run in its own `sub:` workspace) and records
    /// its first message and `task` step.
    pub(crate) fn start(
        store: Arc<dyn SessionStore>,
        start: ChildStart<'_>,
    ) -> Result<Self, ContextError> {
        let run = store.start_run(
            start.session,
            &NewRun {
                agent: start.agent.to_owned(),
                mode: ContextMode::Run,
                parent_run_id: Some(start.parent),
                model: Some(start.model),
            },
        )?;
        let prompt = NewMessage::new(run.context_scope.clone(), None, Message::user(start.prompt));
        let step = NewStep {
            kind: "task".into(),
            content: start.task,
        };
        store.record_turn(run.id, &[prompt], &[step])?;
        Ok(Self {
            store,
            run,
            text: String::new(),
            calls: Vec::new(),
            results: Vec::new(),
            steps: Vec::new(),
            answers: Vec::new(),
            usage: Usage::default(),
            turns: 0,
            error: None,
            finished: false,
        })
    }

    /// The child's store run.
    pub(crate) fn run(&self) -> &RunRecord {
        &self.run
    }

    /// Takes one event of the child run.
    pub(crate) fn event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::ModelRequest { .. } => {
                self.flush_turn();
                self.turns += 1;
            }
            RunEvent::TextDelta { text } => self.text.push_str(text),
            RunEvent::ToolCall {
                id,
                name,
                arguments,
            } => self.calls.push(ToolCall {
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            }),
            RunEvent::ToolResult {
                id,
                name,
                content,
                is_error,
                ..
            } => self.results.push(Message::Tool {
                call_id: id.clone(),
                name: name.clone(),
                content: content.clone(),
                is_error: *is_error,
            }),
            RunEvent::ToolDecision { .. } | RunEvent::ApprovalRequested { .. } => {
                if let Ok(content) = serde_json::to_value(event) {
                    self.steps.push(NewStep {
                        kind: "tool_decision".into(),
                        content,
                    });
                }
            }
            RunEvent::Usage {
                input_tokens,
                output_tokens,
            } => {
                self.usage.input_tokens += input_tokens;
                self.usage.output_tokens += output_tokens;
                self.steps.push(NewStep {
                    kind: "model_call".into(),
                    content: json!({"input_tokens": input_tokens, "output_tokens": output_tokens}),
                });
            }
            _ => {}
        }
    }

    /// Everything the child wrote so far, turn by turn: the partial answer of a stopped child.
    pub(crate) fn partial_text(&self) -> String {
        let mut texts: Vec<&str> = self.answers.iter().map(String::as_str).collect();
        if !self.text.is_empty() {
            texts.push(&self.text);
        }
        texts.join("\n\n")
    }

    /// Records a user message of the caller (the repair request).
    pub(crate) fn user(&mut self, text: &str) {
        self.flush_turn();
        let message = self.message(None, Message::user(text));
        let recorded = self.store.record_turn(self.run.id, &[message], &[]);
        self.check(recorded.map(drop));
    }

    /// Closes the run: the last turn, a `task_result` step, the status and usage, and (unless
    /// cancelled) the handoff summary to `main`.
    pub(crate) fn finish(
        mut self,
        status: RunStatus,
        report: Value,
        handoff: Option<&HandoffSummary>,
    ) -> Option<ContextError> {
        self.flush_turn();
        let step = NewStep {
            kind: "task_result".into(),
            content: report,
        };
        let recorded = self.store.record_turn(self.run.id, &[], &[step]);
        self.check(recorded.map(drop));
        self.close(status);
        if let Some(handoff) = handoff {
            let written = self.store.write_handoff(self.run.id, handoff);
            self.check(written.map(drop));
        }
        self.error.take()
    }

    fn close(&mut self, status: RunStatus) {
        self.finished = true;
        let closed = self.store.finish_run(self.run.id, status, self.usage);
        self.check(closed);
    }

    /// Records the turn in progress: the assistant's text and calls with the results that
    /// arrived. Calls without a result (a cancelled run) are dropped so the history stays
    /// paired.
    fn flush_turn(&mut self) {
        let text = std::mem::take(&mut self.text);
        let results = std::mem::take(&mut self.results);
        let calls: Vec<ToolCall> = std::mem::take(&mut self.calls)
            .into_iter()
            .filter(|call| {
                results.iter().any(
                    |result| matches!(result, Message::Tool { call_id, .. } if *call_id == call.id),
                )
            })
            .collect();
        let steps = std::mem::take(&mut self.steps);
        if calls.is_empty() && text.is_empty() && steps.is_empty() {
            return;
        }
        if !text.is_empty() {
            self.answers.push(text.clone());
        }
        let agent = self.run.agent.clone();
        let mut messages = Vec::with_capacity(results.len() + 1);
        if !calls.is_empty() || !text.is_empty() {
            let assistant = Message::Assistant {
                content: (!text.is_empty()).then_some(text),
                tool_calls: calls,
            };
            messages.push(self.message(Some(&agent), assistant));
        }
        for result in results {
            messages.push(self.message(Some(&agent), result));
        }
        let recorded = self.store.record_turn(self.run.id, &messages, &steps);
        self.check(recorded.map(drop));
    }

    /// A message of the child's workspace (hidden: sub-agent scopes never reach the timeline).
    fn message(&self, agent: Option<&str>, message: Message) -> NewMessage {
        NewMessage::new(self.run.context_scope.clone(), agent, message).hidden()
    }

    fn check(&mut self, result: Result<(), ContextError>) {
        if let Err(error) = result
            && self.error.is_none()
        {
            self.error = Some(error);
        }
    }
}

impl Drop for ChildRecorder {
    fn drop(&mut self) {
        if !self.finished {
            // The tool call was dropped mid-run: the caller's run was cancelled.
            self.flush_turn();
            self.close(RunStatus::Cancelled);
        }
    }
}
