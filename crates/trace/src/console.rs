//! The `console` backend: the seed's `[Trace]` lines on stderr as spans finish.
//!
//! ```text
//! [Trace] llm (debug-analyzer) - 1.2s
//!   Model: gemini:gemini-2.5-pro
//!   Tokens: 1234 → 567
//!
//! [Trace] tool (debug-analyzer) - 0.3s
//!   Tool: read_file
//!   Input: {"path":"app.ts"}
//!   Output: [file contents]
//! ```
//!
//! Inputs and outputs are abbreviated to a line; control characters a tool or model printed
//! are shown escaped, never sent to the terminal.

use crate::tree::duration;
use agentctl_core::{Span, SpanDetail, SpanKind, SpanSink};
use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Mutex, PoisonError};

/// Characters of an input or output shown.
const SHOWN_CHARS: usize = 120;

/// Writes each finished span as a `[Trace]` block (see the module docs).
pub struct ConsoleSink {
    out: Mutex<Box<dyn Write + Send>>,
}

impl ConsoleSink {
    /// Writes to stderr.
    pub fn stderr() -> Self {
        Self::new(Box::new(std::io::stderr()))
    }

    /// Writes to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out: Mutex::new(out),
        }
    }
}

impl SpanSink for ConsoleSink {
    fn record(&self, span: &Span) {
        // The turn itself adds nothing to what its runs said.
        if span.kind() == SpanKind::Session {
            return;
        }
        let text = console_block(span);
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        // A closed stderr must not stop the run.
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    }
}

/// One span as the console shows it, ending with a blank line.
///
/// ```
/// use agentctl_core::{Span, SpanDetail, SpanId, SpanStatus, SpanTokens, TraceId};
///
/// let span = Span {
///     trace_id: TraceId::random(), span_id: SpanId::random(), parent_id: None, links: vec![],
///     session_id: None, agent: Some("debug-analyzer".into()), start_unix_nano: 0,
///     duration_ms: 1234.0, status: SpanStatus::Ok, error: None,
///     detail: SpanDetail::Llm { model: "gemini:gemini-2.5-pro".into(), turn: 1, prompt: "p".into(),
///         response: "r".into(), tool_calls: vec![], tokens: SpanTokens { input: 1234, output: 567 },
///         latency_ms: 1234.0 },
/// };
/// assert_eq!(agentctl_trace::console_block(&span),
///     "[Trace] llm (debug-analyzer) - 1.2s\n  Model: gemini:gemini-2.5-pro\n  Tokens: 1234 → 567\n\n");
/// ```
// Kept whole: one arm per span kind, each the lines the console shows for it.
pub fn console_block(span: &Span) -> String {
    let agent = span.agent.as_deref().unwrap_or("-");
    let who = match &span.detail {
        SpanDetail::Handoff { from, to, .. } => format!("{from} → {to}"),
        _ => agent.to_owned(),
    };
    let mut text = format!(
        "[Trace] {} ({}) - {}\n",
        span.kind(),
        clean(&who),
        duration(span.duration_ms)
    );
    let mut line = |label: &str, value: &str| {
        let _ = writeln!(text, "  {label}: {}", clean(value));
    };
    match &span.detail {
        SpanDetail::Session { prompt } => line("Prompt", &abbreviate(prompt)),
        SpanDetail::Graph { graph, branch } => line("Graph", &format!("{graph} (branch {branch})")),
        SpanDetail::Node {
            graph,
            node,
            agent,
            step,
        } => line("Node", &format!("{graph}/{node} → {agent}, step {step}")),
        SpanDetail::Branch {
            graph,
            from,
            branch,
            index,
            of,
        } => line(
            "Branch",
            &format!("{graph}/{from} → {branch}, {} of {of}", index + 1),
        ),
        SpanDetail::Run {
            model,
            turns,
            tokens,
            ..
        } => {
            line("Model", model);
            line(
                "Turns",
                &format!("{turns} · Tokens: {} → {}", tokens.input, tokens.output),
            );
        }
        SpanDetail::Llm {
            model,
            tokens,
            tool_calls,
            ..
        } => {
            line("Model", model);
            line("Tokens", &format!("{} → {}", tokens.input, tokens.output));
            if !tool_calls.is_empty() {
                let names: Vec<&str> = tool_calls.iter().map(|call| call.name.as_str()).collect();
                line("Calls", &names.join(", "));
            }
        }
        SpanDetail::Tool {
            name,
            input,
            output,
            ..
        } => {
            line("Tool", name);
            line("Input", &abbreviate(&input.to_string()));
            if span.error.is_none() {
                line("Output", &abbreviate(output));
            }
        }
        SpanDetail::Handoff {
            reason, payload, ..
        } => {
            line("Reason", &abbreviate(reason));
            if !payload.is_null() {
                line("Payload", &abbreviate(&payload.to_string()));
            }
        }
        SpanDetail::Guardrail {
            name,
            stage,
            passed,
            policy,
            errors,
            attempt,
        } => {
            let verdict = if *passed { "passed" } else { "failed" };
            line(
                "Guardrail",
                &format!("{name} ({stage:?} · {policy:?} · attempt {attempt}): {verdict}")
                    .to_lowercase(),
            );
            for error in errors {
                line("Why", &abbreviate(error));
            }
        }
        _ => {}
    }
    if let Some(error) = &span.error {
        line("Error", &abbreviate(error));
    }
    text.push('\n');
    text
}

/// The first line, at most [`SHOWN_CHARS`] characters, with `…` when something was left out.
fn abbreviate(text: &str) -> String {
    let trimmed = text.trim();
    let first = trimmed.lines().next().unwrap_or_default();
    let mut shown: String = first.chars().take(SHOWN_CHARS).collect();
    let lines = trimmed.lines().count();
    if shown.len() < first.len() {
        shown.push('…');
    }
    if lines > 1 {
        let _ = write!(shown, " (+{} lines)", lines - 1);
    }
    shown
}

/// Control characters escaped: a tool's output must not drive the terminal.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}
