//! Which risk levels run without asking: the settings' `approvals.autoApprove`, replaced by
//! `--approve safe,low` and widened by `--yes` (safe up to high). Critical is only
//! auto-approved when named explicitly.

use crate::risk::RiskLevelError;
use agentctl_core::{ApprovalSettings, RiskLevel};
use std::collections::BTreeSet;

/// The levels `--yes` approves: everything but critical.
pub const YES_LEVELS: [RiskLevel; 4] = [
    RiskLevel::Safe,
    RiskLevel::Low,
    RiskLevel::Medium,
    RiskLevel::High,
];

/// The set of auto-approved risk levels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoApprove {
    levels: BTreeSet<RiskLevel>,
}

impl Default for AutoApprove {
    /// Safe calls run; everything else is asked.
    fn default() -> Self {
        Self::new([RiskLevel::Safe])
    }
}

impl AutoApprove {
    /// Exactly these levels.
    pub fn new(levels: impl IntoIterator<Item = RiskLevel>) -> Self {
        Self {
            levels: levels.into_iter().collect(),
        }
    }

    /// The settings' `approvals.autoApprove`; an empty list means the default (safe only),
    /// `["none"]` approves nothing.
    ///
    /// ```
    /// use agentctl_core::{ApprovalSettings, RiskLevel};
    /// use agentctl_tools::AutoApprove;
    ///
    /// let settings = ApprovalSettings {
    ///     auto_approve: vec!["safe".into(), "LOW".into()],
    ///     ..ApprovalSettings::default()
    /// };
    /// let levels = AutoApprove::from_settings(&settings).unwrap();
    /// assert!(levels.contains(RiskLevel::Low) && !levels.contains(RiskLevel::Medium));
    /// let bad = ApprovalSettings {
    ///     auto_approve: vec!["safe".into(), "meh".into()],
    ///     ..ApprovalSettings::default()
    /// };
    /// assert_eq!(AutoApprove::from_settings(&bad).unwrap_err().key, "approvals.autoApprove[1]");
    /// ```
    pub fn from_settings(settings: &ApprovalSettings) -> Result<Self, RiskLevelError> {
        if settings.auto_approve.is_empty() {
            return Ok(Self::default());
        }
        let mut levels = BTreeSet::new();
        for (index, value) in settings.auto_approve.iter().enumerate() {
            if value.trim().eq_ignore_ascii_case("none") {
                continue;
            }
            levels.insert(RiskLevel::from_name(value).ok_or_else(|| RiskLevelError {
                key: format!("approvals.autoApprove[{index}]"),
                value: value.clone(),
            })?);
        }
        Ok(Self { levels })
    }

    /// Parses a list such as the value of `--approve` (`safe,low`); `key` names where it was
    /// written, for the error.
    pub fn parse_levels(list: &str, key: &str) -> Result<Vec<RiskLevel>, RiskLevelError> {
        list.split(',')
            .filter(|part| !part.trim().is_empty())
            .map(|part| {
                RiskLevel::from_name(part).ok_or_else(|| RiskLevelError {
                    key: key.to_owned(),
                    value: part.trim().to_owned(),
                })
            })
            .collect()
    }

    /// Applies a front end's choices: `replace` replaces the levels (`--approve`), `yes` adds
    /// safe up to high (`--yes`).
    pub fn with_overrides(mut self, replace: Option<&[RiskLevel]>, yes: bool) -> Self {
        if let Some(levels) = replace {
            self.levels = levels.iter().copied().collect();
        }
        if yes {
            self.levels.extend(YES_LEVELS);
        }
        self
    }

    /// True when calls of this level run without asking.
    pub fn contains(&self, level: RiskLevel) -> bool {
        self.levels.contains(&level)
    }

    /// The auto-approved levels, lowest first.
    pub fn levels(&self) -> impl Iterator<Item = RiskLevel> + '_ {
        self.levels.iter().copied()
    }

    /// The levels plus `level`, lowest first: what to approve so that a call of `level` runs
    /// too, without losing what already runs.
    pub fn with_level(&self, level: RiskLevel) -> Vec<RiskLevel> {
        let mut levels = self.levels.clone();
        levels.insert(level);
        levels.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_widen_and_keep_critical_explicit() {
        let levels = AutoApprove::new([RiskLevel::Safe, RiskLevel::Low]);
        let yes = levels.clone().with_overrides(None, true);
        assert!(yes.contains(RiskLevel::High) && !yes.contains(RiskLevel::Critical));
        let critical = AutoApprove::parse_levels("critical", "--approve").unwrap();
        let explicit = levels.clone().with_overrides(Some(&critical), false);
        assert!(explicit.contains(RiskLevel::Critical) && !explicit.contains(RiskLevel::Safe));
        assert_eq!(
            levels.with_level(RiskLevel::Medium),
            [RiskLevel::Safe, RiskLevel::Low, RiskLevel::Medium]
        );
        let none = ApprovalSettings {
            auto_approve: vec!["none".into()],
            ..ApprovalSettings::default()
        };
        assert_eq!(
            AutoApprove::from_settings(&none).unwrap().levels().count(),
            0
        );
        assert_eq!(
            AutoApprove::parse_levels("safe,bogus", "--approve")
                .unwrap_err()
                .to_string(),
            "invalid risk level `bogus` in --approve; expected one of safe, low, medium, high, critical"
        );
    }
}
