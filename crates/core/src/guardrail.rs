//! Guardrails: checks on what goes into a run (the prompt, a handoff's brief) and what comes
//! out of it (the final answer, a handoff's payload).
//!
//! The agent file declares them ([`Guardrail`]); a [`GuardrailFactory`] (the
//! `agentctl-guardrails` crate) compiles an agent's declarations into [`RunGuardrails`]; the
//! loop asks it at each [`GuardrailPhase`] and follows the [`GuardrailAction`] of its
//! [`GuardrailVerdict`]: go on, ask the model to repair its answer, or end the run with a
//! [`GuardrailViolation`].

use crate::agent::AgentDefinition;
use crate::serde_util::one_or_many;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

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
    /// End the run with a [`GuardrailViolation`].
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

/// When in a run guardrails are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GuardrailPhase {
    /// Input guardrails checked before the first model call.
    Input,
    /// Input guardrails with `parallel: true`, checked alongside the first model call.
    ParallelInput,
    /// Output guardrails, checked on each final answer or handoff.
    Output,
}

/// What a guardrail check looks at.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum GuardrailSubject<'a> {
    /// The run's prompt, at [`GuardrailPhase::Input`] or [`GuardrailPhase::ParallelInput`].
    Input {
        /// The prompt.
        prompt: &'a str,
        /// True for the parallel input guardrails.
        parallel: bool,
    },
    /// The agent's final answer.
    Answer {
        /// The answer.
        text: &'a str,
    },
    /// A handoff the agent made: its payload is checked (its text when there is none).
    Handoff {
        /// The receiving agent.
        to: &'a str,
        /// What the agent wrote alongside the handoff call.
        text: &'a str,
        /// The payload.
        payload: &'a Value,
    },
}

impl GuardrailSubject<'_> {
    /// The phase this subject is checked at.
    pub fn phase(&self) -> GuardrailPhase {
        match self {
            Self::Input {
                parallel: false, ..
            } => GuardrailPhase::Input,
            Self::Input { parallel: true, .. } => GuardrailPhase::ParallelInput,
            Self::Answer { .. } | Self::Handoff { .. } => GuardrailPhase::Output,
        }
    }

    /// The text the checks read: the prompt, the answer, or the handoff's payload as JSON.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Self::Input { prompt, .. } => Cow::Borrowed(prompt),
            Self::Answer { text } => Cow::Borrowed(text),
            Self::Handoff { text, payload, .. } if payload.is_null() => Cow::Borrowed(text),
            Self::Handoff { payload, .. } => Cow::Owned(
                serde_json::to_string_pretty(payload).unwrap_or_else(|_| payload.to_string()),
            ),
        }
    }
}

/// The result of one guardrail on one text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardrailCheck {
    /// The guardrail's name.
    pub name: String,
    /// Its stage.
    pub stage: GuardrailStage,
    /// Its policy.
    pub policy: GuardrailPolicy,
    /// Whether the text passed.
    pub passed: bool,
    /// Why it did not: each a one-line message, e.g. `/confidence: 1.7 is greater than the
    /// maximum of 1`.
    pub errors: Vec<String>,
}

/// The checks of one phase on one text, and what the run does next.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardrailVerdict {
    /// Every guardrail checked, in declaration order.
    pub checks: Vec<GuardrailCheck>,
    /// What the loop does next.
    pub action: GuardrailAction,
}

impl GuardrailVerdict {
    /// No guardrail applied: go on.
    pub fn proceed() -> Self {
        Self {
            checks: Vec::new(),
            action: GuardrailAction::Proceed,
        }
    }
}

/// What the loop does after a phase's checks.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum GuardrailAction {
    /// Everything passed, or only `warn` guardrails failed.
    Proceed,
    /// Send `prompt` (the schema, the errors and what to return) as the next user message
    /// and check the model's next answer again.
    Repair {
        /// The repair request.
        prompt: String,
    },
    /// End the run.
    Reject(GuardrailViolation),
}

/// A guardrail that failed for good: the run ends with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub struct GuardrailViolation {
    /// The agent whose input or output failed.
    pub agent: String,
    /// Which side failed.
    pub stage: GuardrailStage,
    /// The guardrails that failed, each with all its errors.
    pub failures: Vec<GuardrailFailure>,
    /// Repair attempts made before giving up.
    pub repairs: u32,
}

impl GuardrailViolation {
    /// The first failing guardrail's name (the one the violation is named after).
    pub fn guardrail(&self) -> &str {
        self.failures.first().map_or("", |f| f.name.as_str())
    }
}

impl fmt::Display for GuardrailViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.failures.iter().map(|f| f.name.as_str()).collect();
        write!(
            f,
            "guardrail violation: {} rejected the {} of `{}`",
            names.join(", "),
            self.stage,
            self.agent
        )?;
        if self.repairs > 0 {
            let s = if self.repairs == 1 { "" } else { "s" };
            write!(f, " after {} repair attempt{s}", self.repairs)?;
        }
        let errors: Vec<&str> = self
            .failures
            .iter()
            .flat_map(|failure| failure.errors.iter().map(String::as_str))
            .collect();
        if !errors.is_empty() {
            write!(f, ": {}", errors.join("; "))?;
        }
        Ok(())
    }
}

/// One failing guardrail of a [`GuardrailViolation`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardrailFailure {
    /// The guardrail's name.
    pub name: String,
    /// Every error it reported.
    pub errors: Vec<String>,
}

/// A guardrail declaration that cannot be used: a schema that does not compile, a validator
/// nobody registered, a pattern that is not a regular expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("agent `{agent}`: {field}: {message}")]
pub struct GuardrailSpecError {
    /// The agent.
    pub agent: String,
    /// The field, as `agents validate` locates it: `guardrails[1].pattern`.
    pub field: String,
    /// What is wrong and what to change.
    pub message: String,
}

/// An agent's guardrails, ready to check its runs.
#[async_trait]
pub trait RunGuardrails: Send + Sync {
    /// Whether any guardrail is checked at `phase`.
    fn covers(&self, phase: GuardrailPhase) -> bool;

    /// Checks `subject` with every guardrail of its phase. `attempt` is 0 for the model's
    /// first answer and counts the repairs asked for since.
    async fn check(&self, subject: GuardrailSubject<'_>, attempt: u32) -> GuardrailVerdict;
}

/// Compiles agents' guardrail declarations; the runtime asks it once per run.
pub trait GuardrailFactory: Send + Sync {
    /// The guardrails of runs of `agent` in `working_dir`; `None` when it declares none.
    fn guardrails(
        &self,
        agent: &AgentDefinition,
        working_dir: &Path,
    ) -> Result<Option<Arc<dyn RunGuardrails>>, GuardrailSpecError>;
}
