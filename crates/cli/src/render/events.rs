//! A run's events as text (answer deltas on stdout, dim tool lines on stderr), as JSON lines
//! (`--format stream-json`), or nothing until the result (`--format json`).

use super::spinner::Spinner;
use crate::args::RunFormat;
use crate::output::terminal_safe;
use crate::wire::RunEventLine;
use agentctl_core::{
    Effort, GuardrailPolicy, GuardrailStage, PlanItem, PlanStatus, RunEvent, Verdict,
};
use std::collections::HashSet;
use std::io::{IsTerminal, Write};

/// Longest tool-argument or tool-error excerpt shown on a tool line.
const EXCERPT_CHARS: usize = 120;

/// Turns events into output.
pub(crate) struct Renderer {
    format: RunFormat,
    /// Whether answer text goes to stdout (not for a graph's nodes: only the graph's last
    /// answer does, printed by the graph command).
    answers: bool,
    /// True when stdout's last text did not end a line.
    mid_line: bool,
    /// Dim styling for tool lines, when stderr is a terminal.
    dim: bool,
    spinner: Spinner,
    spinner_enabled: bool,
    /// Calls refused by the gate: their warning line replaces the result line.
    denied: HashSet<String>,
    /// Answer text an output guardrail has not passed yet (or, when stdout is not a terminal,
    /// any text not yet known to be the final answer): printed once it stands, dropped when it
    /// fails.
    held: String,
    /// Stream answer text to stdout as it comes (stdout is a terminal). Otherwise stdout gets
    /// the final answer only, and text before a tool call or a handoff goes to stderr, so a
    /// script can read stdout as the answer (`run … | jq`).
    stream_answers: bool,
    /// A `repair` guardrail failed: the next model request is the repair.
    repair_next: bool,
    /// A repair is under way: when its answer stands, say that it worked.
    repairing: bool,
    /// The session of the run, on every `stream-json` line.
    session_id: Option<String>,
}

impl Renderer {
    pub(crate) fn new(format: RunFormat, spinner: Spinner) -> Self {
        let terminal = std::io::stderr().is_terminal();
        Self {
            format,
            answers: true,
            mid_line: false,
            dim: terminal,
            spinner,
            spinner_enabled: terminal,
            denied: HashSet::new(),
            held: String::new(),
            stream_answers: std::io::stdout().is_terminal(),
            repair_next: false,
            repairing: false,
            session_id: None,
        }
    }

    /// The same renderer, naming `session_id` on its `stream-json` lines.
    pub(crate) fn in_session(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }

    pub(crate) fn event(&mut self, event: &RunEvent) {
        match self.format {
            RunFormat::Json => {}
            RunFormat::StreamJson => json_line(&RunEventLine {
                session_id: self.session_id.as_deref(),
                event: event.into(),
            }),
            RunFormat::Text => self.text_event(event),
        }
    }

