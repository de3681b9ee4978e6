//! The loop's guardrail steps, with a scripted guardrail: input checks before (or alongside)
//! the first model call, output checks with repair, and what is committed.

use super::support::{Queue, calls, collect, kinds, runtime};
use agentctl_core::{
    AgentDefinition, Guardrail, GuardrailAction, GuardrailCheck, GuardrailFactory,
    GuardrailFailure, GuardrailPhase, GuardrailPolicy, GuardrailSpecError, GuardrailStage,
    GuardrailSubject, GuardrailVerdict, GuardrailViolation, Message, ModelProvider, RunError,
    RunEvent, RunGuardrails, RunOptions, Settings, ToolRegistry,
};
use agentctl_runtime::Runtime;
use agentctl_test_support::{Behaviour, FakeTool, HangingProvider, agent, text};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// One guardrail: the text must contain `needle`.
struct Contains {
    phase: GuardrailPhase,
    policy: GuardrailPolicy,
    needle: &'static str,
    max_repairs: u32,
    /// Checks take this long (to let a parallel model call finish first).
    delay: Duration,
    checks: AtomicU32,
}

impl Contains {
    fn new(phase: GuardrailPhase, policy: GuardrailPolicy, needle: &'static str) -> Arc<Self> {
        Arc::new(Self {
            phase,
            policy,
            needle,
            max_repairs: 2,
            delay: Duration::ZERO,
            checks: AtomicU32::new(0),
        })
    }

    fn slow(phase: GuardrailPhase, needle: &'static str) -> Arc<Self> {
        Arc::new(Self {
            delay: Duration::from_millis(50),
            ..Arc::into_inner(Self::new(phase, GuardrailPolicy::Reject, needle)).unwrap()
        })
    }

    fn stage(&self) -> GuardrailStage {
        match self.phase {
            GuardrailPhase::Output => GuardrailStage::Output,
            _ => GuardrailStage::Input,
        }
    }
}

#[async_trait::async_trait]
impl RunGuardrails for Contains {
    fn covers(&self, phase: GuardrailPhase) -> bool {
        phase == self.phase
    }

    async fn check(&self, subject: GuardrailSubject<'_>, attempt: u32) -> GuardrailVerdict {
        self.checks.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(self.delay).await;
        let passed = subject.text().contains(self.needle);
        let errors = if passed {
            vec![]
        } else {
            vec![format!("missing `{}`", self.needle)]
        };
        let check = GuardrailCheck {
            name: "contains".into(),
            stage: self.stage(),
            policy: self.policy,
            passed,
            errors: errors.clone(),
        };
        let action = match (passed, self.policy) {
            (true, _) | (false, GuardrailPolicy::Warn) => GuardrailAction::Proceed,
            (false, GuardrailPolicy::Repair) if attempt < self.max_repairs => {
                GuardrailAction::Repair {
                    prompt: format!("Repair: say `{}`.", self.needle),
                }
            }
            (false, _) => GuardrailAction::Reject(GuardrailViolation {
                agent: "a".into(),
                stage: self.stage(),
                failures: vec![GuardrailFailure {
                    name: "contains".into(),
                    errors,
                }],
                repairs: attempt,
            }),
        };
        GuardrailVerdict {
            checks: vec![check],
            action,
        }
    }
}

struct Factory(Arc<Contains>);

impl GuardrailFactory for Factory {
    fn guardrails(
        &self,
        _: &AgentDefinition,
        _: &Path,
    ) -> Result<Option<Arc<dyn RunGuardrails>>, GuardrailSpecError> {
        Ok(Some(self.0.clone()))
    }
}

/// An agent declaring a guardrail (the scripted one stands for it).
fn guarded() -> AgentDefinition {
    let mut agent = agent("a");
    agent.spec.guardrails = vec![Guardrail {
        name: "contains".into(),
        ..Guardrail::default()
    }];
    agent
}

fn checked(provider: Arc<Queue>, rail: &Arc<Contains>, tools: ToolRegistry) -> Runtime {
    runtime(provider, tools).with_guardrails(Arc::new(Factory(rail.clone())))
}

