//! Runs recorded in a session: which session (`--session`, `--continue`, else a new one), which
//! context mode and history the agent gets, and one store transaction per model turn so a
//! killed run leaves its session readable and resumable.
//!
//! What goes where: the prompt and the run's turns go to the run's workspace (`main` for a
//! shared agent, `agent:{name}` for an isolated one, `run:{id}` in run mode). Tool steps are
//! hidden from the timeline. A shared agent's final answer is visible in `main`; an isolated or
//! run-mode agent hands its answer back to `main` as one handoff summary instead, so the main
//! workspace sees results, never another agent's reasoning.

use crate::context::CommandContext;
use agentctl_context::{
    CompactionPolicy, ContextScope, HandoffSummary, ModeInputs, NewMessage, NewRun, NewStep,
    ResolvedMode, RunLog as _, RunRecord, RunStatus, SessionChoice, SessionInfo, SessionLog as _,
    SessionStore, SqliteStore, Summarizer, TaskTool, compact_scope, load_history, open_session,
    resolve_mode,
};
use agentctl_core::{AgentDefinition, AgentsSettings, ContextMode, Message, ToolCall, Usage};
use agentctl_runtime::{RunError, RunEvent, RunResult};
use serde_json::json;
use std::io::Write as _;
use std::sync::Arc;

/// Longest session title taken from the first prompt, in characters.
const TITLE_CHARS: usize = 60;

/// The session this invocation records into.
pub(crate) struct RunSession {
    store: Arc<SqliteStore>,
    info: SessionInfo,
    agents: AgentsSettings,
}

impl RunSession {
    /// Opens the project's session store and the chosen session; `None` when the settings turn
    /// persistence off (`agents.contextPersistence: false`) and no session was asked for.
    pub(crate) fn open(
        context: &CommandContext,
        choice: SessionChoice,
        first_prompt: Option<&str>,
    ) -> anyhow::Result<Option<Self>> {
        let agents = context.settings.settings.agents.clone();
        if !agents.context_persistence && choice == SessionChoice::New {
            return Ok(None);
        }
        let Some(store) = crate::sessions_cmd::open_store(context, true)? else {
            return Ok(None);
        };
        let choice = match (choice, first_prompt) {
            (SessionChoice::New, Some(prompt)) => SessionChoice::NewTitled(title(prompt)),
            (choice, _) => choice,
        };
        let info = open_session(&store, &choice)?;
        Ok(Some(Self {
            store: Arc::new(store),
            info,
            agents,
        }))
    }

    /// The session's id.
    pub(crate) fn id(&self) -> &str {
        &self.info.id
    }

    /// The `task` tool for this session: sub-agents (any of `agents`, by default the caller
    /// itself) run in hidden `sub:` workspaces and hand their results back to `main`.
    pub(crate) fn task_tool(&self, agents: Vec<AgentDefinition>) -> TaskTool {
        let store: Arc<dyn SessionStore> = Arc::clone(&self.store) as Arc<dyn SessionStore>;
        TaskTool::new(store, self.info.id.clone(), agents)
    }

    /// The agent's context mode: `--context` > this session's override > agent file >
    /// settings > isolated; refuses shared when the settings do.
    pub(crate) fn mode(
        &self,
        agent: &AgentDefinition,
        flag: Option<ContextMode>,
    ) -> anyhow::Result<ResolvedMode> {
        let overrides = self.store.mode_overrides(&self.info.id)?;
        let inputs = ModeInputs {
            flag,
            session_override: overrides.get(agent.name()).copied(),
            agent_file: agent.spec.context_mode,
        };
        Ok(resolve_mode(agent.name(), inputs, &self.agents)?)
    }

    /// What the agent sees before the prompt, in `mode`.
    pub(crate) fn history(&self, agent: &str, mode: ContextMode) -> anyhow::Result<Vec<Message>> {
        let view = load_history(
            self.store.as_ref(),
            &self.info.id,
            agent,
            mode,
            self.agents.shared_context_max_messages,
        )?;
        Ok(view.to_messages())
    }

    /// Summarises the oldest messages of the agent's workspace when it no longer fits the
    /// model's context window (`main` for shared agents, `agent:{name}` for isolated ones;
    /// run mode starts empty). Returns true when a summary was written.
    pub(crate) async fn compact(
        &self,
        agent: &str,
        mode: ContextMode,
        summarizer: &dyn Summarizer,
        context_window: u64,
    ) -> anyhow::Result<bool> {
        let scope = match mode {
            ContextMode::Shared => ContextScope::Main,
            ContextMode::Isolated => ContextScope::agent(agent),
            ContextMode::Run => return Ok(false),
        };
        let policy = CompactionPolicy::for_context_window(context_window);
        let summary = compact_scope(
            self.store.as_ref(),
            summarizer,
            &self.info.id,
            &scope,
            &policy,
        )
        .await?;
        Ok(summary.is_some())
    }

