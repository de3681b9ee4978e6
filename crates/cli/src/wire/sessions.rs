//! The JSON of `sessions list` and `sessions show`: the store's rows in the CLI's casing, times
//! as RFC 3339.

use super::run::WireMessage;
use super::{Timestamp, one_of};
use agentctl_core::{GuardrailPolicy, GuardrailStage, Usage};
use agentctl_session::store::{
    ContextSummary, GuardrailCheck, PromptBudget, RunRecord, RunStatus, SessionInfo, StateEntry,
    StoredMessage,
};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One session, with counts (an item of `sessions list`).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionJson {
    /// The session id (`--session ID`, `sessions show ID`).
    pub(crate) session_id: String,
    /// The title, when one was set (the first prompt, shortened).
    pub(crate) title: Option<String>,
    pub(crate) created_at: Timestamp,
    /// The last write.
    pub(crate) updated_at: Timestamp,
    /// Messages in all scopes.
    pub(crate) message_count: u64,
    /// Agent runs.
    pub(crate) run_count: u64,
    /// Whether this is the project's current session (the one a run that names no session
    /// continues); left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) current: bool,
}

impl From<SessionInfo> for SessionJson {
    fn from(info: SessionInfo) -> Self {
        Self {
            current: false,
            session_id: info.id,
            title: info.title,
            created_at: Timestamp(info.created_at),
            updated_at: Timestamp(info.updated_at),
            message_count: info.message_count,
            run_count: info.run_count,
        }
    }
}

/// What `sessions show --format json` prints.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionShow {
    /// The session id.
    pub(crate) session_id: String,
    /// The session with its counts.
    pub(crate) session: SessionJson,
    /// `timeline`, `all` or the scope shown.
    pub(crate) view: String,
    /// The session state by key (`memory_set`, read by `when` conditions).
    pub(crate) state: BTreeMap<String, StateJson>,
    /// The agent runs, oldest first.
    pub(crate) runs: Vec<RunJson>,
    /// The messages of the view, oldest first.
    pub(crate) messages: Vec<MessageJson>,
    /// The current compaction summary of each scope.
    pub(crate) summaries: Vec<SummaryJson>,
    /// With `--all`: every guardrail check of the session's runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) guardrails: Vec<GuardrailStep>,
    /// With `--all`: every model call with its prompt's token budget, estimate and window.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) model_calls: Vec<ModelCallStep>,
}

/// One key of the session state: its value, who set it and when.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StateJson {
    pub(crate) value: Value,
    /// The agent that last set it.
    pub(crate) updated_by: String,
    pub(crate) updated_at: Timestamp,
}

impl StateJson {
    /// The state entries by key.
    pub(crate) fn by_key(entries: Vec<StateEntry>) -> BTreeMap<String, StateJson> {
        entries
            .into_iter()
            .map(|entry| {
                let json = StateJson {
                    value: entry.value,
                    updated_by: entry.updated_by,
                    updated_at: Timestamp(entry.updated_at),
                };
                (entry.key, json)
            })
            .collect()
    }
}

fn role_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["user", "assistant", "tool"])
}

fn status_schema(_: &mut SchemaGenerator) -> Schema {
    one_of(&["running", "completed", "failed", "cancelled", "interrupted"])
}

/// A stored agent run.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RunJson {
    /// The store's run id: `#N` in the text output, `runId` of the run's result.
    pub(crate) run_id: i64,
    pub(crate) session_id: String,
    pub(crate) agent: String,
    /// The run that started it (a sub-agent's caller, or the agent that handed off).
    pub(crate) parent_run_id: Option<i64>,
    /// Its workspace: `main`, `agent:{name}`, `run:{id}` or `sub:{agent}:{id}`.
    pub(crate) context_scope: String,
    #[schemars(schema_with = "status_schema")]
    pub(crate) status: RunStatus,
    /// `provider:model`, when known.
    pub(crate) model: Option<String>,
    /// What started it (`cli`, `repl`, `mcp`, `task`, `handoff`, `graph`, …).
    pub(crate) source: String,
    pub(crate) usage: UsageJson,
    pub(crate) started_at: Timestamp,
    /// `null` while running.
    pub(crate) finished_at: Option<Timestamp>,
}

