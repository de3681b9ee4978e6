//! Reasoning effort (Claude Code's `effort`, OpenAI's `reasoning_effort`): how much a model
//! that reasons before it answers may think.
//!
//! One scale for every agent format and provider. Each provider speaks it in its own
//! parameter (OpenAI `reasoning_effort`, Anthropic's thinking budget, Gemini's thinking budget
//! or level); the model catalogue says which models reason and which levels each accepts
//! ([`ModelCatalogue::effort`](crate::ModelCatalogue::effort)), and a level a model does not
//! accept is sent as the nearest one it does ([`Effort::nearest`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How much a reasoning model may think, from least to most.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// As little as the model allows (OpenAI's gpt-5 family's `minimal`).
    Minimal,
    /// Fast and cheap.
    Low,
    /// The providers' usual default.
    Medium,
    /// Thorough.
    High,
    /// More than `high` (Claude Code's `xhigh`).
    Xhigh,
    /// As much as agentctl grants (Claude Code's `max`).
    Max,
}

/// Every level, from least to most.
pub const EFFORTS: [Effort; 6] = [
    Effort::Minimal,
    Effort::Low,
    Effort::Medium,
    Effort::High,
    Effort::Xhigh,
    Effort::Max,
];

impl Effort {
    /// The name as written in agent files and sent to OpenAI.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Xhigh => "xhigh",
            Self::Max => "max",
        }
    }

    /// The thinking budget in tokens that stands for this level where a provider takes a
    /// budget (Anthropic's `thinking.budget_tokens`, Gemini 2.5's `thinkingBudget`).
    ///
    /// Anthropic's floor is 1024; every budget stays within Gemini 2.5's ranges (up to 24576
    /// for Flash) and leaves room for an answer within Claude Opus's 32000 output tokens.
    pub fn budget_tokens(self) -> u32 {
        match self {
            Self::Minimal => 1024,
            Self::Low => 2048,
            Self::Medium => 8192,
            Self::High => 16384,
            Self::Xhigh => 20480,
            Self::Max => 24576,
        }
    }

    /// The level of `accepted` nearest to this one (itself when accepted; on a tie the
    /// higher one); `None` when `accepted` is empty.
    ///
    /// ```
    /// use agentctl_core::Effort;
    /// let o3 = [Effort::Low, Effort::Medium, Effort::High];
    /// assert_eq!(Effort::Minimal.nearest(&o3), Some(Effort::Low));
    /// assert_eq!(Effort::Max.nearest(&o3), Some(Effort::High));
    /// assert_eq!(Effort::Medium.nearest(&[Effort::Low, Effort::High]), Some(Effort::High));
    /// ```
    pub fn nearest(self, accepted: &[Effort]) -> Option<Effort> {
        let rank = |effort: Effort| effort as i32;
        accepted
            .iter()
            .copied()
            .min_by_key(|level| ((rank(*level) - rank(self)).abs(), -rank(*level)))
    }
}

impl fmt::Display for Effort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that is not a level of [`Effort`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an effort level (minimal, low, medium, high, xhigh, max)")]
pub struct UnknownEffort(pub String);

impl FromStr for Effort {
    type Err = UnknownEffort;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        EFFORTS
            .into_iter()
            .find(|effort| effort.as_str() == text)
            .ok_or_else(|| UnknownEffort(text.to_owned()))
    }
}

/// How a provider's model takes an effort, as the catalogue knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffortStyle {
    /// A level by name: OpenAI's `reasoning_effort`.
    Level,
    /// A budget of thinking tokens ([`Effort::budget_tokens`]): Anthropic's extended
    /// thinking, Gemini 2.5's `thinkingBudget`.
    Budget,
    /// Gemini 3's `thinkingLevel` (`low`, `high`).
    ThinkingLevel,
}

/// What the catalogue says of one model and effort.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EffortSupport {
    /// The model reasons: how it takes an effort and which levels it accepts.
    Reasons {
        /// Its provider's parameter.
        style: EffortStyle,
        /// The levels it accepts, least first.
        levels: Vec<Effort>,
    },
    /// The model is in the catalogue and does not reason: an effort is not sent.
    DoesNotReason,
    /// The model (or its provider) is not in the catalogue.
    Unknown,
}

/// What a run sends for an effort it was asked for, decided once by
/// [`ModelCatalogue::plan_effort`](crate::ModelCatalogue::plan_effort).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffortPlan {
    /// Sent as asked.
    Send(Effort),
    /// The model does not accept the level asked for: the nearest one it does is sent.
    Nearest {
        /// The level asked for.
        asked: Effort,
        /// The level sent.
        sent: Effort,
    },
    /// The catalogue says the model does not reason: nothing is sent.
    NotSent(Effort),
}

impl EffortPlan {
    /// The level the request carries, if any.
    pub fn sent(self) -> Option<Effort> {
        match self {
            Self::Send(effort) | Self::Nearest { sent: effort, .. } => Some(effort),
            Self::NotSent(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_words_are_refused() {
        for effort in EFFORTS {
            assert_eq!(effort.as_str().parse::<Effort>(), Ok(effort));
            let json = serde_json::to_string(&effort).unwrap();
            assert_eq!(json, format!("\"{effort}\""));
        }
        assert!("High".parse::<Effort>().is_err());
        assert!("ultra".parse::<Effort>().is_err());
    }

    #[test]
    fn budgets_grow_and_meet_anthropic_floor() {
        let budgets: Vec<u32> = EFFORTS.iter().map(|e| e.budget_tokens()).collect();
        assert!(budgets.windows(2).all(|w| w[0] < w[1]), "{budgets:?}");
        assert!(budgets.iter().all(|b| (1024..=24576).contains(b)));
        assert_eq!(Effort::Low.nearest(&[]), None);
    }
}
