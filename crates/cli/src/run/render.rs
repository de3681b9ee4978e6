//! Renders a run's events as text (deltas on stdout, dim tool lines on stderr), one JSON result
//! object, or JSON lines.

use super::conversation::Conversation;
use super::session::TurnRecorder;
use super::terminal::{Frontend, Spinner};
use crate::args::RunFormat;
use agentctl_core::AgentDefinition;
use agentctl_runtime::{RunError, RunEvent, RunOptions, RunResult, Runtime, Verdict};
use agentctl_tools::ApprovalAnswer;
use futures_util::StreamExt;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};

/// Longest tool-argument or tool-error excerpt shown on a tool line.
const EXCERPT_CHARS: usize = 120;

/// One run with `format`; in `json` the result object (with the session id) is printed at the
/// end.
pub(super) async fn run_once(
    conversation: &mut Conversation<'_>,
    prompt: &str,
    format: RunFormat,
) -> anyhow::Result<Result<(), RunError>> {
    let result = match conversation.turn(prompt, format).await? {
        Ok(result) => result,
        Err(error) => return Ok(Err(error)),
    };
    if format == RunFormat::Json {
        let mut value = serde_json::to_value(&result)?;
        if let (Some(object), Some(id)) = (value.as_object_mut(), conversation.session_id()) {
            object.insert("sessionId".into(), id.into());
        }
        let mut out = std::io::stdout().lock();
        // A closed stdout (e.g. `| head`) is not the run's failure.
        let _ = serde_json::to_writer_pretty(&mut out, &value);
        let _ = writeln!(out);
    }
    Ok(Ok(()))
}

/// Runs one prompt, rendering (and recording) events as they come and asking approval
/// questions once the events before them are shown; Ctrl-C cancels the run.
pub(super) async fn run_turn(
    runtime: &Runtime,
    agent: &AgentDefinition,
    prompt: &str,
    options: RunOptions,
    format: RunFormat,
    frontend: &Frontend,
    mut recorder: Option<&mut TurnRecorder>,
) -> Result<RunResult, RunError> {
    let mut handle = runtime.run(agent, prompt, options);
    let cancel = handle.cancellation_token();
    let ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let mut renderer = Renderer::new(format, frontend.spinner.clone());
    let mut questions = match &frontend.desk {
        Some(desk) => Some(desk.questions().await),
        None => None,
    };
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
            event = handle.next() => match event {
                Some(event) => {
                    if let Some(recorder) = recorder.as_deref_mut() {
                        recorder.event(&event);
                    }
                    renderer.event(&event);
                }
                None => break,
            },
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
    ctrl_c.abort();
    renderer.finish();
    handle.result().await
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
            RunEvent::TextDelta { text } => {
                self.stop_spinner();
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
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
                ..
            } => {
                self.stop_spinner();
                self.denied.insert(id.clone());
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "warning: {name} refused: {reason}");
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
            RunEvent::RunFinished { .. } | RunEvent::RunFailed { .. } => self.finish(),
            _ => {}
        }
    }

    fn tool_line(&self, line: &str) {
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
