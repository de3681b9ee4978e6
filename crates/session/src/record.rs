//! A recorded session read back whole, as `sessions show` (or any front end's session page)
//! shows it: its messages, runs, state and summaries, and on request every run's guardrail
//! checks and model calls.

use crate::error::SessionError;
use agentctl_core::{GuardrailPolicy, GuardrailStage, RunEvent};
use agentctl_store::{
    ContextSummary, MessageQuery, PromptBudget, RunId, RunRecord, SessionInfo, SessionStore,
    StateEntry, StoredMessage,
};
use serde_json::Value;

/// A session as its store keeps it.
#[derive(Debug)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session.
    pub session: SessionInfo,
    /// Its state (`memory_set`, read by `when` conditions).
    pub state: Vec<StateEntry>,
    /// The messages the query asked for.
    pub messages: Vec<StoredMessage>,
    /// Every run.
    pub runs: Vec<RunRecord>,
    /// The latest summary of each context scope that has one.
    pub summaries: Vec<ContextSummary>,
    /// With steps asked for: every guardrail check of the runs, in order.
    pub guardrails: Vec<GuardrailCheck>,
    /// With steps asked for: every model call of the runs with its prompt's token budget.
    pub model_calls: Vec<ModelCall>,
}

/// One guardrail check of a run, as its step recorded it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GuardrailCheck {
    /// The run.
    pub run_id: RunId,
    /// The guardrail.
    pub name: String,
    /// Input, output or handoff.
    pub stage: GuardrailStage,
    /// Whether it passed.
    pub passed: bool,
    /// What a failure does.
    pub policy: GuardrailPolicy,
    /// Why it failed.
    pub errors: Vec<String>,
    /// Which attempt, from 1.
    pub attempt: u32,
}

/// One model call of a run, as its step recorded it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ModelCall {
    /// The run.
    pub run_id: RunId,
    /// The step's position in the run.
    pub step_index: i64,
    /// What the step stored (the usage the provider reported: `input_tokens`,
    /// `output_tokens`).
    pub content: Value,
    /// The prompt's token budget, estimate and the model's window.
    pub budget: PromptBudget,
}

impl SessionRecord {
    /// Reads `session` from `store`: the messages `query` selects, the runs, the state and the
    /// latest summary of each scope; with `steps`, every run's guardrail checks and model
    /// calls too.
    ///
    /// # Errors
    ///
    /// [`SessionError::Store`] when the store fails.
    pub fn load(
        store: &dyn SessionStore,
        session: SessionInfo,
        query: &MessageQuery,
        steps: bool,
    ) -> Result<Self, SessionError> {
        let messages = store.messages(&session.id, query)?;
        let runs = store.runs(&session.id)?;
        let mut summaries = Vec::new();
        for scope in store.scopes(&session.id)? {
            summaries.extend(store.latest_summary(&session.id, &scope)?);
        }
        let state = store.state_entries(&session.id)?;
        let mut record = Self {
            session,
            state,
            messages,
            runs,
            summaries,
            guardrails: Vec::new(),
            model_calls: Vec::new(),
        };
        if steps {
            record.load_steps(store)?;
        }
        Ok(record)
    }

    /// The guardrail checks and model calls of every run.
    fn load_steps(&mut self, store: &dyn SessionStore) -> Result<(), SessionError> {
        for run in &self.runs {
            for step in store.steps(run.id)? {
                if let Some(budget) = step.budget {
                    self.model_calls.push(ModelCall {
                        run_id: run.id,
                        step_index: step.step_index,
                        content: step.content,
                        budget,
                    });
                } else if step.kind == "guardrail"
                    && let Ok(RunEvent::Guardrail {
                        name,
                        stage,
                        passed,
                        policy,
                        errors,
                        attempt,
                    }) = serde_json::from_value::<RunEvent>(step.content)
                {
                    self.guardrails.push(GuardrailCheck {
                        run_id: run.id,
                        name,
                        stage,
                        passed,
                        policy,
                        errors,
                        attempt,
                    });
                }
            }
        }
        Ok(())
    }
}
