//! The `otel` backend against a real OTLP/HTTP receiver on 127.0.0.1 (protobuf decoded with
//! opentelemetry-proto): GenAI names and attributes, nesting, the content switch, headers, and
//! collectors that are down, refuse or never answer.

use agentctl_core::{
    GuardrailPolicy, GuardrailStage, RiskLevel, Span, SpanDetail, SpanId, SpanSink, SpanStatus,
    SpanTokens, ToolCall, TraceId, Verdict,
};
use agentctl_test_support::{OTLP_WAIT, OtlpReceiver, ReceivedSpan};
use agentctl_trace::{ExportWarning, OtelConfig, OtelSink, WarningCallback};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

/// The prompt of the sample trace; it must never reach a collector unless capture is on.
pub(super) const PROMPT: &str = "Find the bug in src/main.rs";

/// A handoff session by hand: session → run (llm, tool, guardrail), handoff, then the target's
/// run (linked to the handoff) with a refused tool call.
pub(super) struct Sample {
    pub spans: Vec<Span>,
    pub session: SpanId,
    pub run: SpanId,
    pub handoff: SpanId,
}

#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
pub(super) fn sample() -> Sample {
    let trace = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap();
    let id = |hex: &str| SpanId::from_hex(hex).unwrap();
    let (session, run, llm, guardrail, handoff, run2, refused) = (
        id("00f067aa0ba902b7"),
        id("00000000000000a1"),
        id("00000000000000b1"),
        id("00000000000000c1"),
        id("00000000000000d1"),
        id("00000000000000a2"),
        id("00000000000000e2"),
    );
    let tool = SpanId::of_tool_call(trace, "7", "call_1");
    let base = 1_700_000_000_000_000_000_u64;
    let span = |id: SpanId, parent: Option<SpanId>, agent: &str, offset_ms: u64, detail| Span {
        trace_id: trace,
        span_id: id,
        parent_id: parent,
        links: Vec::new(),
        session_id: Some("sess-42".into()),
        agent: Some(agent.into()),
        start_unix_nano: base + offset_ms * 1_000_000,
        duration_ms: 100.0,
        status: SpanStatus::Ok,
        error: None,
        detail,
    };
    let mut spans = vec![
        span(
            session,
            None,
            "triage",
            0,
            SpanDetail::Session {
                prompt: PROMPT.into(),
            },
        ),
        span(
            run,
            Some(session),
            "triage",
            1,
            SpanDetail::Run {
                run_id: "7".into(),
                model: "openai:gpt-4o-mini".into(),
                context_mode: None,
                turns: 2,
                tokens: SpanTokens {
                    input: 30,
                    output: 12,
                },
                depth: 0,
            },
        ),
        span(
            llm,
            Some(run),
            "triage",
            2,
            SpanDetail::Llm {
                model: "openai:gpt-4o-mini".into(),
                turn: 1,
                prompt: PROMPT.into(),
                response: "Let me read it.".into(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "src/main.rs"}),
                    signature: None,
                }],
                tokens: SpanTokens {
                    input: 10,
                    output: 5,
                },
                latency_ms: 850.0,
            },
        ),
        span(
            tool,
            Some(run),
            "triage",
            3,
            SpanDetail::Tool {
                name: "read_file".into(),
                call_id: "call_1".into(),
                input: json!({"path": "src/main.rs"}),
                output: "fn main() { panic!() }".into(),
                latency_ms: 3.5,
                error: None,
                risk: Some(RiskLevel::Safe),
                decision: Some(Verdict::Allow),
            },
        ),
        span(
            guardrail,
            Some(run),
            "triage",
            4,
            SpanDetail::Guardrail {
                name: "no-secrets".into(),
                stage: GuardrailStage::Output,
                passed: false,
                policy: GuardrailPolicy::Warn,
                errors: vec!["the answer quotes a key".into()],
                attempt: 0,
            },
        ),
        span(
            handoff,
            Some(session),
            "triage",
            5,
            SpanDetail::Handoff {
                from: "triage".into(),
                to: "fixer".into(),
                reason: "needs a code change".into(),
                payload: json!({"file": "src/main.rs"}),
            },
        ),
        span(
            run2,
            Some(session),
            "fixer",
            6,
            SpanDetail::Run {
                run_id: "8".into(),
                model: "gemini:gemini-2.5-flash".into(),
                context_mode: None,
                turns: 1,
                tokens: SpanTokens::default(),
                depth: 0,
            },
        ),
        span(
            refused,
            Some(run2),
            "fixer",
            7,
            SpanDetail::Tool {
                name: "write_file".into(),
                call_id: "call_9".into(),
                input: json!({"path": "src/main.rs", "content": "fixed"}),
                output: "refused".into(),
                latency_ms: 0.0,
                error: Some("denied by policy".into()),
                risk: Some(RiskLevel::High),
                decision: Some(Verdict::Deny),
            },
        ),
    ];
    spans[4].status = SpanStatus::Error;
    spans[4].error = Some("guardrail no-secrets failed".into());
    spans[6].links = vec![handoff];
    spans[7].status = SpanStatus::Error;
    spans[7].error = Some("denied by policy".into());
    Sample {
        spans,
        session,
        run,
        handoff,
    }
}

