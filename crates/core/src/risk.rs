//! How much harm a tool call can do: the scale every approval policy compares with.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How much harm a tool call can do; approval policies compare it with a threshold.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    /// Reads nothing sensitive and changes nothing.
    #[default]
    Safe,
    /// Reads project files.
    Low,
    /// Changes project files in a reversible way.
    Medium,
    /// Runs commands or changes things outside the project.
    High,
    /// Can destroy data or leak secrets.
    Critical,
}

impl RiskLevel {
    /// Every level, from the least harmful.
    pub const ALL: [RiskLevel; 5] = [
        RiskLevel::Safe,
        RiskLevel::Low,
        RiskLevel::Medium,
        RiskLevel::High,
        RiskLevel::Critical,
    ];

    /// The level a setting or a flag names: `safe`, `low`, `medium`, `high` or `critical`, in
    /// any case, blanks around ignored.
    ///
    /// ```
    /// use agentctl_core::RiskLevel;
    ///
    /// assert_eq!(RiskLevel::from_name(" High "), Some(RiskLevel::High));
    /// assert_eq!(RiskLevel::from_name("meh"), None);
    /// ```
    pub fn from_name(text: &str) -> Option<RiskLevel> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|level| level.as_str().eq_ignore_ascii_case(text))
    }

    /// The lowercase name used in files and output.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskLevel::Safe => "safe",
            RiskLevel::Low => "low",
            RiskLevel::Medium => "medium",
            RiskLevel::High => "high",
            RiskLevel::Critical => "critical",
        }
    }
}

impl fmt::Display for RiskLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_levels_are_ordered_and_lowercase() {
        assert!(RiskLevel::Safe < RiskLevel::Low && RiskLevel::High < RiskLevel::Critical);
        assert_eq!(serde_json::to_value(RiskLevel::Medium).unwrap(), "medium");
    }
}
