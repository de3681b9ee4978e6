//! Policy, gate, approvers and the effective tool set.

use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, Scope, SourceFormat, ToolPolicy};
use agentctl_runtime::{RiskLevel, ToolDecision, ToolFilter};
use agentctl_tools::{
    ApprovalAnswer, ApprovalPolicy, ApprovalRequest, Approver, DecidedBy, Decision,
    EffectiveDecision, Gate, NonTerminalApprover, RiskClassifier, TerminalApprover, builtin_tools,
    effective_tools, render_prompt,
};
use serde_json::json;
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

fn request(tool: &str, risk: RiskLevel) -> ApprovalRequest {
    ApprovalRequest {
        agent: "reviewer".into(),
        tool: tool.into(),
        risk,
        reason: format!("{tool} changes a project file"),
        arguments: json!({"path": "src/main.rs", "content": "fn main() {}\n"}),
    }
}

#[test]
fn agent_limited_to_read_file_and_grep_cannot_write() {
    let agent = agent(Some(&["read_file", "grep"]), &[]);
    let filter = ToolFilter::new(&agent.spec.tools).unwrap();
    let allowed = filter.decide("write_file") == ToolDecision::Allow;
    let decision = ApprovalPolicy::default().decide("write_file", RiskLevel::Low, allowed);
    assert_eq!(
        decision,
        Decision::Deny {
            reason: "Tool not allowed for this agent: write_file".into()
        }
    );
    // Even auto-approved levels do not override the agent's list.
    let yes = ApprovalPolicy::default().with_cli(None, true);
    assert!(matches!(
        yes.decide("write_file", RiskLevel::Low, false),
        Decision::Deny { .. }
    ));
}

#[test]
fn effective_tool_set_deny_beats_allow() {
    let agent = agent(Some(&["read_*", "grep", "bash"]), &["read_many_files"]);
    let tools = effective_tools(
        &agent,
        &builtin_tools(),
        &RiskClassifier::new(),
        &ApprovalPolicy::default(),
    )
    .unwrap();
    let row = |name: &str| tools.iter().find(|t| t.name == name).unwrap().clone();
    assert_eq!(tools.len(), 8);
    assert_eq!(
        (row("read_file").decision, row("read_file").risk),
        (EffectiveDecision::Allow, RiskLevel::Safe)
    );
    assert!(!row("read_many_files").allowed);
    assert_eq!(row("read_many_files").decision, EffectiveDecision::Deny);
    assert_eq!(
        row("write_file").reason,
        "Tool not allowed for this agent: write_file"
    );
    let bash = row("bash");
    assert_eq!(
        (bash.decision, bash.risk, bash.mutating),
        (EffectiveDecision::Ask, RiskLevel::Medium, true)
    );
    let json = serde_json::to_value(row("grep")).unwrap();
    assert_eq!(json["decision"], "allow");
    assert_eq!(json["risk"], "safe");
}

#[tokio::test]
async fn non_terminal_denies_at_once() {
    let gate = Gate::new(ApprovalPolicy::default(), Arc::new(NonTerminalApprover));
    let record = tokio::time::timeout(
        Duration::from_secs(2),
        gate.check(&request("write_file", RiskLevel::Low), true),
    )
    .await
    .expect("the non-terminal approver must not block");
    assert_eq!(record.by, DecidedBy::NonTerminal);
    assert_eq!(
        record.denial(),
        Some(
            "denied: write_file needs approval (risk low) and stdin is not a terminal; pass --approve low or --yes"
        )
    );
    let critical = gate
        .check(&request("system_shutdown", RiskLevel::Critical), true)
        .await;
    assert!(critical.reason.ends_with("pass --approve critical"));
    let safe = gate.check(&request("grep", RiskLevel::Safe), true).await;
    assert!(safe.is_allowed() && safe.by == DecidedBy::Policy);
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["decision"], "deny");
    assert_eq!(json["by"], "non_terminal");
}

#[tokio::test]
async fn terminal_approver_reads_answers_and_remembers_always() {
    let input = b"maybe\nA\nn\n".to_vec();
    let approver = TerminalApprover::with_io(
        Box::new(std::io::Cursor::new(input)),
        Box::new(std::io::sink()),
    );
    let gate = Gate::new(ApprovalPolicy::default(), Arc::new(approver));
    let first = gate
        .check(&request("write_file", RiskLevel::Low), true)
        .await;
    assert!(
        first.is_allowed() && first.by == DecidedBy::User,
        "{first:?}"
    );
    // Remembered for the same or lower risk, without reading input.
    let again = gate
        .check(&request("write_file", RiskLevel::Low), true)
        .await;
    assert_eq!(again.reason, "write_file was approved for this session");
    // A riskier call of the same tool is asked again; the user says no.
    let riskier = gate
        .check(&request("write_file", RiskLevel::High), true)
        .await;
    assert_eq!(riskier.by, DecidedBy::User);
    assert!(
        riskier
            .denial()
            .unwrap()
            .starts_with("denied: the user refused write_file")
    );
    // End of input is a no, never a yes.
    let eof = gate
        .check(&request("edit_file", RiskLevel::Low), true)
        .await;
    assert!(!eof.is_allowed());
}

#[tokio::test]
async fn non_terminal_ask_itself_says_no() {
    let answer = tokio::time::timeout(
        Duration::from_secs(1),
        NonTerminalApprover.ask(&request("bash", RiskLevel::Medium)),
    )
    .await
    .unwrap();
    assert_eq!(answer, ApprovalAnswer::No);
}

#[test]
fn approval_prompt_snapshot() {
    let mut req = request("bash", RiskLevel::High);
    req.reason = "rm -rf removes files recursively".into();
    req.arguments = json!({"command": "rm -rf target", "timeout_secs": 60});
    insta::assert_snapshot!(render_prompt(&req));
}
