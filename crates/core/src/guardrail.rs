//! Guardrails: checks on what goes into a run (the prompt, a handoff's brief) and what comes
//! out of it (the final answer, a handoff's payload), as the agent file declares them
//! ([`Guardrail`]). What checks them at run time is in `guardrail_check`
//! ([`GuardrailFactory`](crate::GuardrailFactory), [`RunGuardrails`](crate::RunGuardrails)).

use crate::serde_util::one_or_many;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Repair attempts when a `repair` guardrail does not set `maxRepairs`.
pub const DEFAULT_MAX_REPAIRS: u32 = 2;

/// Time limit of a `command:` validator that does not set `timeoutSeconds`.
pub const DEFAULT_VALIDATOR_TIMEOUT_SECS: u64 = 30;

/// A check on an agent's input or output, as the agent file declares it.
///
/// Exactly one of `schema`, `validator` and `command` says what is checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Guardrail {
    /// Name shown in events and errors.
    pub name: String,
    /// Whether the check applies to the input or the output.
    #[serde(default)]
    pub stage: GuardrailStage,
    /// JSON Schema (draft 2020-12 or 7, by its `$schema`) the text must satisfy: a bare JSON
    /// document or a single fenced `json` block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    /// A named validator: `regex`, `not-regex`, `max-length`, `contains-secret`, `json`, one
    /// registered by the embedding program, or `custom` (the one registered under this
    /// guardrail's `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator: Option<String>,
    /// The pattern of `regex` (must match) and `not-regex` (must not match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The limit of `max-length`, in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<usize>,
    /// A program and its arguments that receive the text on stdin and pass it by exiting 0;
    /// what it writes to stderr is the error. Run in the project root under the tools'
    /// sandbox.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    pub command: Vec<String>,
    /// Time limit of `command`, in seconds (default 30); the validator is killed and the
    /// check fails when it is reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<u64>,
    /// For input guardrails: run alongside the first model call instead of before it. The
    /// call is cancelled if the check fails, and nothing the model asked for runs, and none of
    /// its text is shown, until the check has passed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub parallel: bool,
    /// What happens on failure.
    #[serde(default)]
    pub policy: GuardrailPolicy,
    /// Upper bound on repair attempts when `policy` is `repair` (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_repairs: Option<u32>,
}

impl Guardrail {
    /// Repair attempts this guardrail allows: `maxRepairs`, else [`DEFAULT_MAX_REPAIRS`];
    /// none unless the policy is `repair`.
    pub fn repairs_allowed(&self) -> u32 {
        match self.policy {
            GuardrailPolicy::Repair => self.max_repairs.unwrap_or(DEFAULT_MAX_REPAIRS),
            GuardrailPolicy::Reject | GuardrailPolicy::Warn => 0,
        }
    }
}

/// Which side of a run a guardrail checks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GuardrailStage {
    /// The run's prompt: the user's request, or the brief (with the payload) a handoff target
    /// starts with.
    Input,
    /// The agent's final answer, or the payload of the handoff it makes.
    #[default]
    Output,
}

impl fmt::Display for GuardrailStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Input => "input",
            Self::Output => "output",
        })
    }
}

/// What a failing guardrail does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GuardrailPolicy {
    /// End the run with a `GuardrailViolation`.
    #[default]
    Reject,
    /// Ask the model again, with the errors, up to `maxRepairs` times; then reject.
    /// Output guardrails only.
    Repair,
    /// Record the failure and go on.
    Warn,
}

impl fmt::Display for GuardrailPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Reject => "reject",
            Self::Repair => "repair",
            Self::Warn => "warn",
        })
    }
}