    // Kept whole: one arm per run event, each its line of the text output.
    fn text_event(&mut self, event: &RunEvent) {
        match event {
            RunEvent::ModelRequest { .. } => {
                if std::mem::take(&mut self.repair_next) {
                    self.repairing = true;
                    self.notice("🔧 Repairing output with LLM...");
                }
                self.start_spinner();
            }
            // Text an output guardrail may still reject waits, under the spinner.
            RunEvent::TextDelta {
                text,
                provisional: true,
            } => self.held.push_str(text),
            RunEvent::TextDelta { text, .. } if !self.stream_answers => self.held.push_str(text),
            RunEvent::TextDelta { text, .. } => {
                self.stop_spinner();
                self.print_text(text);
            }
            RunEvent::Guardrail {
                name,
                stage,
                passed,
                policy,
                errors,
                attempt,
            } => self.guardrail(name, *stage, *passed, *policy, errors, *attempt),
            RunEvent::ToolCall {
                name, arguments, ..
            } => {
                self.stop_spinner();
                // Text before a tool call was not the final answer: nothing checks it.
                self.release_between();
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
                self.answer_stands(false);
                self.end_line();
                let reason = if reason.trim().is_empty() {
                    String::new()
                } else {
                    format!(" ({})", terminal_safe(reason.trim()))
                };
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "🔄 Handoff: {from} → {to}{reason}");
            }
            RunEvent::EffortAdjusted { model, asked, sent } => {
                self.notice(&effort_note(model, *asked, *sent));
            }
            RunEvent::PlanUpdated { items } => {
                self.stop_spinner();
                self.end_line();
                self.plan(items);
            }
            RunEvent::RunFinished { .. } => {
                self.stop_spinner();
                self.answer_stands(true);
                self.finish();
            }
            RunEvent::RunFailed { .. } => {
                self.held.clear();
                self.finish();
            }
            _ => {}
        }
    }

    /// A guardrail's result: a failure as the violation block (the errors, then the policy),
    /// a first pass as a dim line (a repaired answer that stands is announced when it is
    /// printed).
    fn guardrail(
        &mut self,
        name: &str,
        stage: GuardrailStage,
        passed: bool,
        policy: GuardrailPolicy,
        errors: &[String],
        attempt: u32,
    ) {
        self.stop_spinner();
        if passed {
            // After a repair, what counts is whether the repaired answer stands as a whole.
            if attempt == 0 {
                self.tool_line(&format!("✓ Guardrail passed: {name} ({stage})"));
            }
            return;
        }
        if policy != GuardrailPolicy::Warn {
            // The answer it checked is rejected or replaced: it is never shown.
            self.held.clear();
        }
        self.end_line();
        let mut block = format!("✗ Guardrail violation: {name}\n");
        for error in errors {
            block.push_str(&format!("  - {error}\n"));
        }
        block.push_str(&format!("\nPolicy: {policy}"));
        match policy {
            GuardrailPolicy::Repair => self.repair_next = true,
            GuardrailPolicy::Warn => block.push_str(" (recorded; the run goes on)"),
            _ => {}
        }
        self.notice(&block);
    }

    /// A line (or block) on stderr, not dimmed.
    fn notice(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", terminal_safe(text));
    }

    /// A renderer of tool lines and guardrail checks only (a graph node's run).
    pub(crate) fn without_answers(mut self) -> Self {
        self.answers = false;
        self
    }

    fn print_text(&mut self, text: &str) {
        if !self.answers {
            return;
        }
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(terminal_safe(text).as_bytes());
        let _ = out.flush();
        if !text.is_empty() {
            self.mid_line = !text.ends_with('\n');
        }
    }

    /// An answer stands — the run's `last` one, or one before a handoff: after a repair, say
    /// it worked; print it.
    fn answer_stands(&mut self, last: bool) {
        if std::mem::take(&mut self.repairing) {
            self.end_line();
            self.notice("✓ Repaired output passes validation");
        }
        if last {
            let held = std::mem::take(&mut self.held);
            self.print_text(&held);
        } else {
            self.release_between();
        }
    }

    /// Prints held text that is not the final answer: on stdout when answers stream there,
    /// else on stderr.
    fn release_between(&mut self) {
        let held = std::mem::take(&mut self.held);
        if self.stream_answers {
            self.print_text(&held);
        } else if self.answers && !held.trim().is_empty() {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{}", terminal_safe(held.trim_end()));
        }
    }

    /// The session's plan, after a change: one line an item, `☑` done, `◐` in progress.
    fn plan(&self, items: &[PlanItem]) {
        self.tool_line("📋 Plan:");
        for item in items {
            let mark = match item.status {
                PlanStatus::Pending => "☐",
                PlanStatus::InProgress => "◐",
                PlanStatus::Completed => "☑",
            };
            self.tool_line(&format!("  {mark} {}. {}", item.id, item.content));
        }
    }

    pub(crate) fn tool_line(&self, line: &str) {
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
    pub(crate) fn pause(&mut self) {
        self.stop_spinner();
        self.end_line();
    }

    pub(crate) fn finish(&mut self) {
        self.stop_spinner();
        if self.format == RunFormat::Text {
            self.end_line();
        }
    }
}

/// One event of `--format stream-json`: a JSON line on stdout, flushed.
pub(crate) fn json_line(event: &impl serde::Serialize) {
    let mut out = std::io::stdout().lock();
    // A closed stdout (e.g. `| head`) is not the run's failure.
    let _ = serde_json::to_writer(&mut out, event);
    let _ = writeln!(out);
    let _ = out.flush();
}

/// The first line of `text`, cut to [`EXCERPT_CHARS`].
pub(crate) fn excerpt(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if text.lines().nth(1).is_some() => format!("{line} …"),
        None => line.to_owned(),
    }
}

/// The note of a run whose effort is not sent as asked.
fn effort_note(model: &str, asked: Effort, sent: Option<Effort>) -> String {
    match sent {
        None => {
            format!("note: effort `{asked}` is not sent: {model} does not reason (model catalogue)")
        }
        Some(sent) => {
            format!("note: effort `{asked}` is sent as `{sent}`, the nearest level {model} accepts")
        }
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
