//! The rows of the session store, as plain data.

use crate::scope::ContextScope;
use crate::source::Source;
use agentctl_core::{ContextMode, Message, Usage};
use serde::Serialize;
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

mod graph;

pub use graph::{
    CheckpointSource, GraphBranch, GraphCheckpoint, MAX_CHECKPOINT_STATE_BYTES, NewCheckpoint,
};

/// Id of an agent run (`agent_runs.id`).
pub type RunId = i64;

/// Id of a stored message (`chat_messages.id`); ids only grow, so they double as a cursor.
pub type MessageId = i64;

/// The timeline every message belongs to: one per session, whatever the front end.
pub const MAIN_TIMELINE: &str = "main";

/// One session, with counts for listings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// Session id.
    pub id: String,
    /// Optional title (the first prompt, shortened, when the caller sets one).
    pub title: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// Time of the last write, milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// Messages in all scopes.
    pub message_count: u64,
    /// Agent runs.
    pub run_count: u64,
}

/// A message to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    /// The workspace it belongs to.
    pub scope: ContextScope,
    /// The agent that produced it; `None` for the user.
    pub agent: Option<String>,
    /// The message.
    pub message: Message,
    /// Whether the timeline shows it. Always false in sub-agent scopes, whatever is set here.
    pub visible: bool,
    /// What wrote it; `None` takes the source of the run it is recorded in
    /// ([`RunLog::record_turn`](crate::RunLog::record_turn)), or [`Source::default`] when
    /// appended without a run.
    pub source: Option<Source>,
}

impl NewMessage {
    /// A message of `scope`, visible in the timeline unless the scope is a sub-agent's.
    ///
    /// ```
    /// use agentctl_store::{ContextScope, NewMessage};
    /// use agentctl_core::Message;
    /// let step = NewMessage::new(ContextScope::sub("tester", 3), Some("tester"), Message::user("go"));
    /// assert!(!step.visible);
    /// ```
    pub fn new(scope: ContextScope, agent: Option<&str>, message: Message) -> Self {
        Self {
            visible: !scope.is_sub(),
            scope,
            agent: agent.map(str::to_owned),
            message,
            source: None,
        }
    }

    /// The same message, written by `source` rather than by its run's source.
    pub fn with_source(mut self, source: Source) -> Self {
        self.source = Some(source);
        self
    }

    /// The same message, hidden from the timeline (kept in its workspace).
    pub fn hidden(mut self) -> Self {
        self.visible = false;
        self
    }
}

/// A stored message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredMessage {
    /// Row id; grows with every append.
    pub id: MessageId,
    /// The run that wrote it, if any.
    pub run_id: Option<RunId>,
    /// The timeline ([`MAIN_TIMELINE`]).
    pub timeline_scope: String,
    /// The workspace.
    #[serde(serialize_with = "crate::record::display")]
    pub context_scope: ContextScope,
    /// The agent that produced it; `None` for the user.
    pub agent: Option<String>,
    /// `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// Whether the timeline shows it.
    pub visible: bool,
    /// What wrote it (`cli`, `repl`, `mcp`, `task`, …).
    pub source: Source,
    /// Estimated tokens.
    pub token_estimate: u32,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// The message (serialised as `content`, the stored JSON).
    #[serde(rename = "content")]
    pub message: Message,
}

/// The role name of a message, as stored in the `role` column (`user`, `assistant`, `tool`).
pub fn role_of(message: &Message) -> &'static str {
    match message {
        Message::User { .. } => "user",
        Message::Assistant { .. } => "assistant",
        Message::Tool { .. } => "tool",
    }
}

pub(crate) fn display<T: fmt::Display, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Which messages to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageQuery {
    /// Only this workspace; `None` for all.
    pub scope: Option<ContextScope>,
    /// Only messages the timeline shows.
    pub visible_only: bool,
    /// Only messages with a larger id (a compaction cursor).
    pub after_id: Option<MessageId>,
    /// Only the last `n` matching messages (still returned oldest first).
    pub last: Option<usize>,
    /// Only the newest matching messages whose token estimates add up to at most this many
    /// tokens (still returned oldest first): what a context window can hold. Messages are
    /// read newest first and reading stops at the first that does not fit, so a long
    /// workspace is never read whole. Combines with [`last`](Self::last): both limits hold.
    pub max_tokens: Option<u64>,
}