impl From<RunRecord> for RunJson {
    fn from(run: RunRecord) -> Self {
        Self {
            run_id: run.id,
            session_id: run.session_id,
            agent: run.agent,
            parent_run_id: run.parent_run_id,
            context_scope: run.context_scope.to_string(),
            status: run.status,
            model: run.model,
            source: run.source.as_str().to_owned(),
            usage: run.usage.into(),
            started_at: Timestamp(run.started_at),
            finished_at: run.finished_at.map(Timestamp),
        }
    }
}

/// Token usage.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UsageJson {
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
}

impl From<Usage> for UsageJson {
    fn from(usage: Usage) -> Self {
        Self {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
        }
    }
}

/// A stored message.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MessageJson {
    /// Row id; grows with every append.
    pub(crate) id: i64,
    /// The run that wrote it, if any.
    pub(crate) run_id: Option<i64>,
    pub(crate) timeline_scope: String,
    /// The workspace.
    pub(crate) context_scope: String,
    /// The agent that produced it; `null` for the user.
    pub(crate) agent: Option<String>,
    #[schemars(schema_with = "role_schema")]
    pub(crate) role: &'static str,
    /// Whether the timeline shows it.
    pub(crate) visible: bool,
    /// What wrote it.
    pub(crate) source: String,
    pub(crate) token_estimate: u32,
    pub(crate) created_at: Timestamp,
    /// The message, with its `role`.
    pub(crate) content: Value,
}

impl From<StoredMessage> for MessageJson {
    fn from(message: StoredMessage) -> Self {
        let content =
            serde_json::to_value(WireMessage::from(&message.message)).unwrap_or(Value::Null);
        Self {
            id: message.id,
            run_id: message.run_id,
            timeline_scope: message.timeline_scope,
            context_scope: message.context_scope.to_string(),
            agent: message.agent,
            role: message.role,
            visible: message.visible,
            source: message.source.as_str().to_owned(),
            token_estimate: message.token_estimate,
            created_at: Timestamp(message.created_at),
            content,
        }
    }
}

/// A scope's current compaction summary.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SummaryJson {
    pub(crate) scope: String,
    /// Messages of the scope up to and including this id are summarised.
    pub(crate) until_message_id: i64,
    pub(crate) summary_text: String,
    /// When the scope's first summary was written.
    pub(crate) created_at: Timestamp,
    /// When this summary was written.
    pub(crate) updated_at: Timestamp,
}

impl From<ContextSummary> for SummaryJson {
    fn from(summary: ContextSummary) -> Self {
        Self {
            scope: summary.scope.to_string(),
            until_message_id: summary.until_message_id,
            summary_text: summary.summary_text,
            created_at: Timestamp(summary.created_at),
            updated_at: Timestamp(summary.updated_at),
        }
    }
}

/// One guardrail check, as its run recorded it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GuardrailStep {
    pub(crate) run_id: i64,
    pub(crate) name: String,
    pub(crate) stage: GuardrailStage,
    pub(crate) passed: bool,
    pub(crate) policy: GuardrailPolicy,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) errors: Vec<String>,
    pub(crate) attempt: u32,
}

impl From<GuardrailCheck> for GuardrailStep {
    fn from(check: GuardrailCheck) -> Self {
        Self {
            run_id: check.run_id,
            name: check.name,
            stage: check.stage,
            passed: check.passed,
            policy: check.policy,
            errors: check.errors,
            attempt: check.attempt,
        }
    }
}

/// One model call of a run, as its step recorded it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ModelCallStep {
    pub(crate) run_id: i64,
    pub(crate) step: i64,
    /// What the provider reported; `null` when the call got no answer.
    pub(crate) usage: Option<UsageJson>,
    pub(crate) prompt_token_budget: u64,
    pub(crate) estimated_prompt_tokens: u64,
    pub(crate) model_context_window: u64,
}

impl ModelCallStep {
    /// A `model_call` step: its stored content holds the usage the provider reported
    /// (`input_tokens`, `output_tokens`).
    pub(crate) fn new(run_id: i64, step: i64, content: &Value, budget: PromptBudget) -> Self {
        let tokens = |key: &str| content.get(key).and_then(Value::as_u64);
        let usage = match (tokens("input_tokens"), tokens("output_tokens")) {
            (Some(input_tokens), Some(output_tokens)) => Some(UsageJson {
                input_tokens,
                output_tokens,
            }),
            _ => None,
        };
        Self {
            run_id,
            step,
            usage,
            prompt_token_budget: budget.prompt_token_budget,
            estimated_prompt_tokens: budget.estimated_prompt_tokens,
            model_context_window: budget.model_context_window,
        }
    }
}
