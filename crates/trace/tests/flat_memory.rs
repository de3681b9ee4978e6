//! A 10,000-step run keeps its trace memory flat: the tracer holds only what is open and the
//! JSONL backend appends each span as it finishes, so the heap after 10,000 model turns with
//! a tool call each is what it was after 1,000 — while the file on disk grew tenfold.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentctl_core::{DecidedBy, RiskLevel, RunEvent, SpanDetail, TraceId, TracePolicy, Verdict};
use agentctl_trace::{JsonlSink, OpenSpan, RunTracer};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn step(tracer: &mut RunTracer, turn: u32, text: &str) {
    let id = format!("call_{turn}");
    tracer.event(&RunEvent::ModelRequest {
        turn,
        message_count: 1,
        tool_count: 1,
        prompt_token_budget: 100_000,
        estimated_prompt_tokens: 10,
        model_context_window: 128_000,
    });
    tracer.event(&RunEvent::TextDelta {
        text: text.to_owned(),
        provisional: false,
    });
    tracer.event(&RunEvent::Usage {
        input_tokens: 100,
        output_tokens: 20,
    });
    tracer.event(&RunEvent::ToolCall {
        id: id.clone(),
        name: "read_file".into(),
        arguments: serde_json::json!({"path": "src/lib.rs"}),
    });
    tracer.event(&RunEvent::ToolDecision {
        id: id.clone(),
        name: "read_file".into(),
        risk: RiskLevel::Safe,
        decision: Verdict::Allow,
        reason: "safe".into(),
        by: DecidedBy::Policy,
        hint: None,
    });
    tracer.event(&RunEvent::ToolResult {
        id,
        name: "read_file".into(),
        content: text.to_owned(),
        is_error: false,
        duration_ms: 1,
    });
    tracer.event(&RunEvent::TurnCommitted {
        turn,
        messages: Vec::new(),
    });
}

/// Heap bytes in use now, as the counting allocator sees them since `region` began.
fn live(region: &Region<'_, System>) -> i64 {
    let stats = region.change();
    // Reallocations are already counted in both (growth as allocated, shrinking as freed).
    i64::try_from(stats.bytes_allocated).unwrap() - i64::try_from(stats.bytes_deallocated).unwrap()
}

#[test]
fn ten_thousand_steps_keep_trace_memory_flat() {
    let dir = tempfile::tempdir().unwrap();
    let warn = Arc::new(|message: String| panic!("{message}"));
    let sink = Arc::new(JsonlSink::new(dir.path(), warn));
    let session = OpenSpan::root(
        TraceId::random(),
        Some("20261123-000000-flat"),
        sink,
        TracePolicy::default(),
        SpanDetail::Session {
            prompt: "go".into(),
        },
    );
    let mut tracer = RunTracer::start(&session.context(), "worker", "go", 0);
    let text = "x".repeat(1024);
    let region = Region::new(GLOBAL);
    for turn in 1..=1_000 {
        step(&mut tracer, turn, &text);
    }
    let after_1k = live(&region);
    let file_size = || walk_size(dir.path());
    let size_1k = file_size();
    for turn in 1_001..=10_000 {
        step(&mut tracer, turn, &text);
    }
    let after_10k = live(&region);
    let size_10k = file_size();
    assert!(
        size_10k > size_1k * 9,
        "the spans went to the file: {size_1k} → {size_10k}"
    );
    let growth = after_10k - after_1k;
    assert!(
        growth < 64 * 1024,
        "heap grew by {growth} bytes over 9,000 more steps (after 1,000: {after_1k})"
    );
    tracer.finish();
    session.end(None);
}

fn walk_size(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        total += if path.is_dir() {
            walk_size(&path)
        } else {
            entry.metadata().unwrap().len()
        };
    }
    total
}
