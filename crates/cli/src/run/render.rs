//! Renders a run's events as text (deltas on stdout, dim tool lines on stderr), one JSON result
//! object, or JSON lines.

use super::Ending;
use super::signals::stop_signal;
use super::terminal::{Frontend, Spinner};
use crate::args::RunFormat;
use crate::output::terminal_safe;
use agentctl_core::{RunError, RunEvent, Verdict};
use agentctl_session::{Conversation, Notice, Turn, TurnOutcome};
use agentctl_tools::ApprovalAnswer;
use futures_util::StreamExt;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};

/// Longest tool-argument or tool-error excerpt shown on a tool line.
const EXCERPT_CHARS: usize = 120;

/// One run with `format`; in `json` the result object (with the session id) is printed at the
/// end.
pub(super) async fn run_once(
    conversation: &mut Conversation,
    prompt: &str,
    format: RunFormat,
    frontend: &Frontend,
) -> anyhow::Result<Ending> {
    let session_id = conversation.session_id().map(str::to_owned);
    let turn = conversation.turn(prompt).await?;
    let (outcome, signal) = render_turn(turn, format, frontend).await;
    for warning in &outcome.warnings {
        super::warn(&warning.to_string());
    }
    if let Some(error) = outcome.save_error {
        return Ok(Ending::NotSaved(error.to_string()));
    }
    let result = match outcome.result {
        Ok(result) => result,
        Err(RunError::Cancelled) => return Ok(Ending::Signalled(signal.unwrap_or(2))),
        Err(error) => return Ok(Ending::Failed(error)),
    };
    if format == RunFormat::Json {
        let mut value = serde_json::to_value(&result)?;
        if let Some(object) = value.as_object_mut() {
            if let Some(id) = session_id {
                object.insert("sessionId".into(), id.into());
            }
            // The agents that worked on the prompt, in order (more than one after handoffs).
            object.insert("agents".into(), outcome.agents.clone().into());
        }
        let mut out = std::io::stdout().lock();
        // A closed stdout (e.g. `| head`) is not the run's failure.
        let _ = serde_json::to_writer_pretty(&mut out, &value);
        let _ = writeln!(out);
    }
    Ok(Ending::Done)
}

