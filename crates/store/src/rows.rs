//! The records the stores read, each from its row the same way in every store ([`FromRow`]):
//! which columns, and what a value that is not what the record holds is reported as.

use crate::record::{
    ContextSummary, GraphCheckpoint, NewRun, PromptBudget, ReplacedSummary, RunId, RunRecord,
    RunStatus, StateEntry, StepRecord, StoredMessage, role_of,
};
use crate::schema::{FromRow, RowError, RowRef, table};
use crate::scope::ContextScope;
use crate::source::Source;
use agentctl_core::{Message, Usage};

mod checkpoint;
mod message;
mod session;
mod span;
mod step;
mod summary;

pub use checkpoint::checkpoint_insert;
pub use message::MessageRow;
pub(crate) use message::message_insert;
pub use session::{mode_override_write, state_write, sync_mark_write};
pub use span::{masked_span, span_write};
pub use step::StepRow;
pub(crate) use step::step_insert;
pub use summary::SummarySave;

/// The described table `name` (every table a row is built for is described).
pub(crate) fn described(name: &str) -> &'static crate::schema::Table {
    table(name).unwrap_or(&crate::schema::TABLES[0])
}

/// What a run read for writing selects: a run's columns, then the index of its next step
/// (`next_step`).
pub(crate) const RUN_AND_NEXT_STEP: &[&str] = &[
    "id",
    "session_id",
    "agent_id",
    "parent_run_id",
    "context_scope",
    "status",
    "model",
    "usage",
    "started_at",
    "finished_at",
    "source",
    "next_step",
];

impl FromRow for RunRecord {
    const TABLE: &'static str = "agent_runs";
    const COLUMNS: &'static [&'static str] = match RUN_AND_NEXT_STEP.split_last() {
        Some((_, columns)) => columns,
        None => &[],
    };

    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError> {
        let id = row.integer("id")?;
        let corrupt = |detail: String| row.corrupt(format!("run {id}: {detail}"));
        let scope = row.text("context_scope")?;
        Ok(RunRecord {
            id,
            session_id: row.text("session_id")?.to_owned(),
            agent: row.text("agent_id")?.to_owned(),
            parent_run_id: row.opt_integer("parent_run_id")?,
            context_scope: scope
                .parse()
                .map_err(|_| corrupt(format!("scope `{scope}`")))?,
            status: row.text("status")?.parse().map_err(corrupt)?,
            model: row.opt_text("model")?.map(str::to_owned),
            source: Source::stored(row.text("source")?.to_owned()),
            usage: match row.opt_text("usage")? {
                Some(json) => serde_json::from_str::<Usage>(json)
                    .map_err(|error| corrupt(error.to_string()))?,
                None => Usage::default(),
            },
            started_at: row.integer("started_at")?,
            finished_at: row.opt_integer("finished_at")?,
        })
    }
}

impl FromRow for StepRecord {
    const TABLE: &'static str = "agent_run_steps";
    const COLUMNS: &'static [&'static str] = &[
        "id",
        "run_id",
        "step_index",
        "kind",
        "content",
        "created_at",
        "prompt_token_budget",
        "estimated_prompt_tokens",
        "model_context_window",
    ];

    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError> {
        let id = row.integer("id")?;
        Ok(StepRecord {
            id,
            run_id: row.integer("run_id")?,
            step_index: row.integer("step_index")?,
            kind: row.text("kind")?.to_owned(),
            content: serde_json::from_str(row.text("content")?)
                .map_err(|error| row.corrupt(format!("step {id}: {error}")))?,
            budget: PromptBudget::from_columns([
                row.opt_integer("prompt_token_budget")?,
                row.opt_integer("estimated_prompt_tokens")?,
                row.opt_integer("model_context_window")?,
            ]),
            created_at: row.integer("created_at")?,
        })
    }
}

impl FromRow for StoredMessage {
    const TABLE: &'static str = "chat_messages";
    const COLUMNS: &'static [&'static str] = &[
        "id",
        "run_id",
        "timeline_scope",
        "context_scope",
        "agent_id",
        "visible",
        "token_estimate",
        "created_at",
        "content",
        "source",
    ];

    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError> {
        let id = row.integer("id")?;
        let scope = row.text("context_scope")?;
        let context_scope: ContextScope = scope
            .parse()
            .map_err(|_| row.corrupt(format!("message {id}: scope `{scope}`")))?;
        let message: Message = serde_json::from_str(row.text("content")?)
            .map_err(|error| row.corrupt(format!("message {id}: {error}")))?;
        Ok(StoredMessage {
            id,
            run_id: row.opt_integer("run_id")?,
            timeline_scope: row.text("timeline_scope")?.to_owned(),
            context_scope,
            agent: row.opt_text("agent_id")?.map(str::to_owned),
            role: role_of(&message),
            visible: row.integer("visible")? != 0,
            source: Source::stored(row.text("source")?.to_owned()),
            token_estimate: u32::try_from(row.integer("token_estimate")?).unwrap_or(0),
            created_at: row.integer("created_at")?,
            message,
        })
    }
}

