//! What a [`PermissionMode`] changes in the policy chain ([`Gate`](crate::Gate)): `plan`
//! refuses every call rated above `safe`; `acceptEdits` lets file edits run unasked;
//! `bypassPermissions` lets every call but a critical one run unasked. Deny rules, the
//! agent's tool lists, the session database and protected paths are judged before a mode
//! is, so no mode loosens them.

use crate::shell::RiskAssessment;
use agentctl_core::{Decision, PermissionMode, RiskLevel};

/// The file tools `acceptEdits` approves (Claude Code's `Edit`, `MultiEdit`, `Write`).
const EDIT_TOOLS: &[&str] = &["write_file", "edit_file"];

/// The refusal `plan` makes of a call rated above `safe`, before anything can ask or allow.
pub(crate) fn refusal(
    mode: PermissionMode,
    tool: &str,
    rating: &RiskAssessment,
) -> Option<Decision> {
    (mode == PermissionMode::Plan && rating.level > RiskLevel::Safe).then(|| {
        Decision::deny(
            rating.level,
            format!(
                "denied: the permission mode is `plan` (read-only tools only), and {tool} is \
                 rated {} ({}); describe the change in your plan instead of making it",
                rating.level, rating.reason
            ),
        )
    })
}

/// The approval `acceptEdits` or `bypassPermissions` gives a call that would otherwise be
/// judged by the approval levels (never a protected path's, never an `ask` rule's).
pub(crate) fn approval(
    mode: PermissionMode,
    tool: &str,
    rating: &RiskAssessment,
) -> Option<Decision> {
    if rating.level >= RiskLevel::Critical {
        return None;
    }
    match mode {
        PermissionMode::AcceptEdits if EDIT_TOOLS.contains(&tool) => Some(Decision::allow(
            rating.level,
            "file edits are approved: the permission mode is `acceptEdits`",
        )),
        PermissionMode::BypassPermissions => Some(Decision::allow(
            rating.level,
            "approved: the permission mode is `bypassPermissions`",
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::{AutoApprove, Gate, RiskClassifier, builtin_tools};
    use agentctl_core::{Decision, PendingCall, PermissionMode, ToolCall, ToolFilter};
    use serde_json::{Value, json};

    fn decide(mode: PermissionMode, tool: &str, arguments: Value) -> Decision {
        let root = tempfile::tempdir().unwrap();
        let gate = Gate::new(
            AutoApprove::default(),
            RiskClassifier::new().with_root(root.path()),
        );
        let tools = builtin_tools();
        let tool = tools.iter().find(|t| t.name() == tool).unwrap();
        let call = ToolCall {
            id: "1".into(),
            name: tool.name().into(),
            arguments,
            signature: None,
        };
        let filter = ToolFilter::allow_all();
        let pending = PendingCall {
            agent: "a",
            filter: &filter,
            call: &call,
            tool: tool.as_ref(),
        };
        gate.decide_in(&pending, mode)
    }

    #[test]
    fn plan_refuses_above_safe_and_lets_reads_run() {
        let write = json!({"path": "a.txt", "content": "x"});
        let refused = decide(PermissionMode::Plan, "write_file", write.clone());
        assert!(matches!(refused, Decision::Deny { .. }), "{refused:?}");
        assert!(refused.reason().contains("`plan`"), "{}", refused.reason());
        let rm = decide(PermissionMode::Plan, "bash", json!({"command": "rm -rf x"}));
        assert!(matches!(rm, Decision::Deny { .. }) && rm.reason().contains("`plan`"));
        let read = decide(PermissionMode::Plan, "read_file", json!({"path": "a.txt"}));
        assert!(matches!(read, Decision::Allow { .. }), "{read:?}");
        // Without a mode the write needs a person, and nobody answers here.
        let default = decide(PermissionMode::Default, "write_file", write);
        assert!(
            default.reason().contains("nobody can approve"),
            "{default:?}"
        );
    }

    #[test]
    fn accept_edits_approves_edits_only_and_never_a_protected_path() {
        let write = json!({"path": "a.txt", "content": "x"});
        let edit = decide(PermissionMode::AcceptEdits, "write_file", write);
        assert!(matches!(edit, Decision::Allow { .. }), "{edit:?}");
        let bash = decide(
            PermissionMode::AcceptEdits,
            "bash",
            json!({"command": "make"}),
        );
        assert!(matches!(bash, Decision::Deny { .. }), "{bash:?}");
        for path in [".git/config", "./.git/hooks/pre-commit", "sub/../.git/HEAD"] {
            let protected = decide(
                PermissionMode::AcceptEdits,
                "write_file",
                json!({"path": path, "content": "x"}),
            );
            assert!(
                matches!(protected, Decision::Deny { .. }),
                "{path}: {protected:?}"
            );
        }
    }
}
