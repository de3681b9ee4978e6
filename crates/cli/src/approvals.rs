//! Approval flags and how the command line words approval hints.

use crate::args::ApprovalArgs;
use agentctl_core::{ApprovalHint, RiskLevel};
use agentctl_session::ApprovalChoice;
use agentctl_session::tools::AutoApprove;

/// `--approve LEVELS` and `--yes`, checked.
pub(crate) fn choice(args: &ApprovalArgs) -> anyhow::Result<ApprovalChoice> {
    let replace = args
        .approve
        .as_deref()
        .map(|list| AutoApprove::parse_levels(list, "--approve"))
        .transpose()?;
    Ok(ApprovalChoice {
        replace,
        yes: args.yes,
    })
}

/// What the user can do so that a refused call runs next time, in command-line terms.
pub(crate) fn hint_text(hint: &ApprovalHint) -> String {
    match hint {
        ApprovalHint::ApproveLevels { levels } => {
            let list: Vec<&str> = levels.iter().map(|level| level.as_str()).collect();
            let yes = !levels.contains(&RiskLevel::Critical);
            format!(
                "pass --approve {}{}",
                list.join(","),
                if yes { " (or --yes)" } else { "" }
            )
        }
        ApprovalHint::AskAPerson => {
            "it touches a protected path: run on a terminal to be asked each time".to_owned()
        }
        ApprovalHint::AskedByRule { rule } => {
            format!("the permission rule `{rule}` asks each time: run on a terminal to be asked")
        }
        _ => "run on a terminal to be asked".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_every_level_to_pass() {
        let hint = ApprovalHint::ApproveLevels {
            levels: vec![RiskLevel::Safe, RiskLevel::Medium],
        };
        assert_eq!(hint_text(&hint), "pass --approve safe,medium (or --yes)");
        let critical = ApprovalHint::ApproveLevels {
            levels: vec![RiskLevel::Safe, RiskLevel::Critical],
        };
        assert_eq!(hint_text(&critical), "pass --approve safe,critical");
    }
}
