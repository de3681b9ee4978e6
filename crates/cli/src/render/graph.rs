//! A graph run's events: in text, a header per node, the node's tool lines and guardrail
//! checks (through the run renderer, without the answer text), the edge taken; in
//! `stream-json`, one event per line; and the outcome at the end.

use super::events::{Renderer, excerpt, json_line};
use super::spinner::Spinner;
use crate::args::RunFormat;
use crate::output::terminal_safe;
use crate::wire::{GraphEventLine, GraphResult};
use agentctl_core::{GraphEvent, GraphStart};
use agentctl_session::GraphOutcome;
use std::io::{IsTerminal as _, Write as _};

/// Shows graph events: in text, a header per node, its run's tool lines and checks (through
/// the run renderer, without the answer text), the edge taken; in `stream-json`, one event
/// per line.
pub(crate) struct GraphRenderer {
    format: RunFormat,
    spinner: Spinner,
    /// The renderer of the node running now.
    node: Option<Renderer>,
    dim: bool,
    /// The graph's session, from its `graph_started` event (the first): on every line.
    session_id: Option<String>,
}

impl GraphRenderer {
    /// A renderer of graph events in `format`.
    pub(crate) fn new(format: RunFormat, spinner: Spinner) -> Self {
        Self {
            format,
            spinner,
            node: None,
            dim: std::io::stderr().is_terminal(),
            session_id: None,
        }
    }

    /// Shows one event.
    pub(crate) fn show(&mut self, event: &GraphEvent) {
        match self.format {
            RunFormat::Json => {}
            RunFormat::StreamJson => {
                if let GraphEvent::GraphStarted { session_id, .. } = event {
                    self.session_id = Some(session_id.clone());
                }
                json_line(&GraphEventLine {
                    session_id: self.session_id.as_deref(),
                    event: event.into(),
                });
            }
            RunFormat::Text => self.text(event),
        }
    }

    /// Clears the spinner and ends a half-written line, before a question.
    pub(crate) fn pause(&mut self) {
        if let Some(node) = self.node.as_mut() {
            node.pause();
        }
    }

    /// Ends the node being shown.
    pub(crate) fn finish(&mut self) {
        if let Some(node) = self.node.as_mut() {
            node.finish();
        }
    }

    fn text(&mut self, event: &GraphEvent) {
        match event {
            GraphEvent::GraphStarted {
                graph,
                session_id,
                branch,
                from_step,
                next,
                start,
            } => {
                let how = match start {
                    GraphStart::New => String::new(),
                    GraphStart::Resumed => format!(", resumed at step {from_step} ({next} next)"),
                    GraphStart::Forked => format!(", from step {from_step} ({next} next)"),
                };
                self.line(&format!(
                    "📊 Graph {graph} · session {session_id} · branch {branch}{how}"
                ));
            }
            GraphEvent::NodeStarted { step, node, agent } => {
                if let Some(previous) = self.node.as_mut() {
                    previous.finish();
                }
                self.line(&format!("\n[{node}] {agent} (step {step})"));
                self.node =
                    Some(Renderer::new(RunFormat::Text, self.spinner.clone()).without_answers());
            }
            GraphEvent::Run { event, .. } => {
                if let Some(node) = self.node.as_mut() {
                    node.event(event);
                }
            }
            GraphEvent::Warning { node, message } => {
                self.line(&format!("warning: node `{node}`: {message}"));
            }
            GraphEvent::NodeFinished {
                output_key, output, ..
            } => {
                let shown = match output {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                self.dim_line(&format!("  → {output_key}: {}", excerpt(&shown)));
            }
            GraphEvent::EdgeTaken {
                from, to, reason, ..
            } => {
                self.line(&format!("[{from} → {to}] {reason}"));
            }
            GraphEvent::CheckpointSaved { step, .. } => {
                self.dim_line(&format!("  ✓ checkpoint {step} saved"));
            }
            GraphEvent::GraphFinished { reason, .. } => {
                self.line(&format!("\n✓ Graph finished: {reason}"));
            }
            // The error is printed once, as the command's error.
            _ => {}
        }
    }

    fn line(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", terminal_safe(text));
    }

    fn dim_line(&self, text: &str) {
        let text = terminal_safe(text);
        let mut err = std::io::stderr().lock();
        let _ = if self.dim {
            writeln!(err, "\x1b[2m{text}\x1b[0m")
        } else {
            writeln!(err, "{text}")
        };
    }
}

/// The last node's answer on stdout (text), or the outcome object (json).
pub(crate) fn print_outcome(outcome: &GraphOutcome, format: RunFormat) -> anyhow::Result<()> {
    match format {
        RunFormat::Text => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", terminal_safe(outcome.text.trim_end()));
            Ok(())
        }
        RunFormat::Json => crate::output::print_json(&GraphResult::from(outcome)),
        RunFormat::StreamJson => Ok(()),
    }
}