impl MessageQuery {
    /// The session's timeline: visible messages of every scope.
    pub fn timeline() -> Self {
        Self {
            visible_only: true,
            ..Self::default()
        }
    }

    /// Every message of one workspace.
    pub fn scope(scope: ContextScope) -> Self {
        Self {
            scope: Some(scope),
            ..Self::default()
        }
    }
}

/// An agent run to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRun {
    /// The agent.
    pub agent: String,
    /// The resolved context mode; decides the run's workspace (see [`RunRecord::context_scope`]).
    pub mode: ContextMode,
    /// The run that started this one: the caller of a sub-agent task, or the agent that handed
    /// off to this one.
    pub parent_run_id: Option<RunId>,
    /// Started by a handoff: the run works in the workspace of its mode (a sub-agent with a
    /// parent works in a hidden `sub:` scope of its own).
    pub handoff: bool,
    /// `provider:model`, when known.
    pub model: Option<String>,
    /// What started it (`cli`, `repl`, `mcp`, `task`, `handoff`, `graph`, …); the messages
    /// it records take this source unless they name their own.
    pub source: Source,
}

impl NewRun {
    /// A run of `agent` in `mode`, without a parent or a model, from [`Source::default`].
    ///
    /// ```
    /// use agentctl_store::{NewRun, Source};
    /// use agentctl_core::ContextMode;
    /// let run = NewRun { source: Source::REPL, ..NewRun::new("reviewer", ContextMode::Isolated) };
    /// assert_eq!(run.source.as_str(), "repl");
    /// ```
    pub fn new(agent: impl Into<String>, mode: ContextMode) -> Self {
        Self {
            agent: agent.into(),
            mode,
            parent_run_id: None,
            handoff: false,
            model: None,
            source: Source::default(),
        }
    }

    /// The workspace of this run once it has id `id`: a sub-agent's own scope when it has a
    /// parent (a handoff's target keeps the workspace of its mode), else by mode. Every store
    /// decides it here, so a run lands in the same workspace whichever holds the session.
    ///
    /// ```
    /// use agentctl_store::{ContextScope, NewRun};
    /// use agentctl_core::ContextMode;
    /// assert_eq!(NewRun::new("reviewer", ContextMode::Isolated).scope(7), ContextScope::agent("reviewer"));
    /// let task = NewRun { parent_run_id: Some(3), ..NewRun::new("tester", ContextMode::Shared) };
    /// assert_eq!(task.scope(7), ContextScope::sub("tester", 7));
    /// ```
    pub fn scope(&self, id: RunId) -> ContextScope {
        if self.parent_run_id.is_some() && !self.handoff {
            return ContextScope::sub(&self.agent, id);
        }
        match self.mode {
            ContextMode::Shared => ContextScope::Main,
            ContextMode::Isolated => ContextScope::agent(&self.agent),
            ContextMode::Run => ContextScope::run(id),
        }
    }
}

/// How a run ended (or that it has not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still going (or the process died: see [`Interrupted`](Self::Interrupted)).
    Running,
    /// Finished normally.
    Completed,
    /// Failed with an error.
    Failed,
    /// Cancelled by the user.
    Cancelled,
    /// Found `running` when its session was resumed: the process was killed.
    Interrupted,
}

impl RunStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RunStatus {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(match text {
            "running" => RunStatus::Running,
            "completed" => RunStatus::Completed,
            "failed" => RunStatus::Failed,
            "cancelled" => RunStatus::Cancelled,
            "interrupted" => RunStatus::Interrupted,
            other => return Err(format!("unknown run status `{other}`")),
        })
    }
}

