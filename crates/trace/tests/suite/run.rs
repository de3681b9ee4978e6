//! The span builder on event sequences a run can produce: a tool-calling turn, a failed run
//! with a model call and a tool call still open, a dropped run, a failed guardrail, secrets
//! in every field, and hostile text on the console.

use agentctl_core::{
    ContextMode, DecidedBy, GuardrailPolicy, GuardrailStage, Message, Redactor, RiskLevel,
    RunEvent, Span, SpanDetail, SpanKind, SpanStatus, TraceId, TracePolicy, Verdict,
};
use agentctl_trace::{MemorySink, OpenSpan, RunTracer, console_block};
use serde_json::json;
use std::sync::Arc;

const KEY: &str = "sk-live-trace-0123456789";

fn session(sink: &Arc<MemorySink>, policy: TracePolicy) -> OpenSpan {
    OpenSpan::root(
        TraceId::random(),
        Some("s1"),
        sink.clone(),
        policy,
        SpanDetail::Session {
            prompt: "go".into(),
        },
    )
}

fn started(tracer: &mut RunTracer) {
    tracer.event(&RunEvent::RunStarted {
        run_id: "7".into(),
        agent: "worker".into(),
        model: "openai:gpt-4o".into(),
        context_mode: ContextMode::Isolated,
    });
}

fn request(tracer: &mut RunTracer, turn: u32) {
    tracer.event(&RunEvent::ModelRequest {
        turn,
        message_count: 1,
        tool_count: 1,
        prompt_token_budget: 1000,
        estimated_prompt_tokens: 10,
        model_context_window: 128_000,
    });
}

fn call(tracer: &mut RunTracer, output: &str) {
    tracer.event(&RunEvent::ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        arguments: json!({"command": format!("echo {KEY}")}),
    });
    tracer.event(&RunEvent::ToolDecision {
        id: "c1".into(),
        name: "bash".into(),
        risk: RiskLevel::High,
        decision: Verdict::Allow,
        reason: "approved".into(),
        by: DecidedBy::User,
        hint: None,
    });
    tracer.event(&RunEvent::ToolResult {
        id: "c1".into(),
        name: "bash".into(),
        content: output.into(),
        is_error: false,
        duration_ms: 12,
    });
}

fn of_kind(spans: &[Span], kind: SpanKind) -> Vec<&Span> {
    spans.iter().filter(|span| span.kind() == kind).collect()
}

#[test]
fn a_tool_calling_turn_gives_llm_tool_and_run_spans_under_the_session() {
    let sink = Arc::new(MemorySink::default());
    let root = session(&sink, TracePolicy::default());
    let mut tracer = RunTracer::start(&root.context(), "worker", "list files", 0);
    started(&mut tracer);
    request(&mut tracer, 1);
    tracer.event(&RunEvent::TextDelta {
        text: "Listing.".into(),
        provisional: false,
    });
    tracer.event(&RunEvent::Usage {
        input_tokens: 120,
        output_tokens: 30,
    });
    call(&mut tracer, "a.txt\nb.txt");
    request(&mut tracer, 2);
    tracer.event(&RunEvent::Usage {
        input_tokens: 150,
        output_tokens: 5,
    });
    tracer.event(&RunEvent::TurnCommitted {
        turn: 2,
        messages: vec![Message::assistant("Two files.")],
    });
    tracer.finish();
    root.end(None);
    let spans = sink.spans();
    let kinds: Vec<SpanKind> = spans.iter().map(Span::kind).collect();
    assert_eq!(
        kinds,
        [
            SpanKind::Llm,
            SpanKind::Tool,
            SpanKind::Llm,
            SpanKind::Run,
            SpanKind::Session
        ]
    );
    let run = of_kind(&spans, SpanKind::Run)[0];
    let session = of_kind(&spans, SpanKind::Session)[0];
    assert_eq!(run.parent_id, Some(session.span_id));
    // Without a `run_finished`, the run counts as cancelled.
    assert_eq!(run.status, SpanStatus::Error);
    for span in of_kind(&spans, SpanKind::Llm)
        .into_iter()
        .chain(of_kind(&spans, SpanKind::Tool))
    {
        assert_eq!(span.parent_id, Some(run.span_id));
        assert_eq!(span.session_id.as_deref(), Some("s1"));
    }
    let SpanDetail::Llm {
        prompt,
        response,
        tool_calls,
        tokens,
        ..
    } = &spans[0].detail
    else {
        panic!("{:?}", spans[0])
    };
    assert_eq!(
        (prompt.as_str(), response.as_str()),
        ("list files", "Listing.")
    );
    assert_eq!(
        (tokens.input, tokens.output, tool_calls.len()),
        (120, 30, 1)
    );
    // The second call's input is the tool's result.
    let SpanDetail::Llm { prompt, .. } = &spans[2].detail else {
        panic!()
    };
    assert_eq!(prompt, "[bash] a.txt\nb.txt\n");
    let SpanDetail::Tool {
        latency_ms,
        risk,
        decision,
        ..
    } = &spans[1].detail
    else {
        panic!()
    };
    assert_eq!(*latency_ms, 12.0);
    assert_eq!(
        (*risk, *decision),
        (Some(RiskLevel::High), Some(Verdict::Allow))
    );
    // A tool span's id is the one its own work (a sub-agent) hangs under.
    let derived = agentctl_core::SpanId::of_tool_call(spans[1].trace_id, "7", "c1");
    assert_eq!(spans[1].span_id, derived);
}

