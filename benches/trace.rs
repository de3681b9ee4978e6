//! Tracing cost per model turn with one tool call (seven run events, two spans): the span
//! builder alone (a sink that drops), with the JSONL file backend, and with the SQLite session
//! store — what `--trace`/`agents.tracing` add to a run.
//!
//! Run with `cargo bench --bench trace`; figures are in the README's Performance section.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark: failures should abort"
)]

use agentctl_core::{
    DecidedBy, RiskLevel, RunEvent, Span, SpanDetail, SpanSink, TraceId, TracePolicy, Verdict,
};
use agentctl_store::{SessionLog, TraceLog};
use agentctl_store_sqlite::SqliteStore;
use agentctl_trace::{JsonlSink, OpenSpan, RunTracer, StoreSink};
use divan::Bencher;
use std::sync::Arc;

fn main() {
    divan::main();
}

struct Drop;

impl SpanSink for Drop {
    fn record(&self, span: &Span) {
        divan::black_box(span);
    }
}

/// The events of one turn: a request, text, usage, a tool call through the gate, its result,
/// the commit.
fn turn_events(turn: u32) -> Vec<RunEvent> {
    let id = format!("call_{turn}");
    vec![
        RunEvent::ModelRequest {
            turn,
            message_count: 3,
            tool_count: 5,
            prompt_token_budget: 100_000,
            estimated_prompt_tokens: 1_000,
            model_context_window: 128_000,
        },
        RunEvent::TextDelta {
            text: "Reading the file to find the bug.".into(),
            provisional: false,
        },
        RunEvent::Usage {
            input_tokens: 1_000,
            output_tokens: 40,
        },
        RunEvent::ToolCall {
            id: id.clone(),
            name: "read_file".into(),
            arguments: serde_json::json!({"path": "src/auth.ts"}),
        },
        RunEvent::ToolDecision {
            id: id.clone(),
            name: "read_file".into(),
            risk: RiskLevel::Safe,
            decision: Verdict::Allow,
            reason: "safe".into(),
            by: DecidedBy::Policy,
            hint: None,
        },
        RunEvent::ToolResult {
            id,
            name: "read_file".into(),
            content: "export function greeting() {}\n".repeat(30),
            is_error: false,
            duration_ms: 1,
        },
        RunEvent::TurnCommitted {
            turn,
            messages: Vec::new(),
        },
    ]
}

fn bench_turns(bencher: Bencher<'_, '_>, sink: Arc<dyn SpanSink>, session: Option<&str>) {
    let root = OpenSpan::root(
        TraceId::random(),
        session,
        sink,
        TracePolicy::default(),
        SpanDetail::Session {
            prompt: "go".into(),
        },
    );
    let mut tracer = RunTracer::start(&root.context(), "worker", "go", 0);
    let mut turn = 0;
    bencher
        .with_inputs(|| {
            turn += 1;
            turn_events(turn)
        })
        .bench_local_values(|events| {
            for event in &events {
                tracer.event(event);
            }
        });
}

/// The span builder alone.
#[divan::bench]
fn turn_spans_only(bencher: Bencher<'_, '_>) {
    bench_turns(bencher, Arc::new(Drop), None);
}

/// The span builder writing JSONL lines.
#[divan::bench]
fn turn_to_jsonl(bencher: Bencher<'_, '_>) {
    let dir = tempfile::tempdir().unwrap();
    let sink = Arc::new(JsonlSink::new(dir.path(), Arc::new(|_| {})));
    bench_turns(bencher, sink, Some("20261123-000000-bench"));
}

/// The span builder writing to the SQLite session store (one transaction per span).
#[divan::bench]
fn turn_to_session_store(bencher: Bencher<'_, '_>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("sessions.db")).unwrap());
    let session = store.create_session(None).unwrap().id;
    let sink = Arc::new(StoreSink::new(
        store as Arc<dyn TraceLog>,
        &session,
        Arc::new(|_| {}),
    ));
    bench_turns(bencher, sink, Some(&session));
}
