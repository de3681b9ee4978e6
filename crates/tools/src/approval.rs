//! The approval policy: which calls run at once, which are refused, which need a yes.
//!
//! [`ApprovalPolicy::decide`] is the one place that turns (tool, risk, allowed by the agent)
//! into a [`Decision`]. Levels are auto-approved by set membership: the settings'
//! `approvals.autoApprove` list, replaced by `--approve safe,low` and widened by `--yes` (safe
//! up to high). Critical is only auto-approved when it is named explicitly.

use crate::risk::{RiskLevelError, parse_risk_level};
use crate::shell::RiskAssessment;
use agentctl_core::ApprovalSettings;
use agentctl_runtime::RiskLevel;
use serde::Serialize;
use std::collections::BTreeSet;

/// What to do with one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run it.
    Allow,
    /// Refuse it; the reason becomes the model's tool result.
    Deny {
        /// Why (`Tool not allowed for this agent: write_file`).
        reason: String,
    },
    /// Ask the user first.
    NeedsApproval {
        /// The call's risk.
        risk: RiskLevel,
        /// Why it is that risky.
        reason: String,
    },
}

/// Which risk levels run without asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalPolicy {
    auto: BTreeSet<RiskLevel>,
}

impl Default for ApprovalPolicy {
    /// Safe calls run; everything else is asked.
    fn default() -> Self {
        Self::new([RiskLevel::Safe])
    }
}

/// The levels `--yes` approves: everything but critical.
pub const YES_LEVELS: [RiskLevel; 4] = [
    RiskLevel::Safe,
    RiskLevel::Low,
    RiskLevel::Medium,
    RiskLevel::High,
];

impl ApprovalPolicy {
    /// A policy approving exactly these levels.
    pub fn new(levels: impl IntoIterator<Item = RiskLevel>) -> Self {
        Self {
            auto: levels.into_iter().collect(),
        }
    }

    /// The policy of the settings' `approvals.autoApprove`; an empty list means the default
    /// (safe only), `["none"]` approves nothing.
    pub fn from_settings(settings: &ApprovalSettings) -> Result<Self, RiskLevelError> {
        if settings.auto_approve.is_empty() {
            return Ok(Self::default());
        }
        let mut auto = BTreeSet::new();
        for (index, value) in settings.auto_approve.iter().enumerate() {
            if value.trim().eq_ignore_ascii_case("none") {
                continue;
            }
            auto.insert(parse_risk_level(value).ok_or_else(|| RiskLevelError {
                key: format!("approvals.autoApprove[{index}]"),
                value: value.clone(),
            })?);
        }
        Ok(Self { auto })
    }

    /// Parses the value of `--approve` (`safe,low`).
    pub fn parse_levels(list: &str) -> Result<Vec<RiskLevel>, RiskLevelError> {
        list.split(',')
            .filter(|part| !part.trim().is_empty())
            .map(|part| {
                parse_risk_level(part).ok_or_else(|| RiskLevelError {
                    key: "--approve".to_owned(),
                    value: part.trim().to_owned(),
                })
            })
            .collect()
    }

    /// Applies the command line: `--approve` replaces the levels, `--yes` adds safe to high.
    pub fn with_cli(mut self, approve: Option<&[RiskLevel]>, yes: bool) -> Self {
        if let Some(levels) = approve {
            self.auto = levels.iter().copied().collect();
        }
        if yes {
            self.auto.extend(YES_LEVELS);
        }
        self
    }

    /// True when calls of this level run without asking.
    pub fn auto_approves(&self, level: RiskLevel) -> bool {
        self.auto.contains(&level)
    }

    /// The auto-approved levels, lowest first.
    pub fn levels(&self) -> impl Iterator<Item = RiskLevel> + '_ {
        self.auto.iter().copied()
    }

    /// Decides one call.
    ///
    /// ```
    /// use agentctl_runtime::RiskLevel;
    /// use agentctl_tools::{ApprovalPolicy, Decision};
    ///
    /// let policy = ApprovalPolicy::default();
    /// assert_eq!(policy.decide("grep", RiskLevel::Safe, true), Decision::Allow);
    /// assert_eq!(
    ///     policy.decide("write_file", RiskLevel::Low, false),
    ///     Decision::Deny { reason: "Tool not allowed for this agent: write_file".into() }
    /// );
    /// assert!(matches!(policy.decide("bash", RiskLevel::Medium, true), Decision::NeedsApproval { .. }));
    /// ```
    pub fn decide(
        &self,
        tool: &str,
        risk: impl Into<RiskAssessment>,
        allowed_by_agent: bool,
    ) -> Decision {
        if !allowed_by_agent {
            return Decision::Deny {
                reason: not_allowed(tool),
            };
        }
        let risk = risk.into();
        if self.auto_approves(risk.level) {
            Decision::Allow
        } else {
            Decision::NeedsApproval {
                risk: risk.level,
                reason: risk.reason,
            }
        }
    }
}

/// The refusal fed to the model when an agent calls a tool outside its allowed set.
pub fn not_allowed(tool: &str) -> String {
    format!("Tool not allowed for this agent: {tool}")
}

/// The flag that would have approved a call of this level.
pub(crate) fn approve_hint(level: RiskLevel) -> String {
    if level == RiskLevel::Critical {
        "pass --approve critical".to_owned()
    } else {
        format!("pass --approve {level} or --yes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_cli_and_critical() {
        let settings = ApprovalSettings {
            auto_approve: vec!["safe".into(), "LOW".into()],
        };
        let policy = ApprovalPolicy::from_settings(&settings).unwrap();
        assert!(policy.auto_approves(RiskLevel::Low) && !policy.auto_approves(RiskLevel::Medium));
        let yes = policy.clone().with_cli(None, true);
        assert!(yes.auto_approves(RiskLevel::High) && !yes.auto_approves(RiskLevel::Critical));
        let levels = ApprovalPolicy::parse_levels("critical").unwrap();
        let explicit = policy.with_cli(Some(&levels), false);
        assert!(explicit.auto_approves(RiskLevel::Critical));
        assert!(!explicit.auto_approves(RiskLevel::Safe));
        let bad = ApprovalSettings {
            auto_approve: vec!["safe".into(), "meh".into()],
        };
        assert_eq!(
            ApprovalPolicy::from_settings(&bad).unwrap_err().key,
            "approvals.autoApprove[1]"
        );
        let none = ApprovalSettings {
            auto_approve: vec!["none".into()],
        };
        assert_eq!(
            ApprovalPolicy::from_settings(&none)
                .unwrap()
                .levels()
                .count(),
            0
        );
    }
}