impl FromRow for StateEntry {
    const TABLE: &'static str = "session_state";
    const COLUMNS: &'static [&'static str] = &["key", "value", "updated_at", "updated_by"];

    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError> {
        let key = row.text("key")?;
        Ok(StateEntry {
            key: key.to_owned(),
            value: serde_json::from_str(row.text("value")?)
                .map_err(|error| row.corrupt(format!("key `{key}`: {error}")))?,
            updated_at: row.integer("updated_at")?,
            updated_by: row.text("updated_by")?.to_owned(),
        })
    }
}

impl FromRow for ReplacedSummary {
    const TABLE: &'static str = "chat_context_summary_history";
    const COLUMNS: &'static [&'static str] = &[
        "scope",
        "until_message_id",
        "summary_text",
        "created_at",
        "replaced_at",
    ];

    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError> {
        Ok(ReplacedSummary {
            scope: row
                .text("scope")?
                .parse()
                .map_err(|error: crate::ContextError| row.corrupt(error.to_string()))?,
            until_message_id: row.integer("until_message_id")?,
            summary_text: row.text("summary_text")?.to_owned(),
            created_at: row.integer("created_at")?,
            replaced_at: row.integer("replaced_at")?,
        })
    }
}

/// A branch or step number read from `graph_checkpoints` (`what` names it in the error).
pub fn checkpoint_number(value: i64, what: &str) -> Result<u32, RowError> {
    u32::try_from(value).map_err(|_| RowError {
        table: "graph_checkpoints",
        reason: format!("{what} {value}"),
    })
}

/// The `(parent_branch, parent_step)` a `graph_checkpoints` row was forked from, if any.
pub fn checkpoint_parent(
    branch: Option<i64>,
    step: Option<i64>,
) -> Result<Option<(u32, u32)>, RowError> {
    Ok(match (branch, step) {
        (Some(branch), Some(step)) => Some((
            checkpoint_number(branch, "parent branch")?,
            checkpoint_number(step, "parent step")?,
        )),
        _ => None,
    })
}

impl FromRow for GraphCheckpoint {
    const TABLE: &'static str = "graph_checkpoints";
    const COLUMNS: &'static [&'static str] = &[
        "session_id",
        "branch",
        "step",
        "graph",
        "node",
        "run_id",
        "next_node",
        "reason",
        "state",
        "source",
        "parent_branch",
        "parent_step",
        "created_at",
        "parallel",
    ];

    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError> {
        let (branch, step) = (row.integer("branch")?, row.integer("step")?);
        let at = format!("branch {branch} step {step}");
        let corrupt = |detail: String| row.corrupt(format!("{at}: {detail}"));
        let parent = checkpoint_parent(
            row.opt_integer("parent_branch")?,
            row.opt_integer("parent_step")?,
        )?;
        Ok(GraphCheckpoint {
            session_id: row.text("session_id")?.to_owned(),
            branch: checkpoint_number(branch, "branch")?,
            step: checkpoint_number(step, "step")?,
            graph: row.text("graph")?.to_owned(),
            node: row.opt_text("node")?.map(str::to_owned),
            run: row.opt_integer("run_id")?,
            next: row.opt_text("next_node")?.map(str::to_owned),
            reason: row.opt_text("reason")?.map(str::to_owned),
            state: serde_json::from_str(row.text("state")?)
                .map_err(|error| corrupt(error.to_string()))?,
            source: row.text("source")?.parse().map_err(corrupt)?,
            parallel: row
                .opt_text("parallel")?
                .map(serde_json::from_str)
                .transpose()
                .map_err(|error| corrupt(error.to_string()))?,
            parent,
            created_at: row.integer("created_at")?,
        })
    }
}

impl FromRow for ContextSummary {
    const TABLE: &'static str = "chat_context_summaries";
    const COLUMNS: &'static [&'static str] = &[
        "id",
        "scope",
        "until_message_id",
        "summary_text",
        "created_at",
        "updated_at",
    ];

    fn from_row(row: &RowRef<'_>) -> Result<Self, RowError> {
        Ok(ContextSummary {
            id: row.integer("id")?,
            scope: row
                .text("scope")?
                .parse()
                .map_err(|error: crate::ContextError| row.corrupt(error.to_string()))?,
            until_message_id: row.integer("until_message_id")?,
            summary_text: row.text("summary_text")?.to_owned(),
            created_at: row.integer("created_at")?,
            updated_at: row.integer("updated_at")?,
        })
    }
}

impl RunRecord {
    /// Run `id` of `session` as `run` starts it at `now`, in its workspace `scope`: running,
    /// nothing used yet.
    pub fn started(
        id: RunId,
        session: String,
        run: &NewRun,
        scope: ContextScope,
        now: i64,
    ) -> Self {
        RunRecord {
            id,
            session_id: session,
            agent: run.agent.clone(),
            parent_run_id: run.parent_run_id,
            context_scope: scope,
            status: RunStatus::Running,
            model: run.model.clone(),
            source: run.source.clone(),
            usage: Usage::default(),
            started_at: now,
            finished_at: None,
        }
    }
}
