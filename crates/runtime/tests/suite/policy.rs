//! Secure by default: a runtime given no approval policy runs `safe` calls only and refuses
//! the rest with a reason the model reads; trusting every call is the named
//! `ApprovalPolicy::TrustEverything`.

use super::support::{Queue, agent, calls, collect, runtime, text};
use agentctl_core::{
    ApprovalPolicy, DecidedBy, Message, RiskLevel, RunEvent, RunOptions, ToolRegistry, Verdict,
};
use agentctl_test_support::{Behaviour, FakeTool, LookupTool};
use agentctl_tools::{BuiltinToolsConfig, register_builtin_tools};
use serde_json::json;
use std::sync::Arc;

/// The built-in tools (`bash` among them), a safe `lookup` and a `deploy` that states no
/// risk of its own beyond medium — an embedder's custom tool.
fn tools() -> ToolRegistry {
    let mut tools = ToolRegistry::new();
    register_builtin_tools(&mut tools, &BuiltinToolsConfig::default());
    tools.register_typed(LookupTool);
    tools.register_arc(
        FakeTool::new("deploy", Behaviour::Reply("deployed".into()))
            .risk(RiskLevel::Medium)
            .mutating()
            .shared(),
    );
    tools
}

/// One model turn calling `bash rm -rf x`, `deploy` and `lookup`, then an answer; returns
/// the events and the tool results the model read, in call order.
async fn run(
    runtime: agentctl_runtime::Runtime,
    queue: &Queue,
    dir: &std::path::Path,
) -> (Vec<RunEvent>, Vec<(String, String, bool)>) {
    let options = RunOptions::new().working_dir(dir);
    let events = collect(runtime.run(&agent("ops"), "clean up and deploy", options)).await;
    let results = queue.requests()[1]
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                name,
                content,
                is_error,
                ..
            } => Some((name.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect();
    (events, results)
}

fn queue() -> Arc<Queue> {
    Queue::new(vec![
        calls(&[
            ("1", "bash", json!({"command": "rm -rf x"})),
            ("2", "deploy", json!({})),
            ("3", "lookup", json!({"key": "capital"})),
        ]),
        text("done"),
    ])
}

#[tokio::test]
async fn without_a_policy_only_safe_calls_run_and_the_model_reads_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("x")).unwrap();
    let queue = queue();
    let (events, results) = run(runtime(Arc::clone(&queue), tools()), &queue, dir.path()).await;

    assert!(dir.path().join("x").is_dir(), "rm -rf x ran");
    for (name, risk) in [("bash", "medium"), ("deploy", "medium")] {
        let (_, content, is_error) = results.iter().find(|(n, ..)| n == name).unwrap();
        assert!(is_error, "{name}: {content}");
        assert_eq!(
            content,
            &format!(
                "denied: {name} is rated {risk}, and this runtime has no approval policy: only \
                 safe calls run"
            )
        );
    }
    assert_eq!(
        results.iter().find(|(n, ..)| n == "lookup").unwrap(),
        &("lookup".to_owned(), "Paris".to_owned(), false)
    );
    // Each decision is an event, by the policy; nobody was asked.
    let decisions: Vec<(&str, Verdict, DecidedBy)> = events
        .iter()
        .filter_map(|event| match event {
            RunEvent::ToolDecision {
                name, decision, by, ..
            } => Some((name.as_str(), *decision, *by)),
            _ => None,
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("bash", Verdict::Deny, DecidedBy::Policy),
            ("deploy", Verdict::Deny, DecidedBy::Policy),
            ("lookup", Verdict::Allow, DecidedBy::Policy),
        ]
    );
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, RunEvent::ApprovalRequested { .. }))
    );
}

#[tokio::test]
async fn trusting_everything_is_a_named_choice_that_runs_every_allowed_call() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("x")).unwrap();
    let queue = queue();
    let runtime =
        runtime(Arc::clone(&queue), tools()).with_gate(Arc::new(ApprovalPolicy::TrustEverything));
    let (_, results) = run(runtime, &queue, dir.path()).await;

    assert!(!dir.path().join("x").exists(), "{results:?}");
    for (name, _, is_error) in &results {
        assert!(!is_error, "{results:?}");
        assert!(["bash", "deploy", "lookup"].contains(&name.as_str()));
    }
    assert_eq!(results[1].1, "deployed");
    assert_eq!(results[2].1, "Paris");
}

#[tokio::test]
async fn trusting_everything_still_keeps_to_the_agents_tool_lists() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Queue::new(vec![calls(&[("1", "deploy", json!({}))]), text("done")]);
    let mut ops = agent("ops");
    ops.spec.tools.deny = vec!["deploy".into()];
    let runtime =
        runtime(Arc::clone(&queue), tools()).with_gate(Arc::new(ApprovalPolicy::TrustEverything));
    let events =
        collect(runtime.run(&ops, "deploy", RunOptions::new().working_dir(dir.path()))).await;
    let refused = events.iter().any(|event| {
        matches!(event, RunEvent::ToolResult { name, content, is_error: true, .. }
            if name == "deploy" && content == "Tool not allowed for this agent: deploy")
    });
    assert!(refused, "{events:#?}");
}
