//! Why a run failed.

use crate::guardrail_check::{GuardrailSpecError, GuardrailViolation};
use crate::hint::Hint;
use crate::model::ModelError;
use crate::provider::ProviderError;
use crate::tool_filter::ToolPatternError;

/// Why a run did not produce a result. Messages are one line and say what to change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// No model anywhere: not in the options, the agent file or the settings.
    #[error(
        "agent `{agent}` has no model: set `model:` in the agent file or `agents.defaultModel` in settings"
    )]
    NoModel {
        /// Agent name.
        agent: String,
    },
    /// The model string does not resolve.
    #[error("agent `{agent}`: {source}")]
    Model {
        /// Agent name.
        agent: String,
        /// What was wrong with the model string.
        #[source]
        source: ModelError,
    },
    /// The provider could not be built or the model call failed.
    #[error("{0}")]
    Provider(#[from] ProviderError),
    /// The agent's tool allow or deny list does not compile.
    #[error("agent `{agent}`: {source}")]
    ToolPolicy {
        /// Agent name.
        agent: String,
        /// The bad pattern.
        #[source]
        source: ToolPatternError,
    },
    /// The model kept asking for tools until the turn limit.
    #[error(
        "agent `{agent}` reached the limit of {turns} turns without finishing: raise `maxTurns` in the agent file"
    )]
    MaxTurns {
        /// Agent name.
        agent: String,
        /// The limit.
        turns: u32,
        /// Text the model wrote before the limit, turns joined by blank lines.
        partial_text: String,
    },
    /// The run reached its token or cost budget before finishing.
    #[error("agent `{agent}` stopped at its budget: {budget}")]
    Budget {
        /// Agent name.
        agent: String,
        /// Which budget, and how much was used.
        budget: BudgetReached,
        /// Text the model wrote before the budget, turns joined by blank lines.
        partial_text: String,
    },
    /// Handoffs went on past `agents.maxHandoffs`.
    #[error(
        "stopped after {limit} handoffs ({}): the agents kept handing the work on; raise agents.maxHandoffs or change their handoff conditions",
        chain.join(" → ")
    )]
    HandoffLimit {
        /// The limit.
        limit: u32,
        /// The agents of the run, in order.
        chain: Vec<String>,
    },
    /// A guardrail rejected the input or the (repaired) output.
    #[error("{0}")]
    Guardrail(#[from] GuardrailViolation),
    /// The agent's guardrails cannot be used (a schema that does not compile, an unknown
    /// validator).
    #[error("{0}")]
    GuardrailSpec(#[from] GuardrailSpecError),
    /// The run was cancelled.
    #[error("run cancelled")]
    Cancelled,
    /// The run's task ended abnormally (a panic in a tool or provider).
    #[error("run aborted: {0}")]
    Aborted(String),
}

impl RunError {
    /// True when running again unchanged may succeed (rate limits, server errors, timeouts).
    pub fn is_retryable(&self) -> bool {
        matches!(self, RunError::Provider(error) if error.is_retryable())
    }

    /// What a front end can offer beyond the message (a model for the run, more turns).
    pub fn hint(&self) -> Option<Hint> {
        match self {
            RunError::NoModel { .. } => Some(Hint::ChooseModel),
            RunError::Model { source, .. } => source.hint(),
            RunError::MaxTurns { .. } => Some(Hint::RaiseMaxTurns),
            RunError::Budget { .. } => Some(Hint::RaiseBudget),
            _ => None,
        }
    }
}

/// Which budget a run reached.
#[derive(Debug, Clone, PartialEq)]
pub enum BudgetReached {
    /// Its token budget (`maxTokens`).
    Tokens {
        /// Tokens used, input and output.
        used: u64,
        /// The budget.
        limit: u64,
    },
    /// Its cost budget (`maxCost`), in US dollars.
    Cost {
        /// Dollars spent.
        used: f64,
        /// The budget.
        limit: f64,
    },
}

impl std::fmt::Display for BudgetReached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BudgetReached::Tokens { used, limit } => {
                write!(f, "{used} tokens used of `maxTokens: {limit}`")
            }
            BudgetReached::Cost { used, limit } => {
                write!(f, "${used:.4} spent of `maxCost: {limit}`")
            }
        }
    }
}
