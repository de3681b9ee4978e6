//! The `task` tool: concurrent sub-agents in `sub:` scopes, depth limit, schema checks,
//! budgets, cancellation and approvals.

use agentctl_core::{
    CallGate, DecidedBy, Decision, Message, PendingCall, RiskLevel, RunError, RunOptions, Tool,
    ToolContext, ToolRegistry,
};
use agentctl_session::{TaskConfig, TaskTool};
use agentctl_store::{ContextScope, MessageLog as _, MessageQuery, RunLog as _, RunStatus};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

pub mod fixtures;

/// Options of the top-level run of `main`: it runs under its store run's id.
fn top_run(fixture: &Fixture) -> RunOptions {
    RunOptions::new().run_id(fixture.parent.id.to_string())
}

use fixtures::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tasks_of_one_turn_run_concurrently_in_their_own_sub_scopes() {
    let fixture = setup(
        TaskConfig::default(),
        vec![agent("main")],
        "plan the release",
    );
    let meeting = Rendezvous::new(2);
    let rendezvous = FakeTool::new("rendezvous", Behaviour::Rendezvous(meeting.clone())).shared();
    let (runtime, server) = build_runtime(
        &fixture,
        |request| {
            let goal = first_user(request);
            if goal.starts_with("# Task") {
                let name = if goal.contains("alpha") {
                    "alpha"
                } else {
                    "beta"
                };
                return if last_is_user(request) {
                    calls(&[("r1", "rendezvous", json!({}))])
                } else {
                    text(&format!("{name} result"))
                };
            }
            if last_is_user(request) {
                calls(&[
                    (
                        "t1",
                        "task",
                        json!({"goal": "check alpha", "hints": ["look at A"]}),
                    ),
                    ("t2", "task", json!({"goal": "check beta"})),
                ])
            } else {
                text("both done")
            }
        },
        vec![rendezvous],
    )
    .await;
    let result = runtime
        .run_to_completion(&agent("main"), "plan the release", top_run(&fixture))
        .await
        .unwrap();
    assert_eq!(result.text, "both done");
    assert_eq!(meeting.max_in_flight(), 2, "the children overlapped");

    // The parent read both results, each with its budget report.
    let tool_results: Vec<(String, bool)> = result
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool {
                content, is_error, ..
            } => Some((content.clone(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(tool_results.len(), 2);
    assert!(
        tool_results[0]
            .0
            .starts_with("alpha result\n\n[task sub-agent main, run ")
    );
    assert!(
        tool_results[1]
            .0
            .starts_with("beta result\n\n[task sub-agent main, run ")
    );
    for (content, is_error) in &tool_results {
        assert!(!is_error, "{content}");
        assert!(
            content.contains(": completed; turns 2/10; tokens 42/200000;"),
            "{content}"
        );
    }

    // The children's first messages: goal, the parent's recent turns, hints.
    let requests = server.model_requests();
    let alpha = requests
        .iter()
        .find(|r| first_user(r).contains("check alpha"))
        .unwrap();
    let first = first_user(alpha);
    assert!(first.starts_with("# Task\n\ncheck alpha\n"), "{first}");
    assert!(first.contains("## Context: recent turns of main\n\n- user: plan the release"));
    assert!(first.contains("## Hints\n\n- look at A"));
    // The child's system prompt: its own, then its task's capability context.
    let system = alpha.system.as_deref().unwrap();
    assert!(
        system.starts_with("You are main.\n\n# Task context\n\n## Resource pool\n"),
        "{system}"
    );
    assert!(
        system.contains("- ID: t1\n- Description: check alpha\n"),
        "{system}"
    );

    // Store: two children of the parent run, each in its own sub scope, all steps recorded.
    let kids = children(&fixture);
    assert_eq!(kids.len(), 2);
    for kid in &kids {
        assert_eq!(kid.parent_run_id, Some(fixture.parent.id));
        assert_eq!(kid.context_scope, ContextScope::sub("main", kid.id));
        assert_eq!(kid.status, RunStatus::Completed);
        assert_eq!(kid.usage.input_tokens, 30);
        let messages = fixture
            .store
            .messages(
                &fixture.session,
                &MessageQuery::scope(kid.context_scope.clone()),
            )
            .unwrap();
        let roles: Vec<&str> = messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
        assert!(messages.iter().all(|m| !m.visible));
        assert_eq!(
            step_kinds(&fixture, kid),
            [
                "task",
                "model_call",
                "tool_decision",
                "model_call",
                "task_result",
                "handoff"
            ]
        );
    }
    assert_ne!(kids[0].context_scope, kids[1].context_scope);

    // The timeline shows the parent's visible messages and the two summaries, no child step.
    let timeline = fixture
        .store
        .messages(&fixture.session, &MessageQuery::timeline())
        .unwrap();
    let texts: Vec<String> = timeline
        .iter()
        .map(|m| match &m.message {
            Message::User { content } => content.clone(),
            Message::Assistant { content, .. } => content.clone().unwrap_or_default(),
            Message::Tool { content, .. } => content.clone(),
        })
        .collect();
    assert_eq!(texts.len(), 3, "{texts:#?}");
    assert_eq!(texts[0], "plan the release");
    // The two tasks ran at once: their summaries may come in either order.
    let summaries = &texts[1..];
    assert!(
        summaries
            .iter()
            .all(|summary| summary.starts_with("Handoff from main (run ")),
        "{summaries:#?}"
    );
    for result in ["alpha result", "beta result"] {
        assert!(
            summaries
                .iter()
                .any(|summary| summary.ends_with(&format!("completed):\n{result}"))),
            "{summaries:#?}"
        );
    }
    assert!(
        timeline
            .iter()
            .all(|m| m.context_scope == ContextScope::Main
                || m.context_scope == fixture.parent.context_scope)
    );
}

#[tokio::test]
async fn nesting_stops_at_the_depth_limit_and_nested_children_find_their_parent() {
    let config = TaskConfig {
        max_depth: 2,
        ..TaskConfig::default()
    };
    let fixture = setup(config, vec![agent("main")], "go deep");
    let (runtime, _server) = build_runtime(
        &fixture,
        |request| {
            let goal = first_user(request);
            let next = if goal.contains("level two") {
                "level three"
            } else if goal.contains("level one") {
                "level two"
            } else {
                "level one"
            };
            if last_is_user(request) {
                calls(&[("t", "task", json!({"goal": next}))])
            } else {
                let Message::Tool { content, .. } = last(request) else {
                    panic!()
                };
                text(&format!(
                    "{} saw: {}",
                    goal.lines().nth(2).unwrap_or("top"),
                    content
                ))
            }
        },
        vec![],
    )
    .await;
    let result = runtime
        .run_to_completion(&agent("main"), "go deep", top_run(&fixture))
        .await
        .unwrap();
    // The level-two child (depth 2) was refused a third level.
    assert!(
        result
            .text
            .contains("task refused: this agent runs at sub-agent depth 2 and the limit is 2"),
        "{}",
        result.text
    );
    let kids = children(&fixture);
    assert_eq!(kids.len(), 2, "no third level was started");
    assert_eq!(kids[0].parent_run_id, Some(fixture.parent.id));
    assert_eq!(kids[1].parent_run_id, Some(kids[0].id));

    // A direct call at the limit starts nothing.
    let ctx = ToolContext::new(
        fixture.parent.id.to_string(),
        "main",
        "c",
        Path::new("."),
        CancellationToken::new(),
    )
    .with_sub_agents(Arc::new(runtime.clone()), 2);
    let error = runtime
        .tools()
        .get("task")
        .unwrap()
        .call(json!({"goal": "x"}), &ctx)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("depth 2 and the limit is 2"));
    assert_eq!(children(&fixture).len(), 2);
}

#[tokio::test]
async fn a_schema_result_is_checked_and_repaired_once() {
    let fixture = setup(TaskConfig::default(), vec![agent("main")], "count");
    let (runtime, server) = build_runtime(
        &fixture,
        |request| match last(request) {
            Message::User { content } if content.starts_with("Your answer does not match") => {
                text("```json\n{\"count\": 3}\n```")
            }
            _ => text("three"),
        },
        vec![],
    )
    .await;
    let schema = json!({
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"]
    });
    let out = call_task(
        &fixture,
        &runtime,
        json!({"goal": "count the files", "schema": schema}),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(
        out.content
            .starts_with("{\"count\":3}\n\n[task sub-agent main"),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("turns 2/10 (1 repair)"),
        "{}",
        out.content
    );
    let requests = server.model_requests();
    assert!(first_user(&requests[0]).contains("## Result format"));
    // The repair turn continues the child's conversation.
    assert_eq!(requests[1].messages.len(), 3);
    let kid = &children(&fixture)[0];
    assert_eq!(kid.status, RunStatus::Completed);
    let handoff = fixture
        .store
        .messages(&fixture.session, &MessageQuery::timeline())
        .unwrap()
        .pop()
        .unwrap();
    assert!(format!("{:?}", handoff.message).contains(r#"{\"count\":3}"#));
}

#[tokio::test]
async fn a_result_that_stays_invalid_is_an_error_listing_the_violations() {
    let fixture = setup(TaskConfig::default(), vec![agent("main")], "count");
    let (runtime, _server) =
        build_runtime(&fixture, |_| text(r#"{"count": "three"}"#), vec![]).await;
    let schema = json!({
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"]
    });
    let error = call_task(
        &fixture,
        &runtime,
        json!({"goal": "count", "schema": schema}),
        CancellationToken::new(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with(
            "task result does not match the schema, even after one repair turn:\n- Invalid type for count: expected integer, got string\n"
        ),
        "{error}"
    );
    assert!(
        error.contains("invalid_result; turns 2/10 (1 repair)"),
        "{error}"
    );
    let kid = &children(&fixture)[0];
    assert_eq!(kid.status, RunStatus::Failed);

    // A broken schema is refused before anything starts.
    let error = call_task(
        &fixture,
        &runtime,
        json!({"goal": "count", "schema": {"type": 5}}),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("not a valid JSON Schema"));
    assert_eq!(children(&fixture).len(), 1);
}

#[tokio::test]
async fn budgets_are_enforced_and_reported() {
    // Turns: the child keeps calling tools.
    let config = TaskConfig {
        max_turns: 2,
        ..TaskConfig::default()
    };
    let fixture = setup(config, vec![agent("main")], "loop");
    let (runtime, _server) =
        build_runtime(&fixture, |_| calls(&[("x", "nothing", json!({}))]), vec![]).await;
    let error = call_task(
        &fixture,
        &runtime,
        json!({"goal": "loop"}),
        CancellationToken::new(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with("task stopped (max_turns): no final answer within 2 turns"),
        "{error}"
    );
    assert!(error.contains("max_turns; turns 2/2;"), "{error}");

    // Tokens: 27 tokens per call, a budget of 30 stops the child after its second call (while
    // it pauses in a tool).
    let config = TaskConfig {
        max_tokens: 30,
        ..TaskConfig::default()
    };
    let fixture = setup(config, vec![agent("main")], "spend");
    let pause: Arc<dyn Tool> = sleep("sleep", Duration::from_millis(100));
    let (runtime, _server) = build_runtime(
        &fixture,
        |_| calls(&[("x", "sleep", json!({}))]),
        vec![pause],
    )
    .await;
    let error = call_task(
        &fixture,
        &runtime,
        json!({"goal": "spend"}),
        CancellationToken::new(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with(
            "task stopped (budget exceeded: tokens): used 54 tokens, over the budget of 30"
        ),
        "{error}"
    );
    assert_eq!(children(&fixture)[0].status, RunStatus::Failed);
    assert_eq!(children(&fixture)[0].usage.input_tokens, 40);

    // Time: the child sleeps in a tool.
    let config = TaskConfig {
        timeout: Duration::from_millis(200),
        ..TaskConfig::default()
    };
    let fixture = setup(config, vec![agent("main")], "wait");
    let sleep: Arc<dyn Tool> = sleep("sleep", Duration::from_secs(10));
    let (runtime, _server) = build_runtime(
        &fixture,
        |_| calls(&[("s", "sleep", json!({}))]),
        vec![sleep],
    )
    .await;
    let started = Instant::now();
    let error = call_task(
        &fixture,
        &runtime,
        json!({"goal": "wait"}),
        CancellationToken::new(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        error.starts_with("task stopped (budget exceeded: timeout): no result within 200 ms"),
        "{error}"
    );
    let kid = &children(&fixture)[0];
    assert_eq!(kid.status, RunStatus::Failed);
    // The stop is in the timeline's handoff as an open item.
    let handoff = fixture
        .store
        .messages(&fixture.session, &MessageQuery::timeline())
        .unwrap()
        .pop()
        .unwrap();
    assert!(
        format!("{:?}", handoff.message)
            .contains("Open items:\\n- stopped (budget exceeded: timeout)")
    );
}

#[tokio::test]
async fn cancelling_the_parent_cancels_the_child_and_closes_its_run() {
    let fixture = setup(TaskConfig::default(), vec![agent("main")], "wait");
    let sleep: Arc<dyn Tool> = sleep("sleep", Duration::from_secs(10));
    let (runtime, _server) = build_runtime(
        &fixture,
        |request| {
            if first_user(request).starts_with("# Task") {
                calls(&[("s", "sleep", json!({}))])
            } else {
                calls(&[("t", "task", json!({"goal": "wait for it"}))])
            }
        },
        vec![sleep],
    )
    .await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(150)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let outcome = runtime
        .run_to_completion(&agent("main"), "wait", top_run(&fixture).cancel(cancel))
        .await;
    assert!(matches!(outcome, Err(RunError::Cancelled)), "{outcome:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // The child's run is closed on the store thread, once its task's future is dropped.
    let deadline = Instant::now() + Duration::from_secs(10);
    while children(&fixture)[0].status == RunStatus::Running && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let kid = &children(&fixture)[0];
    assert_eq!(kid.status, RunStatus::Cancelled);
    assert!(kid.finished_at.is_some());
    // No handoff for a cancelled task: the timeline holds only the prompt.
    let timeline = fixture
        .store
        .messages(&fixture.session, &MessageQuery::timeline())
        .unwrap();
    assert_eq!(timeline.len(), 1);
}

/// Asks about `danger`; nobody can answer, so it refuses at once (like a run without terminal).
struct NonInteractive;

#[async_trait::async_trait]
impl CallGate for NonInteractive {
    fn decide(&self, call: &PendingCall<'_>) -> Decision {
        if call.call.name == "danger" {
            Decision::Ask {
                risk: RiskLevel::High,
                reason: "danger is dangerous".into(),
            }
        } else {
            Decision::allow(RiskLevel::Safe, "safe")
        }
    }
    async fn ask(&self, _call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> Decision {
        Decision::Deny {
            risk,
            reason: format!("not run: {reason} and nobody can approve it"),
            by: DecidedBy::NonTerminal,
            hint: None,
        }
    }
}

#[tokio::test]
async fn a_childs_call_needing_approval_reaches_the_runtime_gate() {
    let fixture = setup(TaskConfig::default(), vec![agent("main")], "risky");
    // A risky tool that must never run.
    let danger = FakeTool::new("danger", Behaviour::Sleep(Duration::from_secs(10)))
        .risk(RiskLevel::High)
        .mutating()
        .shared();
    let (runtime, _server) = build_runtime(
        &fixture,
        |request| {
            if last_is_user(request) {
                calls(&[("d", "danger", json!({}))])
            } else {
                let Message::Tool { content, .. } = last(request) else {
                    panic!()
                };
                text(&format!("went on after: {content}"))
            }
        },
        vec![danger],
    )
    .await;
    let runtime = runtime.with_gate(Arc::new(NonInteractive));
    let started = Instant::now();
    let out = call_task(
        &fixture,
        &runtime,
        json!({"goal": "do the risky thing"}),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the child never stalled"
    );
    assert!(
        out.content
            .starts_with("went on after: not run: danger is dangerous and nobody can approve it"),
        "{}",
        out.content
    );
    let kid = &children(&fixture)[0];
    let steps = fixture.store.steps(kid.id).unwrap();
    let decision = steps
        .iter()
        .find(|s| s.kind == "tool_decision" && s.content["type"] == "tool_decision")
        .unwrap();
    assert_eq!(decision.content["decision"], "deny");
    assert_eq!(decision.content["by"], "non_terminal");
    assert!(
        steps
            .iter()
            .any(|s| s.content["type"] == "approval_requested")
    );
}

#[tokio::test]
async fn an_unknown_agent_or_a_run_outside_a_session_is_a_clear_error() {
    let fixture = setup(
        TaskConfig::default(),
        vec![agent("main"), agent("reviewer")],
        "x",
    );
    let (runtime, _server) = build_runtime(&fixture, |_| text("ok"), vec![]).await;
    let error = call_task(
        &fixture,
        &runtime,
        json!({"goal": "x", "agent": "nobody"}),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "no agent named `nobody`; available: main, reviewer"
    );
    // A named agent runs under its own name and system prompt.
    let out = call_task(
        &fixture,
        &runtime,
        json!({"goal": "x", "agent": "reviewer"}),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(
        out.content
            .starts_with("ok\n\n[task sub-agent reviewer, run ")
    );
    assert_eq!(children(&fixture)[0].agent, "reviewer");

    let orphan = TaskTool::new(
        Arc::clone(&fixture.store) as _,
        &fixture.session,
        Vec::new(),
    );
    let mut tools = ToolRegistry::new();
    tools.register_typed(orphan);
    let ctx = ToolContext::new("top", "main", "c", Path::new("."), CancellationToken::new())
        .with_sub_agents(Arc::new(runtime.clone()), 0);
    let error = tools
        .get("task")
        .unwrap()
        .call(json!({"goal": "x"}), &ctx)
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("runs only in runs recorded in a session (run `top` has no store run)"),
        "{error}"
    );
}