/// Renders one turn as its events come, asking approval questions once the events before them
/// are shown; SIGINT, SIGTERM and SIGHUP cancel the run (the signal is returned). The turn is
/// recorded by the session runner as its events pass.
pub(super) async fn render_turn(
    mut turn: Turn<'_>,
    format: RunFormat,
    frontend: &Frontend,
) -> (TurnOutcome, Option<i32>) {
    for notice in turn.notices() {
        let mut err = std::io::stderr().lock();
        let _ = match notice {
            Notice::FileReference(warning) => writeln!(err, "warning: {warning}"),
            Notice::Compacted { agent } => writeln!(
                err,
                "note: older messages of `{agent}` were summarised to fit the context window"
            ),
            _ => Ok(()),
        };
    }
    let cancel = turn.cancellation_token();
    let mut renderer = Renderer::new(format, frontend.spinner.clone());
    let mut questions = match &frontend.desk {
        Some(desk) => Some(desk.questions().await),
        None => None,
    };
    let mut signal = None;
    let mut stop = Box::pin(stop_signal());
    loop {
        let question = async {
            match questions.as_mut() {
                Some(questions) => questions.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            // Events first: a question is asked after everything emitted before it.
            biased;
            event = turn.next() => match event {
                Some(event) => renderer.event(&event),
                None => break,
            },
            number = &mut stop, if signal.is_none() => {
                signal = Some(number);
                cancel.cancel();
            }
            Some(question) = question => {
                renderer.pause();
                let answer = match &frontend.desk {
                    Some(desk) => tokio::select! {
                        answer = desk.ask(&question.request) => answer,
                        () = cancel.cancelled() => ApprovalAnswer::No,
                    },
                    None => ApprovalAnswer::No,
                };
                let _ = question.reply.send(answer);
            }
        }
    }
    renderer.finish();
    (turn.finish().await, signal)
}

/// Turns events into output.
struct Renderer {
    format: RunFormat,
    /// True when stdout's last text did not end a line.
    mid_line: bool,
    /// Dim styling for tool lines, when stderr is a terminal.
    dim: bool,
    spinner: Spinner,
    spinner_enabled: bool,
    /// Calls refused by the gate: their warning line replaces the result line.
    denied: HashSet<String>,
}

impl Renderer {
    fn new(format: RunFormat, spinner: Spinner) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Self {
            format,
            mid_line: false,
            dim: terminal,
            spinner,
            spinner_enabled: terminal,
            denied: HashSet::new(),
        }
    }

    fn event(&mut self, event: &RunEvent) {
        match self.format {
            RunFormat::Json => {}
            RunFormat::StreamJson => {
                let mut out = std::io::stdout().lock();
                let _ = serde_json::to_writer(&mut out, event);
                let _ = writeln!(out);
                let _ = out.flush();
            }
            RunFormat::Text => self.text_event(event),
        }
    }

    fn text_event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::ModelRequest { .. } => self.start_spinner(),
            RunEvent::TextDelta { text, .. } => {
                self.stop_spinner();
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(terminal_safe(text).as_bytes());
                let _ = out.flush();
                if !text.is_empty() {
                    self.mid_line = !text.ends_with('\n');
                }
            }
            RunEvent::ToolCall {
                name, arguments, ..
            } => {
                self.stop_spinner();
                self.end_line();
                self.tool_line(&format!("⏺ {name} {}", excerpt(&arguments.to_string())));
            }
            RunEvent::ApprovalRequested { .. } => self.stop_spinner(),
            RunEvent::ToolDecision {
                id,
                name,
                decision: Verdict::Deny,
                reason,
                hint,
                ..
            } => {
                self.stop_spinner();
                self.denied.insert(id.clone());
                let hint = hint
                    .as_ref()
                    .map(|hint| format!("; {}", crate::approvals::hint_text(hint)))
                    .unwrap_or_default();
                let mut err = std::io::stderr().lock();
                let _ = writeln!(
                    err,
                    "warning: {name} refused: {}{hint}",
                    terminal_safe(reason)
                );
            }
            RunEvent::ToolResult { id, .. } if self.denied.contains(id) => {}
            RunEvent::ToolResult {
                name,
                content,
                is_error,
                duration_ms,
                ..
            } => {
                let line = if *is_error {
                    format!("  ↳ {name} failed: {}", excerpt(content))
                } else {
                    let lines = content.lines().count();
                    format!(
                        "  ↳ {name}: {lines} line{} ({duration_ms} ms)",
                        if lines == 1 { "" } else { "s" }
                    )
                };
                self.tool_line(&line);
            }
            RunEvent::Handoff {
                from, to, reason, ..
            } => {
                self.stop_spinner();
                self.end_line();
                let reason = if reason.trim().is_empty() {
                    String::new()
                } else {
                    format!(" ({})", terminal_safe(reason.trim()))
                };
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "🔄 Handoff: {from} → {to}{reason}");
            }
            RunEvent::RunFinished { .. } | RunEvent::RunFailed { .. } => self.finish(),
            _ => {}
        }
    }

    fn tool_line(&self, line: &str) {
        let line = terminal_safe(line);
        let mut err = std::io::stderr().lock();
        let _ = if self.dim {
            writeln!(err, "\x1b[2m{line}\x1b[0m")
        } else {
            writeln!(err, "{line}")
        };
    }

    /// Ends a half-written line of answer text, so the next output starts on its own line.
    fn end_line(&mut self) {
        if self.mid_line {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out);
            let _ = out.flush();
            self.mid_line = false;
        }
    }

    fn start_spinner(&mut self) {
        if self.spinner_enabled {
            self.spinner.start();
        }
    }

    fn stop_spinner(&mut self) {
        self.spinner.stop();
    }

    /// Clears the spinner and ends a half-written line, before a question.
    fn pause(&mut self) {
        self.stop_spinner();
        self.end_line();
    }

    fn finish(&mut self) {
        self.stop_spinner();
        if self.format == RunFormat::Text {
            self.end_line();
        }
    }
}

/// The first line of `text`, cut to [`EXCERPT_CHARS`].
fn excerpt(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if text.lines().nth(1).is_some() => format!("{line} …"),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_one_short_line() {
        assert_eq!(excerpt("{\"path\":\"a\"}"), "{\"path\":\"a\"}");
        assert_eq!(excerpt("first\nsecond"), "first …");
        assert_eq!(excerpt(&"é".repeat(200)).chars().count(), EXCERPT_CHARS + 1);
    }
}
