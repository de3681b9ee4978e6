//! What the review of a project's settings shares between its rules and its map entries: the
//! findings it makes, and what the caller knows that settings files do not say.

use super::LooseningReason;
use agentctl_core::RiskLevel;
use serde_json::Value;
use std::collections::BTreeMap;

/// A project value found looser than the user's, before it is reported.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding {
    /// Dotted key of the value.
    pub key: String,
    /// What the project asked for.
    pub value: Value,
    /// Why it is looser.
    pub reason: LooseningReason,
}

/// What the caller knows that settings files do not say: the risk of built-in tools.
#[derive(Debug, Clone, Default)]
pub(crate) struct Baselines<'a> {
    /// Built-in tools' own risk, by name.
    pub tool_risk: Option<&'a BTreeMap<String, RiskLevel>>,
}
