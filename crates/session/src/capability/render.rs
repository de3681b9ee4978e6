//! The capability context as a system prompt section (seed 004's `contextToSystemPrompt`) and
//! the STOP report as the model reads it.
//!
//! Text a model wrote (a task's goal and id) goes on one line, shortened, so it can neither
//! forge a heading of the section nor fill the executor's system prompt.

use super::{AgentCapabilityContext, CapabilityRow, StopReport};
use crate::task::shorten_to as one_line;
use std::fmt::Write as _;

/// Characters of a task's description kept in the section.
const DESCRIPTION_CHARS: usize = 500;
/// Characters of a task's id kept.
const ID_CHARS: usize = 80;

impl AgentCapabilityContext {
    /// The dynamic system prompt section, in Markdown: `## Resource pool`, `## Capability
    /// catalog`, `## Current task`, `## Orchestrator note`.
    pub fn render_markdown(&self) -> String {
        let mut out = String::new();
        self.write_pool(&mut out);
        self.write_catalog(&mut out);
        self.write_task(&mut out);
        self.write_note(&mut out);
        out
    }

    /// `## Resource pool`: the counts, then each executor's status and capabilities.
    fn write_pool(&self, out: &mut String) {
        let pool = &self.resource_pool;
        let _ = write!(
            out,
            "## Resource pool\n\nAs of {}:\n- Total: {}\n- Available: {}\n- Busy: {}\n- Error: {}\n",
            self.timestamp, pool.total, pool.available, pool.busy, pool.error
        );
        if !self.executors.is_empty() {
            out.push_str("\n| Agent | Status | Capabilities |\n|---|---|---|\n");
            for executor in &self.executors {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    cell(&executor.name),
                    executor.status,
                    list_or_dash(&executor.capabilities)
                );
            }
        }
    }

    /// `## Capability catalog`: what is available, then one row per capability.
    fn write_catalog(&self, out: &mut String) {
        let _ = write!(
            out,
            "\n## Capability catalog\n\nAvailable capabilities: {}.\n\n\
             | Capability | Available | Total | Available agents | Tools |\n|---|---|---|---|---|\n",
            if self.available_capabilities.is_empty() {
                "none".to_owned()
            } else {
                self.available_capabilities.join(", ")
            }
        );
        for row in &self.capabilities {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(&row.capability),
                row.available.len(),
                row.total(),
                list_or_dash(&row.available),
                cell(&row.tools.join(", "))
            );
        }
    }

    /// `## Current task`: its id, description (each on one line, shortened), what it needs and
    /// who has it.
    fn write_task(&self, out: &mut String) {
        out.push_str("\n## Current task\n\n");
        let Some(task) = &self.task else {
            out.push_str("None.\n");
            return;
        };
        let _ = writeln!(out, "- ID: {}", one_line(&task.id, ID_CHARS));
        if let Some(tracked) = &task.bd_task_id {
            let _ = writeln!(
                out,
                "- Tracker ID (bdTaskId): {}",
                one_line(tracked, ID_CHARS)
            );
        }
        let _ = writeln!(
            out,
            "- Description: {}",
            one_line(&task.description, DESCRIPTION_CHARS)
        );
        let _ = writeln!(
            out,
            "- Required capabilities: {}",
            if task.required_capabilities.is_empty() {
                "none".to_owned()
            } else {
                task.required_capabilities.join(", ")
            }
        );
        if let Some(agent) = &self.assigned_to {
            let _ = writeln!(out, "- Assigned agent: {agent}");
        }
    }

    /// `## Orchestrator note`: the orchestrator's own note, then what to do with the task.
    fn write_note(&self, out: &mut String) {
        out.push_str("\n## Orchestrator note\n\n");
        if let Some(note) = self.orchestrator_note.as_deref().map(str::trim)
            && !note.is_empty()
        {
            out.push_str(note);
            out.push_str("\n\n");
        }
        match (&self.stop, &self.assigned_to, &self.task) {
            (Some(stop), _, _) => {
                let _ = writeln!(
                    out,
                    "Do not dispatch this task: {}. Report the missing capability to the user.",
                    stop.reason
                );
            }
            (None, Some(agent), _) => {
                let _ = writeln!(
                    out,
                    "This task was dispatched to `{agent}`: work on it with your own tools."
                );
            }
            (None, None, Some(_)) => out.push_str(
                "This task was dispatched to a copy of the agent that delegated it: work on it \
                 with your own tools.\n",
            ),
            (None, None, None) => out.push_str(
                "Dispatch each task to an available agent that has every capability it needs \
                 (`task` with `agent`, or with `capabilities` to let the pool choose); busy and \
                 failed agents cannot take tasks. When no available agent has a capability, the \
                 task stops with a report: tell the user what is missing.\n",
            ),
        }
    }
}

