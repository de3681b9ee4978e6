//! The policy chain, the gate, approvers and the tool listing.

use super::support::Person;
use agentctl_core::{
    AgentDefinition, AgentSource, AgentSpec, ApprovalHint, CallGate, DecidedBy, Decision,
    PendingCall, RiskLevel, Scope, SourceFormat, Tool, ToolCall, ToolFilter, ToolPolicy,
};
use agentctl_tools::{AutoApprove, Gate, RiskClassifier, YES_LEVELS, builtin_tools};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn agent(allow: Option<&[&str]>, deny: &[&str]) -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "reviewer".into(),
            tools: ToolPolicy {
                allow: allow.map(|list| list.iter().map(|s| s.to_string()).collect()),
                deny: deny.iter().map(|s| s.to_string()).collect(),
            },
            ..AgentSpec::default()
        },
        system_prompt: String::new(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "reviewer.md".into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

fn tool(name: &str) -> Arc<dyn Tool> {
    builtin_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
}

fn gate(levels: AutoApprove, root: &std::path::Path) -> Gate {
    Gate::new(levels, RiskClassifier::new().with_root(root))
}

/// The gate's decision, asking when it says so, as the agent loop does.
async fn check(gate: &dyn CallGate, filter: &ToolFilter, name: &str, arguments: Value) -> Decision {
    let tool = tool(name);
    let call = ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments,
        signature: None,
    };
    let pending = PendingCall {
        agent: "reviewer",
        filter,
        call: &call,
        tool: tool.as_ref(),
    };
    match gate.decide(&pending) {
        Decision::Ask { risk, reason } => gate.ask(&pending, risk, &reason).await,
        decided => decided,
    }
}

fn write(path: &str) -> Value {
    json!({"path": path, "content": "x"})
}

#[test]
fn agent_limited_to_read_file_and_grep_cannot_write() {
    let agent = agent(Some(&["read_file", "grep"]), &[]);
    let filter = ToolFilter::new(&agent.spec.tools).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Even with everything below critical auto-approved, the agent's list wins.
    let gate = gate(AutoApprove::new(YES_LEVELS), dir.path());
    let decision = gate.evaluate(&filter, tool("write_file").as_ref(), &write("a.txt"));
    assert_eq!(
        decision.denial(),
        Some("Tool not allowed for this agent: write_file")
    );
    assert!(matches!(
        decision,
        Decision::Deny {
            by: DecidedBy::Policy,
            ..
        }
    ));
}

#[test]
fn listing_goes_through_the_same_chain_and_deny_beats_allow() {
    let agent = agent(Some(&["read_*", "grep", "bash"]), &["read_many_files"]);
    let filter = ToolFilter::new(&agent.spec.tools).unwrap();
    let gate = gate(AutoApprove::default(), std::path::Path::new("."));
    let tools = gate.list(&filter, &builtin_tools());
    let row = |name: &str| tools.iter().find(|t| t.name == name).unwrap().clone();
    assert_eq!(tools.len(), agentctl_core::BUILTIN_TOOLS.len());
    assert!(matches!(
        row("read_file").decision,
        Decision::Allow {
            risk: RiskLevel::Safe,
            ..
        }
    ));
    assert!(!row("read_many_files").allowed);
    assert!(matches!(
        row("read_many_files").decision,
        Decision::Deny { .. }
    ));
    assert_eq!(
        row("write_file").decision.reason(),
        "Tool not allowed for this agent: write_file"
    );
    let bash = row("bash");
    assert!(matches!(
        bash.decision,
        Decision::Ask {
            risk: RiskLevel::Medium,
            ..
        }
    ));
    assert!(bash.mutating);
    assert!(!row("grep").mutating);
    let json = serde_json::to_value(row("grep")).unwrap();
    assert_eq!(json["decision"], "allow");
    assert_eq!(json["risk"], "safe");
}

#[tokio::test]
async fn nobody_to_ask_denies_at_once_with_a_hint_that_keeps_what_runs() {
    let dir = tempfile::tempdir().unwrap();
    let levels = AutoApprove::new([RiskLevel::Safe, RiskLevel::Low]);
    let gate = gate(levels, dir.path());
    let filter = ToolFilter::allow_all();
    let decision = tokio::time::timeout(
        Duration::from_secs(2),
        check(&gate, &filter, "delete_file", json!({"path": "a.txt"})),
    )
    .await
    .expect("nobody to ask must not block");
    let Decision::Deny {
        by,
        reason,
        hint,
        risk,
    } = &decision
    else {
        panic!("{decision:?}")
    };
    assert_eq!((*by, *risk), (DecidedBy::NonTerminal, RiskLevel::High));
    assert_eq!(
        reason,
        "denied: delete_file needs approval (risk high: delete_file makes changes; it is rated high) and nobody can approve it here"
    );
    // The hint names every level to approve, not only the new one: passed as written it lets
    // the run go on.
    assert_eq!(
        hint,
        &Some(ApprovalHint::ApproveLevels {
            levels: vec![RiskLevel::Safe, RiskLevel::Low, RiskLevel::High]
        })
    );
    assert!(
        !reason.contains("--approve"),
        "no front-end wording: {reason}"
    );
    let safe = check(&gate, &filter, "grep", json!({"pattern": "x"})).await;
    assert!(matches!(
        safe,
        Decision::Allow {
            by: DecidedBy::Policy,
            ..
        }
    ));
    let json = serde_json::to_value(&decision).unwrap();
    assert_eq!(json["decision"], "deny");
    assert_eq!(json["by"], "non_terminal");
    assert_eq!(json["hint"]["kind"], "approve_levels");
}

