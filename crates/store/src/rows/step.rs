//! The row of a run's step: what both stores insert for a turn's steps, and an import.

use super::described;
use crate::record::{NewStep, PromptBudget, RunId};
use crate::schema::{Value, Write, WriteKind};
use agentctl_core::Redactor;

/// The columns of a new `agent_run_steps` row, in the order of its values.
const STEP_COLUMNS: &[&str] = &[
    "run_id",
    "step_index",
    "kind",
    "content",
    "created_at",
    "prompt_token_budget",
    "estimated_prompt_tokens",
    "model_context_window",
];

/// The insert of step `step_index` of `run`: its kind, its (masked) JSON content, when it was
/// written and, for a model call, its prompt budget.
pub(crate) fn step_insert(
    run: RunId,
    step_index: i64,
    kind: &str,
    content: &str,
    created_at: i64,
    budget: Option<PromptBudget>,
) -> Write {
    let [budget, estimate, window] = budget.map_or([None; 3], |budget| budget.columns().map(Some));
    Write {
        table: described("agent_run_steps"),
        kind: WriteKind::Insert,
        columns: STEP_COLUMNS,
        values: vec![
            run.into(),
            step_index.into(),
            kind.into(),
            content.into(),
            created_at.into(),
            Value::from(budget),
            Value::from(estimate),
            Value::from(window),
        ],
    }
}

/// A [`NewStep`] as its row holds it, its content masked and serialised, so a store can do
/// it before taking its lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepRow {
    kind: String,
    content: String,
    budget: Option<PromptBudget>,
}

impl StepRow {
    /// `step` with every secret `redactor` knows masked.
    pub fn new(redactor: &Redactor, step: &NewStep) -> Self {
        Self {
            kind: step.kind.clone(),
            content: redactor.redact(&step.content.to_string()).into_owned(),
            budget: step.budget,
        }
    }

    /// The insert of this step as step `step_index` of `run`, written at `now`.
    pub fn write(&self, run: RunId, step_index: i64, now: i64) -> Write {
        step_insert(run, step_index, &self.kind, &self.content, now, self.budget)
    }
}