fn guardrail_events(events: &[RunEvent]) -> Vec<(bool, u32)> {
    events
        .iter()
        .filter_map(|event| match event {
            RunEvent::Guardrail {
                passed, attempt, ..
            } => Some((*passed, *attempt)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_failing_input_check_ends_the_run_before_any_model_call() {
    let provider = Queue::new(vec![text("never")]);
    let rail = Contains::new(GuardrailPhase::Input, GuardrailPolicy::Reject, "please");
    let runtime = checked(provider.clone(), &rail, ToolRegistry::new());
    let events = collect(runtime.run(&guarded(), "do it now", RunOptions::new())).await;
    assert_eq!(kinds(&events), ["run_started", "guardrail", "run_failed"]);
    assert!(provider.requests().is_empty());
    let result = runtime
        .run_to_completion(&guarded(), "do it now", RunOptions::new())
        .await;
    let Err(RunError::Guardrail(violation)) = result else {
        panic!("{result:?}")
    };
    assert_eq!(violation.stage, GuardrailStage::Input);
    assert_eq!(violation.guardrail(), "contains");
}

#[tokio::test]
async fn a_passing_input_check_runs_before_the_first_call_only() {
    let provider = Queue::new(vec![
        calls(&[("c1", "echo", json!({}))]),
        text("done, please"),
    ]);
    let rail = Contains::new(GuardrailPhase::Input, GuardrailPolicy::Reject, "please");
    let mut tools = ToolRegistry::new();
    tools.register_arc(FakeTool::new("echo", Behaviour::Reply("hi".into())).shared());
    let runtime = checked(provider, &rail, tools);
    let events = collect(runtime.run(&guarded(), "please", RunOptions::new())).await;
    assert_eq!(
        kinds(&events)[..3],
        ["run_started", "guardrail", "model_request"]
    );
    assert_eq!(rail.checks.load(Ordering::SeqCst), 1);
    assert_eq!(guardrail_events(&events), [(true, 0)]);
}

#[tokio::test]
async fn a_failing_parallel_check_cancels_the_model_call() {
    let rail = Contains::slow(GuardrailPhase::ParallelInput, "please");
    let runtime = Runtime::new(
        Settings::default(),
        |_: &_, _: &_| Ok(Arc::new(HangingProvider) as Arc<dyn ModelProvider>),
        ToolRegistry::new(),
    )
    .with_guardrails(Arc::new(Factory(rail.clone())));
    // The model never answers: only the check can end the run.
    let result = runtime
        .run_to_completion(&guarded(), "now", RunOptions::new())
        .await;
    assert!(matches!(result, Err(RunError::Guardrail(_))), "{result:?}");
}

#[tokio::test]
async fn nothing_the_model_asked_for_runs_before_a_parallel_check_passes() {
    let provider = Queue::new(vec![calls(&[("c1", "echo", json!({}))]), text("x")]);
    let rail = Contains::slow(GuardrailPhase::ParallelInput, "please");
    let mut tools = ToolRegistry::new();
    tools.register_arc(FakeTool::new("echo", Behaviour::Reply("hi".into())).shared());
    let runtime = checked(provider, &rail, tools);
    let events = collect(runtime.run(&guarded(), "now", RunOptions::new())).await;
    assert!(!kinds(&events).iter().any(|kind| kind == "tool_call"));
    assert_eq!(
        kinds(&events).last().map(String::as_str),
        Some("run_failed")
    );
}

#[tokio::test]
async fn text_streamed_alongside_a_parallel_check_is_shown_after_it_passes() {
    let provider = Queue::new(vec![text("Hello there friend")]);
    let rail = Contains::slow(GuardrailPhase::ParallelInput, "please");
    let runtime = checked(provider, &rail, ToolRegistry::new());
    let events = collect(runtime.run(&guarded(), "please", RunOptions::new().stream(true))).await;
    let kinds = kinds(&events);
    let check = kinds.iter().position(|kind| kind == "guardrail").unwrap();
    let first_text = kinds.iter().position(|kind| kind == "text_delta").unwrap();
    assert!(check < first_text, "{kinds:?}");
    let shown: String = events
        .iter()
        .filter_map(|event| match event {
            RunEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(shown, "Hello there friend");
}

#[tokio::test]
async fn a_repaired_answer_replaces_the_failed_one_everywhere() {
    let provider = Queue::new(vec![text("a first try"), text("OK, repaired")]);
    let rail = Contains::new(GuardrailPhase::Output, GuardrailPolicy::Repair, "OK");
    let runtime = checked(provider.clone(), &rail, ToolRegistry::new());
    let handle = runtime.run(&guarded(), "go", RunOptions::new().stream(true));
    let events = collect(handle).await;
    assert_eq!(guardrail_events(&events), [(false, 0), (true, 1)]);
    // Every delta was provisional: an output guardrail could still reject it.
    assert!(events.iter().all(|event| !matches!(
        event,
        RunEvent::TextDelta {
            provisional: false,
            ..
        }
    )));
    // Only the repaired answer was committed.
    let committed: Vec<&Message> = events
        .iter()
        .filter_map(|event| match event {
            RunEvent::TurnCommitted { messages, .. } => Some(messages),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        committed,
        [&Message::Assistant {
            content: Some("OK, repaired".into()),
            tool_calls: vec![]
        }]
    );
    // The model saw its failed answer and the repair request, in the same conversation.
    let second = &provider.requests()[1].messages;
    assert_eq!(second.len(), 3);
    assert!(matches!(&second[2], Message::User { content } if content == "Repair: say `OK`."));

    let provider = Queue::new(vec![text("a first try"), text("OK, repaired")]);
    let result = checked(provider, &rail, ToolRegistry::new())
        .run_to_completion(&guarded(), "go", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(result.text, "OK, repaired");
    assert_eq!(
        result.messages,
        [
            Message::user("go"),
            Message::Assistant {
                content: Some("OK, repaired".into()),
                tool_calls: vec![]
            }
        ]
    );
    assert_eq!(result.metadata.iterations, 2);
}

#[tokio::test]
async fn repairs_end_in_a_rejection_at_the_limit() {
    let provider = Queue::new(vec![text("no"), text("still no"), text("nope")]);
    let rail = Contains::new(GuardrailPhase::Output, GuardrailPolicy::Repair, "OK");
    let runtime = checked(provider.clone(), &rail, ToolRegistry::new());
    let events = collect(runtime.run(&guarded(), "go", RunOptions::new())).await;
    assert_eq!(
        guardrail_events(&events),
        [(false, 0), (false, 1), (false, 2)]
    );
    assert!(!kinds(&events).iter().any(|kind| kind == "turn_committed"));
    let Some(RunEvent::RunFailed { error }) = events.last() else {
        panic!()
    };
    assert!(error.contains("after 2 repair attempts"), "{error}");
    assert_eq!(provider.requests().len(), 3);
}

#[tokio::test]
async fn a_warning_guardrail_records_and_goes_on() {
    let provider = Queue::new(vec![text("no")]);
    let rail = Contains::new(GuardrailPhase::Output, GuardrailPolicy::Warn, "OK");
    let runtime = checked(provider, &rail, ToolRegistry::new());
    let result = runtime
        .run_to_completion(&guarded(), "go", RunOptions::new())
        .await
        .unwrap();
    assert_eq!(result.text, "no");
}

#[tokio::test]
async fn an_agent_with_guardrails_does_not_run_unchecked() {
    let provider = Queue::new(vec![text("hi")]);
    let result = runtime(provider.clone(), ToolRegistry::new())
        .run_to_completion(&guarded(), "go", RunOptions::new())
        .await;
    assert!(
        matches!(result, Err(RunError::GuardrailSpec(_))),
        "{result:?}"
    );
    assert!(provider.requests().is_empty());
}

#[tokio::test]
async fn cancelling_during_an_output_check_ends_the_run_with_nothing_committed() {
    let provider = Queue::new(vec![text("an answer")]);
    // A check that would take a minute: the run must not wait for it once cancelled.
    let rail = Arc::new(Contains {
        delay: Duration::from_secs(60),
        ..Arc::into_inner(Contains::new(
            GuardrailPhase::Output,
            GuardrailPolicy::Reject,
            "answer",
        ))
        .unwrap()
    });
    let runtime = checked(provider, &rail, ToolRegistry::new());
    let token = tokio_util::sync::CancellationToken::new();
    let handle = runtime.run(&guarded(), "hi", RunOptions::new().cancel(token.clone()));
    let collector = tokio::spawn(collect(handle));
    while rail.checks.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    token.cancel();
    let events = tokio::time::timeout(Duration::from_secs(10), collector)
        .await
        .expect("the cancelled run ended without waiting for its check")
        .unwrap();
    assert_eq!(
        kinds(&events),
        [
            "run_started",
            "model_request",
            "text_delta",
            "usage",
            "run_failed"
        ]
    );
    assert!(
        matches!(events.last(), Some(RunEvent::RunFailed { error }) if error == "run cancelled")
    );
}