#[tokio::test]
async fn protected_paths_are_high_asked_every_time_and_never_auto_approved() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let filter = ToolFilter::allow_all();
    // --yes approves up to high, yet a write under .git/ is still asked.
    let nobody = gate(AutoApprove::new(YES_LEVELS), dir.path());
    for path in [
        ".git/config",
        "src/../.git/hooks/pre-commit",
        ".agentctl/settings.json",
        ".claude/agents/x.md",
        ".gemini/settings.json",
    ] {
        let decision = check(&nobody, &filter, "write_file", write(path)).await;
        let Decision::Deny { risk, hint, .. } = &decision else {
            panic!("{path}: {decision:?}")
        };
        assert!(*risk >= RiskLevel::High, "{path}");
        assert_eq!(hint, &Some(ApprovalHint::AskAPerson), "{path}");
    }
    // The session database is never writable by a tool, whoever would approve it.
    let asking = Person::new(gate(AutoApprove::new(YES_LEVELS), dir.path()), "a\na\na\n");
    for path in [".agentctl/sessions.db", ".agentctl/sessions.db-wal"] {
        let decision = check(&asking, &filter, "delete_file", json!({"path": path})).await;
        assert_eq!(
            decision.denial(),
            Some("delete_file may not change the session database"),
            "{path}"
        );
    }
    // A person may allow a protected write, but "always" is not remembered for it.
    let first = check(
        &asking,
        &filter,
        "edit_file",
        json!({"path": ".git/config", "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert!(
        matches!(
            first,
            Decision::Allow {
                by: DecidedBy::User,
                ..
            }
        ),
        "{first:?}"
    );
    let second = gate_decides(
        &asking.gate,
        &filter,
        "edit_file",
        json!({"path": ".git/config", "old_string": "a", "new_string": "b"}),
    );
    assert!(matches!(second, Decision::Ask { .. }), "{second:?}");
}

fn gate_decides(gate: &Gate, filter: &ToolFilter, name: &str, arguments: Value) -> Decision {
    gate.evaluate(filter, tool(name).as_ref(), &arguments)
}

#[tokio::test]
async fn a_persons_answers_apply_and_always_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let gate = Person::new(gate(AutoApprove::default(), dir.path()), "maybe\nA\nn\n");
    let filter = ToolFilter::allow_all();
    let first = check(&gate, &filter, "write_file", write("src/main.rs")).await;
    assert!(
        matches!(
            first,
            Decision::Allow {
                by: DecidedBy::User,
                ..
            }
        ),
        "{first:?}"
    );
    // Remembered for the same or lower risk, without reading input.
    let again = check(&gate, &filter, "write_file", write("src/lib.rs")).await;
    assert_eq!(again.reason(), "write_file was approved for this session");
    // A riskier tool is asked again; the user says no.
    let riskier = check(&gate, &filter, "delete_file", json!({"path": "a.txt"})).await;
    assert!(matches!(
        riskier,
        Decision::Deny {
            by: DecidedBy::User,
            ..
        }
    ));
    assert!(
        riskier
            .denial()
            .unwrap()
            .starts_with("denied: the user refused delete_file")
    );
    // End of input is a no, never a yes.
    let eof = check(
        &gate,
        &filter,
        "edit_file",
        json!({"path": "a", "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert!(eof.denial().is_some());
}

#[tokio::test]
async fn a_gate_nobody_answers_refuses_when_asked_itself() {
    let dir = tempfile::tempdir().unwrap();
    let gate = gate(AutoApprove::default(), dir.path());
    let tool = tool("bash");
    let call = ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        arguments: json!({"command": "rm -rf target"}),
        signature: None,
    };
    let filter = ToolFilter::allow_all();
    let pending = PendingCall {
        agent: "reviewer",
        filter: &filter,
        call: &call,
        tool: tool.as_ref(),
    };
    let decision = gate.ask(&pending, RiskLevel::High, "rm -rf").await;
    let Decision::Deny { by, hint, .. } = decision else {
        panic!("{decision:?}")
    };
    assert_eq!(by, DecidedBy::NonTerminal);
    assert!(hint.is_some());
}
