//! Tracing for agentctl: the spans of a turn, built from its runs' events, and the backends
//! that write them.
//!
//! * [`Tracing`] resolves whether a turn is traced ([`TracePlan`]: `agents.tracing`, the
//!   agent's `tracing:`, `--trace`, the sample rate — decided once per turn) and starts its
//!   root span; [`TurnTrace`] and [`RunTracer`] turn the runs' events into `run`, `llm`,
//!   `tool`, `guardrail` and `handoff` spans; [`OpenSpan`] is a `session`, `graph` or `node`
//!   span that encloses runs.
//! * Backends ([`SpanSink`](agentctl_core::SpanSink)s): the session store ([`StoreSink`],
//!   read back by `agentctl trace`), JSONL files ([`JsonlSink`]), the console
//!   ([`ConsoleSink`]) and OpenTelemetry.
//!
//! Every span passes [`TraceContext::record`](agentctl_core::TraceContext::record) — the
//! `events` filter, secret masking, the size cap — before a backend sees it. Only open spans
//! are held in memory: a run of any length writes its trace as it goes.

mod clock;
mod console;
mod otel;
mod otlp_json;
mod plan;
mod run;
mod seed;
mod sinks;
mod span;
mod tree;
mod turn;

pub use console::{ConsoleSink, console_block};
pub use otel::{
    CAPTURE_CONTENT_VAR, DEFAULT_ENDPOINT, DEFAULT_SHUTDOWN_TIMEOUT, DEFAULT_TIMEOUT,
    ExportWarning, LANGFUSE_DEFAULT_HOST, LANGSMITH_DEFAULT_ENDPOINT, OtelConfig, OtelError,
    OtelSink, SCOPE_NAME, SDK_DISABLED_VAR, WarningCallback, capture_content_from_env,
    sdk_disabled_from_env, span_data,
};
pub use otlp_json::otlp_json;
pub use plan::{TracePlan, Tracing};
pub use run::RunTracer;
pub use seed::{seed_event, span_cost};
pub use sinks::{FanOut, JsonlSink, MemorySink, StoreSink, WarningFn};
pub use span::OpenSpan;
pub use tree::{TraceNode, TraceTree, build_trees, render_waterfall};
pub use turn::TurnTrace;