/// A callback that keeps every warning.
#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
pub(super) fn collect_warnings() -> (WarningCallback, Arc<Mutex<Vec<ExportWarning>>>) {
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&warnings);
    let callback: WarningCallback = Arc::new(move |warning| kept.lock().unwrap().push(warning));
    (callback, warnings)
}

/// Waits (generously) until a warning came.
#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
async fn first_warning(warnings: &Mutex<Vec<ExportWarning>>) -> ExportWarning {
    let waited = Instant::now();
    loop {
        if let Some(warning) = warnings.lock().unwrap().first() {
            return warning.clone();
        }
        assert!(
            waited.elapsed() < OTLP_WAIT,
            "no warning after {OTLP_WAIT:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn by_name<'a>(spans: &'a [ReceivedSpan], name: &str) -> &'a ReceivedSpan {
    let found: Vec<&ReceivedSpan> = spans.iter().filter(|span| span.name == name).collect();
    assert_eq!(found.len(), 1, "spans named `{name}` in {spans:#?}");
    found[0]
}

/// Sends the sample through a sink at `receiver` and returns what arrived.
#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
async fn export(receiver: &OtlpReceiver, capture_content: bool) -> Vec<ReceivedSpan> {
    let (callback, warnings) = collect_warnings();
    let mut config = OtelConfig::new(receiver.traces_url()).unwrap();
    config.capture_content = capture_content;
    // A loaded machine must not turn a slow answer into a warning.
    config.shutdown_timeout = OTLP_WAIT;
    // Built, used and dropped on a tokio worker thread, as the CLI does.
    let sink = OtelSink::new(config, callback).unwrap();
    let sample = sample();
    for span in &sample.spans {
        sink.record(span);
    }
    sink.flush();
    let spans = receiver.wait_for_spans(sample.spans.len()).await;
    drop(sink);
    assert_eq!(*warnings.lock().unwrap(), []);
    spans
}

#[tokio::test(flavor = "multi_thread")]
async fn spans_arrive_with_genai_names_attributes_and_nesting() {
    let receiver = OtlpReceiver::start().await;
    let spans = export(&receiver, false).await;
    let sample = sample();
    assert_eq!(spans.len(), sample.spans.len());
    let request = &receiver.requests()[0];
    assert_eq!(
        request.header("content-type"),
        Some("application/x-protobuf")
    );
    assert!(
        spans
            .iter()
            .all(|span| span.trace_id == "4bf92f3577b34da6a3ce929d0e0e4736")
    );

    let session = by_name(&spans, "session triage");
    assert_eq!(session.span_id, sample.session.to_string());
    assert_eq!(session.parent_span_id, None);
    assert_eq!(session.str("gen_ai.conversation.id"), Some("sess-42"));
    assert_eq!(session.resource["service.name"], "agentctl");
    assert_eq!(
        session.resource["service.version"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(session.scope, "agentctl");
    assert_eq!(
        session.end_time_unix_nano - session.start_time_unix_nano,
        100_000_000
    );

    let run = by_name(&spans, "invoke_agent triage");
    assert_eq!(run.kind, "internal");
    assert_eq!(
        run.parent_span_id.as_deref(),
        Some(session.span_id.as_str())
    );
    for (key, value) in [
        ("gen_ai.operation.name", json!("invoke_agent")),
        ("gen_ai.agent.name", json!("triage")),
        ("gen_ai.agent.id", json!("7")),
        ("gen_ai.provider.name", json!("openai")),
        ("gen_ai.request.model", json!("gpt-4o-mini")),
        ("gen_ai.usage.input_tokens", json!(30)),
        ("gen_ai.usage.output_tokens", json!(12)),
        ("gen_ai.conversation.id", json!("sess-42")),
    ] {
        assert_eq!(run.attributes.get(key), Some(&value), "{key} of {run:#?}");
    }
    assert_eq!(run.status, "unset");

    let chat = by_name(&spans, "chat gpt-4o-mini");
    assert_eq!(chat.kind, "client");
    assert_eq!(chat.parent_span_id.as_deref(), Some(run.span_id.as_str()));
    assert_eq!(chat.str("gen_ai.operation.name"), Some("chat"));
    assert_eq!(chat.str("gen_ai.provider.name"), Some("openai"));
    assert_eq!(chat.str("gen_ai.request.model"), Some("gpt-4o-mini"));
    assert_eq!(chat.int("gen_ai.usage.input_tokens"), Some(10));
    assert_eq!(chat.int("gen_ai.usage.output_tokens"), Some(5));
    assert_eq!(chat.str("gen_ai.conversation.id"), Some("sess-42"));

    let tool = by_name(&spans, "execute_tool read_file");
    assert_eq!(tool.kind, "internal");
    assert_eq!(tool.parent_span_id.as_deref(), Some(run.span_id.as_str()));
    assert_eq!(tool.str("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(tool.str("gen_ai.tool.name"), Some("read_file"));
    assert_eq!(tool.str("gen_ai.tool.call.id"), Some("call_1"));
    assert_eq!(tool.str("gen_ai.tool.type"), Some("function"));
    assert_eq!(tool.str("agentctl.tool.risk"), Some("safe"));
    // The id a sub-agent started by this call computes for its parent.
    let trace = TraceId::from_hex(&tool.trace_id).unwrap();
    assert_eq!(
        tool.span_id,
        SpanId::of_tool_call(trace, "7", "call_1").to_string()
    );

    let guardrail = by_name(&spans, "guardrail no-secrets");
    assert_eq!(
        guardrail.parent_span_id.as_deref(),
        Some(run.span_id.as_str())
    );
    assert_eq!(guardrail.bool("agentctl.guardrail.passed"), Some(false));
    assert_eq!(guardrail.str("agentctl.guardrail.stage"), Some("output"));
    assert_eq!(guardrail.str("agentctl.guardrail.policy"), Some("warn"));
    assert_eq!(
        (guardrail.status, guardrail.status_message.as_str()),
        ("error", "guardrail no-secrets failed")
    );
    assert_eq!(guardrail.str("error.type"), Some("guardrail_failed"));
    let (event, attributes) = &guardrail.events[0];
    assert_eq!(event, "gen_ai.guardrail.result");
    assert_eq!(attributes["gen_ai.guardrail.result.value"], "false");
    assert_eq!(attributes["gen_ai.guardrail.source"], "output");

    let handoff = by_name(&spans, "handoff fixer");
    assert_eq!(handoff.span_id, sample.handoff.to_string());
    assert_eq!(
        handoff.parent_span_id.as_deref(),
        Some(session.span_id.as_str())
    );
    assert_eq!(handoff.str("agentctl.handoff.from"), Some("triage"));
    assert_eq!(handoff.str("agentctl.handoff.to"), Some("fixer"));
    assert_eq!(
        handoff.str("agentctl.handoff.reason"),
        Some("needs a code change")
    );

    let fixer = by_name(&spans, "invoke_agent fixer");
    assert_eq!(
        fixer.parent_span_id.as_deref(),
        Some(session.span_id.as_str())
    );
    assert_eq!(fixer.links, std::slice::from_ref(&handoff.span_id));
    assert_eq!(fixer.str("gen_ai.provider.name"), Some("gcp.gemini"));

    let refused = by_name(&spans, "execute_tool write_file");
    assert_eq!(
        refused.parent_span_id.as_deref(),
        Some(fixer.span_id.as_str())
    );
    assert_eq!(
        (refused.status, refused.status_message.as_str()),
        ("error", "denied by policy")
    );
    assert_eq!(refused.str("error.type"), Some("denied"));
    assert_eq!(refused.str("agentctl.tool.decision"), Some("deny"));
    assert_eq!(sample.run.to_string(), run.span_id);
}

/// Every attribute value and event of every span, as text.
fn all_text(spans: &[ReceivedSpan]) -> String {
    spans
        .iter()
        .map(|span| {
            format!(
                "{} {:?} {:?} {}",
                span.name, span.attributes, span.events, span.status_message
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn message_content_is_exported_only_when_capture_is_on() {
    let off = OtlpReceiver::start().await;
    let spans = export(&off, false).await;
    let text = all_text(&spans);
    for secret in [
        PROMPT,
        "Let me read it.",
        "panic!",
        "quotes a key",
        "\"file\"",
    ] {
        assert!(
            !text.contains(secret),
            "`{secret}` leaked with capture off: {text}"
        );
    }
    for key in [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "agentctl.handoff.payload",
    ] {
        assert!(
            spans.iter().all(|span| !span.attributes.contains_key(key)),
            "{key}"
        );
    }

    let on = OtlpReceiver::start().await;
    let spans = export(&on, true).await;
    let json_of = |span: &ReceivedSpan, key: &str| -> Value {
        serde_json::from_str(
            span.str(key)
                .unwrap_or_else(|| panic!("no {key} on {span:#?}")),
        )
        .unwrap()
    };
    let session = by_name(&spans, "session triage");
    assert_eq!(
        json_of(session, "gen_ai.input.messages"),
        json!([{"role": "user", "parts": [{"type": "text", "content": PROMPT}]}])
    );
    let chat = by_name(&spans, "chat gpt-4o-mini");
    assert_eq!(
        json_of(chat, "gen_ai.input.messages"),
        json!([{"role": "user", "parts": [{"type": "text", "content": PROMPT}]}])
    );
    assert_eq!(
        json_of(chat, "gen_ai.output.messages"),
        json!([{"role": "assistant", "finish_reason": "tool_call", "parts": [
            {"type": "text", "content": "Let me read it."},
            {"type": "tool_call", "id": "call_1", "name": "read_file", "arguments": {"path": "src/main.rs"}},
        ]}])
    );
    let tool = by_name(&spans, "execute_tool read_file");
    assert_eq!(
        json_of(tool, "gen_ai.tool.call.arguments"),
        json!({"path": "src/main.rs"})
    );
    assert_eq!(
        json_of(tool, "gen_ai.tool.call.result"),
        json!("fn main() { panic!() }")
    );
    let handoff = by_name(&spans, "handoff fixer");
    assert_eq!(
        json_of(handoff, "agentctl.handoff.payload"),
        json!({"file": "src/main.rs"})
    );
    let guardrail = by_name(&spans, "guardrail no-secrets");
    assert_eq!(
        guardrail.attributes["agentctl.guardrail.errors"],
        json!(["the answer quotes a key"])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn headers_reach_the_collector_exactly_as_configured() {
    let receiver = OtlpReceiver::start().await;
    let (callback, warnings) = collect_warnings();
    let mut config = OtelConfig::new(receiver.traces_url()).unwrap();
    config.headers = vec![("x-api-key".into(), "k%41=".into())];
    config.shutdown_timeout = OTLP_WAIT;
    let sink = OtelSink::new(config, callback).unwrap();
    sink.record(&sample().spans[0]);
    sink.flush();
    receiver.wait_for_spans(1).await;
    let request = &receiver.requests()[0];
    assert_eq!(request.header("x-api-key"), Some("k%41="));
    sink.shutdown();
    assert_eq!(*warnings.lock().unwrap(), []);
}

/// Records many spans; each `record` only queues, whatever the collector does.
fn record_many(sink: &OtelSink) {
    let sample = sample();
    for _ in 0..100 {
        for span in &sample.spans {
            sink.record(span);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dead_collector_gives_one_warning_naming_the_endpoint_and_the_cause() {
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/traces", closed.local_addr().unwrap());
    drop(closed);
    let (callback, warnings) = collect_warnings();
    let mut config = OtelConfig::new(&url).unwrap();
    // Long enough for the retries to fail on a loaded machine: the cause must be the refusal.
    config.shutdown_timeout = OTLP_WAIT;
    let sink = OtelSink::new(config, callback).unwrap();
    let started = Instant::now();
    record_many(&sink);
    sink.flush();
    let warning = first_warning(&warnings).await;
    assert_eq!(warning.endpoint, url);
    assert!(warning.cause.contains("refused"), "{warning}");
    assert!(warning.to_string().contains(&url), "{warning}");
    // More spans, more failed exports, the shutdown: still the one warning.
    record_many(&sink);
    sink.flush();
    sink.shutdown();
    sink.record(&sample().spans[0]);
    assert_eq!(
        warnings.lock().unwrap().len(),
        1,
        "{:?}",
        warnings.lock().unwrap()
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusing_collector_gives_one_warning_with_its_status() {
    let receiver = OtlpReceiver::start().await;
    let url = format!("{}/v1/wrong", receiver.endpoint());
    let (callback, warnings) = collect_warnings();
    let mut config = OtelConfig::new(&url).unwrap();
    config.shutdown_timeout = OTLP_WAIT;
    let sink = OtelSink::new(config, callback).unwrap();
    record_many(&sink);
    sink.flush();
    sink.shutdown();
    let warning = first_warning(&warnings).await;
    assert!(warning.cause.contains("404"), "{warning}");
    assert_eq!(warnings.lock().unwrap().len(), 1);
    assert!(
        receiver
            .requests()
            .iter()
            .all(|request| request.status == 404)
    );
}

/// A server that accepts connections and never reads or answers; stops with the runtime.
#[expect(clippy::unwrap_used, reason = "test helper: a panic is a test failure")]
async fn black_hole() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_collector_holds_flush_and_shutdown_only_for_the_bound() {
    let url = black_hole().await;
    let (callback, warnings) = collect_warnings();
    let mut config = OtelConfig::new(&url).unwrap();
    // Far longer than the test: only the shutdown bound can end the waits.
    config.timeout = Duration::from_secs(600);
    config.shutdown_timeout = Duration::from_millis(500);
    let sink = OtelSink::new(config, callback).unwrap();
    let started = Instant::now();
    record_many(&sink);
    sink.flush();
    let warning = first_warning(&warnings).await;
    assert!(
        warning.cause.contains("did not answer within 500ms"),
        "{warning}"
    );
    // The collector is known to be silent: neither waits again.
    sink.flush();
    sink.shutdown();
    drop(sink);
    assert_eq!(warnings.lock().unwrap().len(), 1);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_collector_times_out_the_export_with_that_cause() {
    let url = black_hole().await;
    let (callback, warnings) = collect_warnings();
    let mut config = OtelConfig::new(&url).unwrap();
    config.timeout = Duration::from_millis(200);
    config.shutdown_timeout = Duration::from_secs(20);
    let sink = OtelSink::new(config, callback).unwrap();
    sink.record(&sample().spans[0]);
    sink.flush();
    let warning = first_warning(&warnings).await;
    assert!(
        warning.cause.contains("no answer within 200ms"),
        "{warning}"
    );
    sink.shutdown();
    assert_eq!(warnings.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "current_thread")]
async fn a_sink_made_and_dropped_in_a_single_threaded_runtime_does_not_panic() {
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/traces", closed.local_addr().unwrap());
    drop(closed);
    let (callback, _warnings) = collect_warnings();
    let sink = OtelSink::new(OtelConfig::new(&url).unwrap(), callback).unwrap();
    sink.record(&sample().spans[0]);
    drop(sink);
}

#[test]
fn bad_settings_are_errors_naming_the_variable() {
    let vars: HashMap<&str, &str> = [("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318")].into();
    let error = OtelConfig::from_lookup(|name| vars.get(name).map(|value| (*value).to_owned()))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("OTEL_EXPORTER_OTLP_ENDPOINT=`collector:4318`"),
        "{error}"
    );
    let error = OtelConfig::new("file:///tmp/x").unwrap_err().to_string();
    assert!(
        error.contains("file:///tmp/x") && error.contains("scheme"),
        "{error}"
    );
}