/// A stored agent run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    /// Run id.
    pub id: RunId,
    /// Its session.
    pub session_id: String,
    /// The agent.
    pub agent: String,
    /// The run that started it, for sub-agents.
    pub parent_run_id: Option<RunId>,
    /// Its workspace: `main` (shared), `agent:{name}` (isolated), `run:{id}` (run) or
    /// `sub:{agent}:{id}` for a run with a parent, where `id` is this run's own id.
    #[serde(serialize_with = "crate::record::display")]
    pub context_scope: ContextScope,
    /// Status.
    pub status: RunStatus,
    /// `provider:model`, when known.
    pub model: Option<String>,
    /// What started it.
    pub source: Source,
    /// Token usage reported when it finished.
    pub usage: Usage,
    /// Milliseconds since the Unix epoch.
    pub started_at: i64,
    /// Milliseconds since the Unix epoch; `None` while running.
    pub finished_at: Option<i64>,
}

/// One step of a run to record (a model call, a tool call, a handoff…).
#[derive(Debug, Clone, PartialEq)]
pub struct NewStep {
    /// What kind of step (`model_call`, `tool_call`, `handoff`, …).
    pub kind: String,
    /// Its details as JSON.
    pub content: serde_json::Value,
    /// For a model call: the prompt's token budget, estimate and the model's window.
    pub budget: Option<PromptBudget>,
}

impl NewStep {
    /// A step without a token budget.
    pub fn new(kind: impl Into<String>, content: serde_json::Value) -> Self {
        Self {
            kind: kind.into(),
            content,
            budget: None,
        }
    }

    /// The same step with the token budget of its model call.
    pub fn with_budget(mut self, budget: PromptBudget) -> Self {
        self.budget = Some(budget);
        self
    }
}

/// The token figures of one model call, as the runtime reported them before sending it
/// (`RunEvent::ModelRequest`); stored with the call's `model_call` step in the
/// `agent_run_steps` columns of the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PromptBudget {
    /// Tokens the prompt may use: the context window minus the output reserve.
    pub prompt_token_budget: u64,
    /// Estimated prompt tokens (system, messages and tool specs).
    pub estimated_prompt_tokens: u64,
    /// The model's context window.
    pub model_context_window: u64,
}

impl PromptBudget {
    /// The figures as a store's three integer columns (budget, estimate, window), in the
    /// order of their names.
    pub fn columns(&self) -> [i64; 3] {
        let column = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
        [
            column(self.prompt_token_budget),
            column(self.estimated_prompt_tokens),
            column(self.model_context_window),
        ]
    }

    /// The budget a step's three columns hold; `None` unless all three are set (a step that
    /// is not a model call, or a row written before the columns existed).
    ///
    /// ```
    /// use agentctl_store::PromptBudget;
    /// let budget = PromptBudget { prompt_token_budget: 100, estimated_prompt_tokens: 42, model_context_window: 200 };
    /// assert_eq!(PromptBudget::from_columns(budget.columns().map(Some)), Some(budget));
    /// assert_eq!(PromptBudget::from_columns([Some(1), None, Some(3)]), None);
    /// ```
    pub fn from_columns(columns: [Option<i64>; 3]) -> Option<Self> {
        let figure = |value: i64| u64::try_from(value).unwrap_or(0);
        let [budget, estimate, window] = columns;
        Some(Self {
            prompt_token_budget: figure(budget?),
            estimated_prompt_tokens: figure(estimate?),
            model_context_window: figure(window?),
        })
    }
}

/// A stored run step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRecord {
    /// Row id.
    pub id: i64,
    /// Its run.
    pub run_id: RunId,
    /// Position in the run, from 0.
    pub step_index: i64,
    /// Kind of step.
    pub kind: String,
    /// Details.
    pub content: serde_json::Value,
    /// For a model call: its prompt's token budget, estimate and the model's window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<PromptBudget>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// A compaction summary: the text that stands for a scope's messages up to a cursor.
