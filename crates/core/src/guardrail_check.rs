//! Guardrails at run time: a [`GuardrailFactory`] (the `agentctl-guardrails` crate) compiles an
//! agent's declarations ([`Guardrail`](crate::Guardrail)) into [`RunGuardrails`]; the loop asks
//! it at each [`GuardrailPhase`] and follows the [`GuardrailAction`] of its [`GuardrailVerdict`].

use crate::agent::AgentDefinition;
use crate::guardrail::{GuardrailPolicy, GuardrailStage};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

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
