//! Tool dispatch: concurrency, ordering, the allow/deny filter.

use super::support::{Queue, agent, calls, collect, runtime, text};
use agentctl_core::{
    CallGate, DecidedBy, Decision, PendingCall, RiskLevel, RunEvent, RunOptions, Tool, ToolContext,
    ToolError, ToolOutput, ToolRegistry, Verdict,
};
use agentctl_core::{Message, ToolPolicy};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A tool that logs when calls enter and leave, optionally waiting on a barrier in between.
struct Probe {
    name: &'static str,
    mutating: bool,
    barrier: Option<Arc<tokio::sync::Barrier>>,
    log: Arc<Mutex<Vec<String>>>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

#[async_trait::async_trait]
impl Tool for Probe {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "probe"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn risk(&self) -> RiskLevel {
        RiskLevel::Safe
    }
    fn is_mutating(&self) -> bool {
        self.mutating
    }
    async fn call(&self, _args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        self.log
            .lock()
            .unwrap()
            .push(format!("enter {}", ctx.call_id()));
        if let Some(barrier) = &self.barrier {
            // Both calls must be in flight at once to pass the barrier.
            tokio::time::timeout(Duration::from_secs(5), barrier.wait())
                .await
                .map_err(|_| ToolError::failed("calls did not overlap"))?;
        }
        for _ in 0..5 {
            tokio::task::yield_now().await;
        }
        self.log
            .lock()
            .unwrap()
            .push(format!("exit {}", ctx.call_id()));
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        Ok(ToolOutput::text(format!("done {}", ctx.call_id())))
    }
}

fn probes(
    mutating_second: bool,
    barrier: bool,
) -> (ToolRegistry, Arc<Mutex<Vec<String>>>, Arc<AtomicUsize>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let max = Arc::new(AtomicUsize::new(0));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let barrier = barrier.then(|| Arc::new(tokio::sync::Barrier::new(2)));
    let mut tools = ToolRegistry::new();
    for (name, mutating) in [("read_a", false), ("read_b", mutating_second)] {
        tools.register(Probe {
            name,
            mutating,
            barrier: barrier.clone(),
            log: log.clone(),
            in_flight: in_flight.clone(),
            max_in_flight: max.clone(),
        });
    }
    (tools, log, max)
}

fn tool_results(events: &[RunEvent]) -> Vec<(String, String, bool)> {
    events
        .iter()
        .filter_map(|event| match event {
            RunEvent::ToolResult {
                id,
                content,
                is_error,
                ..
            } => Some((id.clone(), content.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn non_mutating_calls_overlap_and_results_keep_call_order() {
    let provider = Queue::new(vec![
        calls(&[("c1", "read_a", json!({})), ("c2", "read_b", json!({}))]),
        text("done"),
    ]);
    let (tools, _log, max) = probes(false, true);
    let events =
        collect(runtime(provider.clone(), tools).run(&agent("a"), "go", RunOptions::new())).await;
    assert_eq!(
        tool_results(&events),
        [
            ("c1".to_owned(), "done c1".to_owned(), false),
            ("c2".to_owned(), "done c2".to_owned(), false)
        ]
    );
    assert_eq!(max.load(Ordering::SeqCst), 2);
    let messages = &provider.requests()[1].messages;
    assert!(matches!(&messages[2], Message::Tool { call_id, .. } if call_id == "c1"));
    assert!(matches!(&messages[3], Message::Tool { call_id, .. } if call_id == "c2"));
}

#[tokio::test]
async fn a_mutating_call_makes_the_batch_sequential() {
    let provider = Queue::new(vec![
        calls(&[("c1", "read_a", json!({})), ("c2", "read_b", json!({}))]),
        text("done"),
    ]);
    let (tools, log, max) = probes(true, false);
    let events = collect(runtime(provider, tools).run(&agent("a"), "go", RunOptions::new())).await;
    assert_eq!(tool_results(&events).len(), 2);
    assert_eq!(max.load(Ordering::SeqCst), 1);
    assert_eq!(
        *log.lock().unwrap(),
        ["enter c1", "exit c1", "enter c2", "exit c2"]
    );
}

#[tokio::test]
async fn denied_tool_is_hidden_and_refused_as_a_tool_result() {
    let provider = Queue::new(vec![
        calls(&[("c1", "read_b", json!({})), ("c2", "read_a", json!({}))]),
        text("ok"),
    ]);
    let (tools, log, _) = probes(false, false);
    let mut definition = agent("restricted");
    definition.spec.tools = ToolPolicy {
        allow: Some(vec!["read_*".into()]),
        deny: vec!["read_b".into()],
    };
    let events =
        collect(runtime(provider.clone(), tools).run(&definition, "go", RunOptions::new())).await;
    assert_eq!(
        tool_results(&events),
        [
            (
                "c1".to_owned(),
                "Tool not allowed for this agent: read_b".to_owned(),
                true
            ),
            ("c2".to_owned(), "done c2".to_owned(), false)
        ]
    );
    assert_eq!(*log.lock().unwrap(), ["enter c2", "exit c2"]);
    let offered: Vec<String> = provider.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["read_a"]);
    assert!(matches!(events.last(), Some(RunEvent::RunFinished { .. })));
}

#[tokio::test]
async fn invalid_tool_pattern_fails_the_run() {
    let provider = Queue::new(vec![text("never")]);
    let mut definition = agent("bad");
    definition.spec.tools = ToolPolicy {
        allow: Some(vec!["read_[".into()]),
        deny: vec![],
    };
    let error = runtime(provider, ToolRegistry::new())
        .run_to_completion(&definition, "go", RunOptions::new())
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("agent `bad`: invalid tool pattern `read_[` in tools.allow"),
        "{error}"
    );
}

/// A gate that allows `read_a`, asks about `read_b` and then refuses it.
struct AskingGate {
    asked: AtomicUsize,
}

#[async_trait::async_trait]
impl CallGate for AskingGate {
    fn decide(&self, call: &PendingCall<'_>) -> Decision {
        if call.call.name == "read_a" {
            Decision::allow(RiskLevel::Safe, "fine")
        } else {
            Decision::Ask {
                risk: RiskLevel::High,
                reason: "looks dangerous".into(),
            }
        }
    }

    async fn ask(&self, _call: &PendingCall<'_>, risk: RiskLevel, reason: &str) -> Decision {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Decision::Deny {
            risk,
            reason: format!("denied: {reason}"),
            by: DecidedBy::User,
            hint: None,
        }
    }
}

#[tokio::test]
async fn the_gate_decides_every_call_and_a_refusal_reaches_the_model() {
    let (tools, log, _) = probes(false, false);
    let provider = Queue::new(vec![
        calls(&[("c1", "read_a", json!({})), ("c2", "read_b", json!({}))]),
        text("ok"),
    ]);
    let gate = Arc::new(AskingGate {
        asked: AtomicUsize::new(0),
    });
    let runtime = runtime(provider.clone(), tools).with_gate(gate.clone());
    let events = collect(runtime.run(&agent("a"), "go", RunOptions::new())).await;
    assert_eq!(gate.asked.load(Ordering::SeqCst), 1);
    // read_b never ran.
    assert_eq!(*log.lock().unwrap(), ["enter c1", "exit c1"]);
    let approval = events
        .iter()
        .position(|e| matches!(e, RunEvent::ApprovalRequested { id, risk: RiskLevel::High, .. } if id == "c2"))
        .unwrap();
    let decision = events
        .iter()
        .position(|e| matches!(e, RunEvent::ToolDecision { id, decision: Verdict::Deny, by: DecidedBy::User, .. } if id == "c2"))
        .unwrap();
    let result = events
        .iter()
        .position(|e| matches!(e, RunEvent::ToolResult { id, is_error: true, .. } if id == "c2"))
        .unwrap();
    assert!(approval < decision && decision < result);
    let second = &provider.requests()[1];
    let refused = second.messages.iter().find_map(|m| match m {
        Message::Tool {
            call_id, content, ..
        } if call_id == "c2" => Some(content.clone()),
        _ => None,
    });
    assert_eq!(refused.as_deref(), Some("denied: looks dangerous"));
}

#[tokio::test]
async fn a_tool_over_its_time_limit_is_stopped_and_the_model_reads_why() {
    use agentctl_core::Settings;
    use agentctl_test_support::{Behaviour, FakeTool};
    let provider = Queue::new(vec![calls(&[("c1", "slow", json!({}))]), text("gave up")]);
    let mut tools = ToolRegistry::new();
    tools.register_arc(FakeTool::new("slow", Behaviour::Sleep(Duration::from_secs(60))).shared());
    let mut settings = Settings::default();
    settings
        .tools
        .timeouts
        .insert("slow".into(), std::num::NonZeroU64::new(1).unwrap());
    let runtime = super::support::runtime_with(settings, provider.clone(), tools);
    let started = std::time::Instant::now();
    let result = runtime
        .run_to_completion(&agent("a"), "go", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(result.text, "gave up");
    assert!(started.elapsed() < Duration::from_secs(30));
    let second = &provider.requests()[1];
    let Some(Message::Tool {
        content, is_error, ..
    }) = second.messages.last()
    else {
        panic!("{:?}", second.messages)
    };
    assert!(*is_error);
    assert_eq!(
        content,
        "slow did not finish within 1 s and was stopped (settings tools.timeoutSeconds, tools.timeouts.slow)"
    );
}