///
/// A session keeps one current summary per scope (one `chat_context_summaries` row, updated
/// in place); the summaries it replaced are kept in `chat_context_summary_history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextSummary {
    /// Row id of the scope's summary row (the same for every summary of the scope).
    pub id: i64,
    /// The workspace summarised.
    #[serde(serialize_with = "crate::record::display")]
    pub scope: ContextScope,
    /// Messages of the scope up to and including this id are summarised.
    pub until_message_id: MessageId,
    /// The summary.
    pub summary_text: String,
    /// When the scope's first summary was written, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When this summary was written, milliseconds since the Unix epoch.
    pub updated_at: i64,
}

/// A summary a newer one replaced (`chat_context_summary_history`): read for inspection and
/// to copy a session whole ([`MessageLog::replaced_summaries`](crate::MessageLog::replaced_summaries)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReplacedSummary {
    /// The workspace it summarised.
    #[serde(serialize_with = "crate::record::display")]
    pub scope: ContextScope,
    /// Its cursor: messages of the scope up to and including this id.
    pub until_message_id: MessageId,
    /// The summary.
    pub summary_text: String,
    /// When it was written, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When a newer summary replaced it, milliseconds since the Unix epoch.
    pub replaced_at: i64,
}

/// What [`MessageLog::clear_agent_context`](crate::MessageLog::clear_agent_context) deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClearedContext {
    /// Sessions in which the agent's workspace held anything.
    pub sessions: u64,
    /// Messages of the workspace deleted.
    pub messages: u64,
    /// Summaries of the workspace deleted: current ones and those they had replaced.
    pub summaries: u64,
}

/// How a run ends, for [`RunLog::close_run`](crate::RunLog::close_run): the turn it had not
/// written yet (its messages and steps), its status and usage, and the handoff it leaves in
/// the main timeline, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct RunClosing {
    /// The last turn's messages, written first.
    pub messages: Vec<NewMessage>,
    /// The last turn's steps (and the ending's own), after the messages.
    pub steps: Vec<NewStep>,
    /// The run's final status.
    pub status: RunStatus,
    /// Tokens over all the run's model calls.
    pub usage: Usage,
    /// The summary handed back to `main`, written after the status.
    pub handoff: Option<HandoffSummary>,
}

/// The structured result a run hands back to the main timeline when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandoffSummary {
    /// What was done, in a few sentences.
    pub summary: String,
    /// Files the run changed, if it knows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files_changed: Vec<String>,
    /// What is still open.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub open_items: Vec<String>,
}

impl HandoffSummary {
    /// The handoff of `run` as the text the timeline shows (every store writes this).
    pub fn render(&self, run: &RunRecord) -> String {
        let mut text = format!(
            "Handoff from {} (run {}, {}):\n{}",
            run.agent,
            run.id,
            run.status,
            self.summary.trim()
        );
        for (title, items) in [
            ("Files changed", &self.files_changed),
            ("Open items", &self.open_items),
        ] {
            if !items.is_empty() {
                text.push_str(&format!("\n\n{title}:"));
                for item in items {
                    text.push_str(&format!("\n- {item}"));
                }
            }
        }
        text
    }
}

/// One key of a session's state with who wrote it last, for listings
/// ([`StateLog::state_entries`](crate::StateLog::state_entries)).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateEntry {
    /// The key (`task`, or a key an agent declares in `memory.session`).
    pub key: String,
    /// The value, as stored (secrets masked).
    pub value: Value,
    /// When it was last set, in milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// The agent that last set it.
    pub updated_by: String,
}

/// A store timestamp (milliseconds since the Unix epoch) as ISO 8601 UTC, to the second.
///
/// ```
/// assert_eq!(agentctl_store::utc_timestamp(0), "1970-01-01T00:00:00Z");
/// assert_eq!(agentctl_store::utc_timestamp(1_704_067_200_000), "2024-01-01T00:00:00Z");
/// ```
pub fn utc_timestamp(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(utc_timestamp(-1), "1969-12-31T23:59:59Z");
    }
}