#[test]
fn a_failed_run_closes_its_open_model_and_tool_calls_as_failed() {
    let sink = Arc::new(MemorySink::default());
    let root = session(&sink, TracePolicy::default());
    let mut tracer = RunTracer::start(&root.context(), "worker", "go", 0);
    started(&mut tracer);
    request(&mut tracer, 1);
    tracer.event(&RunEvent::Usage {
        input_tokens: 1,
        output_tokens: 1,
    });
    tracer.event(&RunEvent::ToolCall {
        id: "c1".into(),
        name: "bash".into(),
        arguments: json!({}),
    });
    tracer.event(&RunEvent::RunFailed {
        error: "the provider went away".into(),
    });
    request(&mut tracer, 2);
    tracer.event(&RunEvent::RunFailed {
        error: "again".into(),
    });
    drop(tracer);
    let spans = sink.spans();
    let tool = of_kind(&spans, SpanKind::Tool)[0];
    assert_eq!(tool.status, SpanStatus::Error);
    assert!(
        tool.error
            .as_deref()
            .unwrap()
            .contains("the provider went away")
    );
    let runs = of_kind(&spans, SpanKind::Run);
    assert_eq!(runs.len(), 1, "a run ends once");
    assert_eq!(runs[0].error.as_deref(), Some("the provider went away"));
}

#[test]
fn a_failed_guardrail_is_a_failed_span_with_its_errors() {
    let sink = Arc::new(MemorySink::default());
    let root = session(&sink, TracePolicy::default());
    let mut tracer = RunTracer::start(&root.context(), "worker", "go", 0);
    tracer.event(&RunEvent::Guardrail {
        name: "json-only".into(),
        stage: GuardrailStage::Output,
        passed: false,
        policy: GuardrailPolicy::Repair,
        errors: vec!["expected JSON".into()],
        attempt: 0,
    });
    tracer.finish();
    let spans = sink.spans();
    let guardrail = of_kind(&spans, SpanKind::Guardrail)[0];
    assert_eq!(guardrail.status, SpanStatus::Error);
    assert!(matches!(
        &guardrail.detail,
        SpanDetail::Guardrail { errors, passed: false, .. } if errors == &["expected JSON"]
    ));
}

#[test]
fn secrets_are_masked_in_every_span_and_the_filter_drops_kinds() {
    let sink = Arc::new(MemorySink::default());
    let policy = TracePolicy {
        events: vec![SpanKind::Tool, SpanKind::Llm],
        redactor: Redactor::new([KEY]),
    };
    let root = session(&sink, policy);
    let mut tracer = RunTracer::start(&root.context(), "worker", &format!("use {KEY}"), 0);
    started(&mut tracer);
    request(&mut tracer, 1);
    tracer.event(&RunEvent::TextDelta {
        text: format!("I will echo {KEY}"),
        provisional: false,
    });
    tracer.event(&RunEvent::Usage {
        input_tokens: 1,
        output_tokens: 1,
    });
    call(&mut tracer, &format!("{KEY}\n"));
    tracer.finish();
    root.end(None);
    let spans = sink.spans();
    let kinds: Vec<SpanKind> = spans.iter().map(Span::kind).collect();
    assert_eq!(kinds, [SpanKind::Llm, SpanKind::Tool]);
    let text = serde_json::to_string(&spans).unwrap();
    assert!(!text.contains(KEY), "{text}");
    assert!(text.contains("[REDACTED]"));
}

#[test]
fn the_console_escapes_control_characters_a_tool_printed() {
    let sink = Arc::new(MemorySink::default());
    let root = session(&sink, TracePolicy::default());
    let mut tracer = RunTracer::start(&root.context(), "worker", "go", 0);
    started(&mut tracer);
    call(&mut tracer, "\u{1b}]0;pwned\u{7}\u{1b}[2Jcleared");
    tracer.finish();
    let spans = sink.spans();
    let block = console_block(of_kind(&spans, SpanKind::Tool)[0]);
    assert!(
        !block.contains('\u{1b}') && !block.contains('\u{7}'),
        "{block:?}"
    );
    insta::assert_snapshot!(block.replace("12ms", "[T]"), @r#"
    [Trace] tool (worker) - [T]
      Tool: bash
      Input: {"command":"echo sk-live-trace-0123456789"}
      Output: \u{1b}]0;pwned\u{7}\u{1b}[2Jcleared

    "#);
}
