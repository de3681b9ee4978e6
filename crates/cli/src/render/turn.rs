//! One turn of a session as the user sees it: its context line, its runs' events (or its
//! graph's), and the session's notices. Questions and the outcome are the driver's.

use super::events::Renderer;
use super::graph::GraphRenderer;
use super::spinner::Spinner;
use crate::args::RunFormat;
use agentctl_session::context::ResolvedMode;
use agentctl_session::{EventMsg, Notice};
use std::io::{IsTerminal as _, Write as _};

/// Whether (and how) the turn's context line is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ContextLine {
    /// Not shown.
    Hidden,
    /// `context: …`.
    Plain,
    /// `@agent · context: …` (a REPL mention).
    Mention,
}

/// Renders one turn's events.
pub(crate) struct TurnView {
    format: RunFormat,
    spinner: Spinner,
    run: Renderer,
    graph: Option<GraphRenderer>,
    context: ContextLine,
}

impl TurnView {
    /// A view in `format` of a turn of `session_id`.
    pub(crate) fn new(format: RunFormat, spinner: Spinner, session_id: Option<String>) -> Self {
        Self {
            format,
            run: Renderer::new(format, spinner.clone()).in_session(session_id),
            spinner,
            graph: None,
            context: ContextLine::Plain,
        }
    }

    /// The same view, showing the context line as `line` says.
    pub(crate) fn context(mut self, line: ContextLine) -> Self {
        self.context = line;
        self
    }

    /// Shows one event of the turn.
    pub(crate) fn show(&mut self, msg: &EventMsg) {
        match msg {
            EventMsg::TurnStarted { graph: true, .. } => {
                self.graph = Some(GraphRenderer::new(self.format, self.spinner.clone()));
            }
            EventMsg::TurnStarted {
                agent,
                title,
                context,
                ..
            } => {
                self.header(agent, title.as_deref());
                self.context_line(agent, context.as_ref())
            }
            EventMsg::Run(event) => self.run.event(event),
            EventMsg::Graph(event) => {
                if let Some(graph) = self.graph.as_mut() {
                    graph.show(event);
                }
            }
            EventMsg::Notice(notice) => notice_line(notice),
            _ => {}
        }
    }

    /// Clears the spinner and ends a half-written line, before a question.
    pub(crate) fn pause(&mut self) {
        self.run.pause();
        if let Some(graph) = self.graph.as_mut() {
            graph.pause();
        }
    }

    /// The turn ended.
    pub(crate) fn finish(&mut self) {
        if let Some(graph) = self.graph.as_mut() {
            graph.finish();
        }
        self.run.finish();
    }

    /// Seed 002's run header on a terminal, `🤖 Debug Analyzer`: the agent's title (else its
    /// name), once per turn of a plain run (a REPL mention has its own line).
    fn header(&self, agent: &str, title: Option<&str>) {
        if self.format != RunFormat::Text
            || self.context != ContextLine::Plain
            || !std::io::stderr().is_terminal()
        {
            return;
        }
        let title = title.map(str::trim).filter(|title| !title.is_empty());
        let line = crate::output::terminal_safe(title.unwrap_or(agent));
        let _ = writeln!(std::io::stderr().lock(), "🤖 {line}\n");
    }

    fn context_line(&self, agent: &str, context: Option<&ResolvedMode>) {
        if self.format != RunFormat::Text || self.context == ContextLine::Hidden {
            return;
        }
        let line = context_note(context);
        let line = match self.context {
            ContextLine::Mention => format!("@{agent} · {line}"),
            _ => line,
        };
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

/// Which context a turn works in and why (seed 000 example 3), as one line:
/// `context: shared (session override; the agent's own mode: isolated)`.
fn context_note(resolved: Option<&ResolvedMode>) -> String {
    let Some(resolved) = resolved else {
        return "context: main (the session's main conversation)".to_owned();
    };
    let mut line = format!("context: {} ({}", resolved.mode, resolved.source);
    if resolved.original != resolved.mode {
        line.push_str(&format!("; the agent's own mode: {}", resolved.original));
    }
    line.push(')');
    line
}

/// A notice of the session on stderr.
pub(crate) fn notice_line(notice: &Notice) {
    let mut err = std::io::stderr().lock();
    let _ = match notice {
        Notice::FileReference(warning) => writeln!(err, "warning: {warning}"),
        Notice::Instructions(warning) => writeln!(
            err,
            "warning: {}",
            crate::output::terminal_safe(&warning.to_string())
        ),
        Notice::Compacted { agent } => writeln!(
            err,
            "note: older messages of `{agent}` were summarised to fit the context window"
        ),
        Notice::McpServer(warning) => {
            writeln!(err, "warning: {}", crate::trust_cmd::mcp_warning(warning))
        }
        Notice::MemoryFolder(warning) => writeln!(
            err,
            "warning: {}",
            crate::output::terminal_safe(&crate::memory_cmd::memory_folder_warning(warning))
        ),
        Notice::ContextModeSet { agent, mode } => match mode {
            Some(mode) => writeln!(err, "note: `{agent}` works in {mode} context from now on"),
            None => writeln!(err, "note: `{agent}` works in its own context mode again"),
        },
        Notice::UnknownApproval { call_id } => {
            writeln!(
                err,
                "warning: no question waits for an answer about {call_id}"
            )
        }
        Notice::Failed { message } => writeln!(err, "error: {message}"),
        Notice::Hook {
            event,
            origin,
            command,
            message,
        } => {
            // A hook's stderr is the hook's to write: no escape sequence reaches the terminal.
            let message = agentctl_core::one_line(message, 300);
            let line = if command.is_empty() {
                // A declaration: the origin and the key say which.
                format!("warning: {origin}: {message}")
            } else {
                let command = agentctl_core::one_line(command, 80);
                format!("warning: {event} hook `{command}` ({origin}): {message}")
            };
            writeln!(err, "{}", crate::output::terminal_safe(&line))
        }
        _ => Ok(()),
    };
}
