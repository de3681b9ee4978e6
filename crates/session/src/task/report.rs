//! How a task ended and what it used, as the caller reads it.

use agentctl_store::{RunId, RunStatus};
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// How a task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The child answered (and the answer matched the schema, if any).
    Completed,
    /// The answer did not match the schema, even after the repair turn.
    InvalidResult,
    /// The child used all its turns.
    MaxTurns,
    /// The child used more tokens than its budget.
    TokenBudget,
    /// The child ran out of time.
    Timeout,
    /// The child's run failed (model or provider error).
    Failed,
    /// The caller was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Completed => "completed",
            TaskStatus::InvalidResult => "invalid_result",
            TaskStatus::MaxTurns => "max_turns",
            TaskStatus::TokenBudget => "budget exceeded: tokens",
            TaskStatus::Timeout => "budget exceeded: timeout",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// The status of the child's store run.
    pub fn run_status(self) -> RunStatus {
        match self {
            TaskStatus::Completed => RunStatus::Completed,
            TaskStatus::Cancelled => RunStatus::Cancelled,
            _ => RunStatus::Failed,
        }
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The budget report of one task: appended to its tool result and stored as its `task_result`
/// step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskReport {
    /// The sub-agent.
    pub agent: String,
    /// The child's store run.
    pub run_id: RunId,
    /// How it ended.
    pub status: TaskStatus,
    /// Model turns used (the repair turn included).
    pub turns: u32,
    /// Turn budget.
    pub max_turns: u32,
    /// Prompt tokens used.
    pub input_tokens: u64,
    /// Completion tokens used.
    pub output_tokens: u64,
    /// Token budget (input + output).
    pub max_tokens: u64,
    /// Wall time, in milliseconds.
    pub duration_ms: u64,
    /// Time budget, in milliseconds.
    pub timeout_ms: u64,
    /// Whether a repair turn was needed to match the schema.
    pub repaired: bool,
    /// The task's id in an issue tracker, as the dispatch gave it (seed 004's `bdTaskId`).
    #[serde(rename = "bdTaskId", skip_serializing_if = "Option::is_none")]
    pub bd_task_id: Option<String>,
}

impl TaskReport {
    pub(crate) fn duration(&self) -> Duration {
        Duration::from_millis(self.duration_ms)
    }
}

/// `200 ms`, `5 s`, `1.5 s`.
pub(crate) fn human(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

impl fmt::Display for TaskReport {
    /// One line: `[task sub-agent reviewer, run 7: completed; turns 2/10; tokens 150/200000; 1.2 s of 300 s]`
    /// (`; bdTaskId finger-60.1` before the `]` for a tracked task).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[task sub-agent {}, run {}: {}; turns {}/{}{}; tokens {}/{}; {} of {}{}]",
            self.agent,
            self.run_id,
            self.status,
            self.turns,
            self.max_turns,
            if self.repaired { " (1 repair)" } else { "" },
            self.input_tokens + self.output_tokens,
            self.max_tokens,
            human(self.duration()),
            human(Duration::from_millis(self.timeout_ms)),
            match &self.bd_task_id {
                Some(id) => format!("; bdTaskId {id}"),
                None => String::new(),
            },
        )
    }
}