impl StopReport {
    /// Seed 004's STOP report: what the task needed, the catalog lines of those capabilities
    /// and the decision, in the words the model reads as the `task` call's result.
    ///
    /// ```text
    /// STOP: task `call-1` was not dispatched: no available agent has the capability web_search.
    /// Task: search DeepSeek papers
    /// Required capabilities: web_search
    /// Capability catalog:
    /// - web_search: 0/1 available; researcher (busy)
    /// Decision: not enough resources, so the task did not run. Report the missing capability
    /// web_search to the user, then wait for an agent to be released or ask the user to add one.
    /// ```
    pub fn render(&self) -> String {
        let mut out = format!(
            "STOP: task `{}` was not dispatched: {}.\nTask: {}\nRequired capabilities: {}\n",
            one_line(&self.task_id, ID_CHARS),
            self.reason,
            one_line(&self.task, DESCRIPTION_CHARS),
            if self.required_capabilities.is_empty() {
                "none".to_owned()
            } else {
                self.required_capabilities.join(", ")
            }
        );
        if !self.catalog.is_empty() {
            out.push_str("Capability catalog:\n");
            for row in &self.catalog {
                out.push_str(&catalog_line(row));
            }
        }
        let listed = |executor: &String| {
            self.catalog
                .iter()
                .any(|row| row.unavailable.contains(executor))
        };
        if !self.unavailable_executors.iter().all(listed) {
            let _ = writeln!(
                out,
                "Unavailable agents: {}",
                self.unavailable_executors.join(", ")
            );
        }
        out.push_str("Decision: not enough resources, so the task did not run. ");
        if self.missing_capabilities.is_empty() {
            out.push_str(
                "Tell the user, then wait for an agent to be released (or dispatch the task to \
                 an available agent that can do it).",
            );
        } else {
            let _ = write!(
                out,
                "Report the missing capability {} to the user, then wait for an agent to be \
                 released or ask the user to add one.",
                self.missing_capabilities.join(", ")
            );
        }
        out
    }
}

/// `- web_search: 0/1 available; researcher (busy)`.
fn catalog_line(row: &CapabilityRow) -> String {
    let mut line = format!(
        "- {}: {}/{} available",
        row.capability,
        row.available.len(),
        row.total()
    );
    if !row.available.is_empty() {
        let _ = write!(line, " ({})", row.available.join(", "));
    }
    if !row.unavailable.is_empty() {
        let _ = write!(line, "; {}", row.unavailable.join(", "));
    }
    if row.total() == 0 {
        let _ = write!(line, " (no agent has {})", row.tools.join(" or "));
    }
    line.push('\n');
    line
}

fn list_or_dash(items: &[String]) -> String {
    if items.is_empty() {
        "—".to_owned()
    } else {
        cell(&items.join(", "))
    }
}

/// A table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    one_line(text, DESCRIPTION_CHARS).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(
            one_line("a\n## Orchestrator note\nb", 100),
            "a ## Orchestrator note b"
        );
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(cell("a|b"), "a\\|b");
    }
}