    /// Starts a run of `agent` and records its prompt.
    pub(crate) fn start(
        &self,
        agent: &str,
        mode: ContextMode,
        model: Option<String>,
        prompt: &str,
    ) -> anyhow::Result<TurnRecorder> {
        let run = self.store.start_run(
            &self.info.id,
            &NewRun {
                agent: agent.to_owned(),
                mode,
                parent_run_id: None,
                model,
            },
        )?;
        let prompt = NewMessage::new(run.context_scope.clone(), None, Message::user(prompt));
        self.store.record_turn(run.id, &[prompt], &[])?;
        Ok(TurnRecorder {
            store: Arc::clone(&self.store),
            run,
            mode,
            agent: agent.to_owned(),
            text: String::new(),
            calls: Vec::new(),
            results: Vec::new(),
            steps: Vec::new(),
            usage: Usage::default(),
            failed: false,
        })
    }
}

/// A session title: the prompt's first line, shortened.
fn title(prompt: &str) -> String {
    let line = prompt.lines().next().unwrap_or_default().trim();
    match line.char_indices().nth(TITLE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// Writes a run's events to the store, one transaction per model turn.
pub(crate) struct TurnRecorder {
    store: Arc<SqliteStore>,
    run: RunRecord,
    mode: ContextMode,
    agent: String,
    /// Text of the current turn.
    text: String,
    /// Tool calls of the current turn.
    calls: Vec<ToolCall>,
    /// Their results, as they arrive.
    results: Vec<Message>,
    /// Steps of the current turn (model call usage, tool decisions).
    steps: Vec<NewStep>,
    usage: Usage,
    /// Set after the first store error: later ones are not repeated.
    failed: bool,
}

impl TurnRecorder {
    /// The run in the store.
    pub(crate) fn run(&self) -> &RunRecord {
        &self.run
    }

    /// Takes one event of the run.
    pub(crate) fn event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::ModelRequest { turn, .. } if *turn > 1 => self.flush_turn(),
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

    /// Records the end of the run: the last turn, the status and usage, and for isolated and
    /// run-mode agents the handoff summary to `main`.
    pub(crate) fn finish(mut self, outcome: &Result<RunResult, RunError>) {
        let status = match outcome {
            Ok(_) => RunStatus::Completed,
            Err(RunError::Cancelled) => RunStatus::Cancelled,
            Err(_) => RunStatus::Failed,
        };
        match outcome {
            Ok(result) => self.record_answer(&result.text),
            Err(_) => self.flush_turn(),
        }
        let finished = self.store.finish_run(self.run.id, status, self.usage);
        self.check(finished.map(drop));
        if let Ok(result) = outcome
            && self.mode != ContextMode::Shared
        {
            let handoff = HandoffSummary {
                summary: result.text.clone(),
                files_changed: Vec::new(),
                open_items: Vec::new(),
            };
            let written = self.store.write_handoff(self.run.id, &handoff);
            self.check(written.map(drop));
        }
    }

    /// The final answer: visible in `main` for a shared agent; otherwise kept in the agent's
    /// workspace and shown through the handoff summary.
    fn record_answer(&mut self, text: &str) {
        let mut message = self.message(Message::assistant(text));
        if self.mode != ContextMode::Shared {
            message = message.hidden();
        }
        let steps = std::mem::take(&mut self.steps);
        let recorded = self.store.record_turn(self.run.id, &[message], &steps);
        self.check(recorded.map(drop));
    }

    /// Records the turn in progress: the assistant's calls with the results that arrived.
    /// Calls without a result (a cancelled run) are dropped so the history stays paired.
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
        let mut messages = Vec::with_capacity(results.len() + 1);
        if !calls.is_empty() || !text.is_empty() {
            let assistant = Message::Assistant {
                content: (!text.is_empty()).then_some(text),
                tool_calls: calls,
            };
            messages.push(self.message(assistant).hidden());
        }
        for result in results {
            messages.push(self.message(result).hidden());
        }
        let recorded = self.store.record_turn(self.run.id, &messages, &steps);
        self.check(recorded.map(drop));
    }

    fn message(&self, message: Message) -> NewMessage {
        let scope: ContextScope = self.run.context_scope.clone();
        NewMessage::new(scope, Some(&self.agent), message)
    }

    /// Reports the first store error as a warning: the run itself goes on.
    fn check(&mut self, result: Result<(), agentctl_context::ContextError>) {
        if let Err(error) = result
            && !self.failed
        {
            self.failed = true;
            let _ = writeln!(
                std::io::stderr(),
                "warning: the session could not be saved: {error}"
            );
        }
    }
}
