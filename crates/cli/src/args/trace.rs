//! Arguments of `agentctl trace …` (also `agentctl agents trace …`, the seed's spelling).

use super::TextFormat;
use clap::{Args, Subcommand, ValueEnum};

/// `agentctl trace …`.
#[derive(Debug, Subcommand)]
pub(crate) enum TraceCommand {
    /// Print a session's trace as a timeline tree with durations (the waterfall).
    #[command(
        after_help = "Examples:\n  agentctl trace show --session 20260101-120000-ab12\n  \
agentctl trace show --session 20260101-120000-ab12 --format json\n\n\
A session has a trace when its runs were traced: `agentctl run … --trace`, `tracing:` in the\n\
agent file, or `agents.tracing` in the settings."
    )]
    Show(TraceShowArgs),
    /// Write a session's whole trace — every run, sub-agent, handoff, guardrail — to stdout.
    #[command(
        after_help = "Examples:\n  agentctl trace export --session 20260101-120000-ab12 --format json > trace.json\n  \
agentctl trace export --session 20260101-120000-ab12 --format jsonl | jq .type\n  \
agentctl trace export --session 20260101-120000-ab12 --format otlp-json > spans.json\n\n\
Formats: json (an array of spans), jsonl (one span per line), otlp-json (the OTLP JSON\n\
encoding of the spans, as an OpenTelemetry collector's file receiver reads it)."
    )]
    Export(TraceExportArgs),
}

#[derive(Debug, Args)]
pub(crate) struct TraceShowArgs {
    /// The session (`agentctl sessions list` shows the ids).
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Output format: the tree, or the spans nested as JSON.
    #[arg(long, value_enum, default_value_t)]
    pub format: TextFormat,
}

#[derive(Debug, Args)]
pub(crate) struct TraceExportArgs {
    /// The session (`agentctl sessions list` shows the ids).
    #[arg(long, value_name = "ID")]
    pub session: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: ExportFormat,
    /// Put message contents (prompts, answers, tool arguments and results) into the OTLP
    /// attributes, as `tracing.captureContent` does for live export (otlp-json only).
    #[arg(long)]
    pub capture_content: bool,
}

/// Output format of `trace export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub(crate) enum ExportFormat {
    /// One JSON array of spans.
    #[default]
    Json,
    /// One span per line.
    Jsonl,
    /// OTLP JSON (`resourceSpans`), for an OpenTelemetry collector's file receiver.
    OtlpJson,
    /// Seed 002's trace events: one JSON array of `{type, timestamp, agentName, data}` for
    /// each model call, tool call, handoff and guardrail check.
    Seed,
}
