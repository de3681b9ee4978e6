//! The child's first message: goal, a short summary of the caller's recent turns, hints, the
//! expected result format and the resources (through the `@file:` mechanism).

use agentctl_context::{Expansion, expand_file_references};
use agentctl_core::{AgentDefinition, AgentSource, AgentSpec, Message, Scope, SourceFormat};
use agentctl_store::{MessageQuery, RunId, SessionStore};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// Characters kept of one message in the context summary.
const SUMMARY_MESSAGE_CHARS: usize = 400;
/// Characters kept of the whole context summary.
const SUMMARY_CHARS: usize = 2_400;

/// The built-in general-purpose sub-agent.
pub(crate) fn general_agent() -> AgentDefinition {
    AgentDefinition {
        spec: AgentSpec {
            name: "general".into(),
            description: Some("General-purpose sub-agent for delegated tasks.".into()),
            ..AgentSpec::default()
        },
        system_prompt: "You are a sub-agent. Another agent delegated one task to you: work on it \
                        on your own with the tools you have, then answer with the result only — \
                        concise, complete and usable without this conversation."
            .into(),
        source: AgentSource {
            format: SourceFormat::Native,
            path: "<built-in>".into(),
            scope: Scope::Project,
        },
        extra: Default::default(),
    }
}

/// What goes into the first message.
pub(crate) struct Brief {
    pub goal: String,
    pub caller: String,
    pub context_summary: Option<String>,
    pub hints: Vec<String>,
    pub schema: Option<Value>,
    pub resources: Vec<String>,
}

/// The first message, with the resources expanded against `root`.
pub(crate) fn first_message(brief: &Brief, root: &Path) -> Expansion {
    let mut text = format!("# Task\n\n{}\n", brief.goal.trim());
    if let Some(summary) = &brief.context_summary {
        let _ = write!(
            text,
            "\n## Context: recent turns of {}\n\n{summary}\n",
            brief.caller
        );
    }
    let hints: Vec<&str> = brief
        .hints
        .iter()
        .map(|hint| hint.trim())
        .filter(|hint| !hint.is_empty())
        .collect();
    if !hints.is_empty() {
        text.push_str("\n## Hints\n\n");
        for hint in hints {
            let _ = writeln!(text, "- {hint}");
        }
    }
    if let Some(schema) = &brief.schema {
        let _ = write!(
            text,
            "\n## Result format\n\nAnswer with one JSON value matching this JSON Schema, and \
             nothing else (no prose, no code fence):\n\n{schema}\n"
        );
    }
    let (references, mut warnings) = references(&brief.resources, root);
    if !references.is_empty() {
        let _ = write!(text, "\n## Resources\n\n{}", references.join(" "));
    }
    let mut expansion = expand_file_references(root, &text);
    if !warnings.is_empty() {
        expansion.text.push_str("\n\nResources not attached:");
        for warning in &warnings {
            let _ = write!(expansion.text, "\n- {warning}");
        }
        warnings.append(&mut expansion.warnings);
        expansion.warnings = warnings;
    }
    expansion
}

/// `@file:` references for the resources: a directory becomes `dir/**` (its files, up to the
/// per-reference limit). Resources that cannot be written as a reference are reported.
fn references(resources: &[String], root: &Path) -> (Vec<String>, Vec<String>) {
    let mut references = Vec::new();
    let mut warnings = Vec::new();
    for resource in resources {
        let resource = resource.trim();
        let resource = resource.strip_prefix("@file:").unwrap_or(resource);
        let resource = resource.strip_prefix("./").unwrap_or(resource);
        if resource.is_empty() {
            continue;
        }
        if resource.contains(char::is_whitespace) {
            warnings.push(format!("{resource}: paths with spaces cannot be attached"));
            continue;
        }
        let trimmed = resource.trim_end_matches('/');
        if trimmed.is_empty() || trimmed == "." {
            warnings.push(format!(
                "{resource}: the whole project is too large to attach; name files or folders"
            ));
        } else if root.join(trimmed).is_dir() {
            references.push(format!("@file:{trimmed}/**"));
        } else {
            references.push(format!("@file:{trimmed}"));
        }
    }
    (references, warnings)
}

/// The last messages of the caller's workspace, one short line each; `None` when there are
/// none or the store cannot say.
pub(crate) fn context_summary(
    store: &dyn SessionStore,
    session: &str,
    parent: RunId,
    last: usize,
) -> Option<String> {
    if last == 0 {
        return None;
    }
    let scope = store.run(parent).ok()?.context_scope;
    let query = MessageQuery {
        last: Some(last),
        ..MessageQuery::scope(scope)
    };
    let messages = store.messages(session, &query).ok()?;
    let mut summary = String::new();
    for stored in messages {
        let line = match &stored.message {
            Message::User { content } => format!("user: {}", shorten(content)),
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let mut line = format!(
                    "{}: {}",
                    stored.agent.as_deref().unwrap_or("assistant"),
                    shorten(content.as_deref().unwrap_or_default())
                );
                if !tool_calls.is_empty() {
                    let names: Vec<&str> = tool_calls.iter().map(|c| c.name.as_str()).collect();
                    let _ = write!(line, " [called {}]", names.join(", "));
                }
                line
            }
            Message::Tool { name, content, .. } => format!("{name} → {}", shorten(content)),
        };
        if summary.len() + line.len() > SUMMARY_CHARS {
            break;
        }
        summary.push_str("- ");
        summary.push_str(line.trim_end());
        summary.push('\n');
    }
    let summary = summary.trim_end().to_owned();
    (!summary.is_empty()).then_some(summary)
}

/// One line of at most [`SUMMARY_MESSAGE_CHARS`] characters.
pub(crate) fn shorten(text: &str) -> String {
    shorten_to(text, SUMMARY_MESSAGE_CHARS)
}

/// `text` on one line, cut at `max` characters with `…`.
pub(crate) fn shorten_to(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &flat[..cut]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_become_file_references_and_directories_globs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "fn a() {}").unwrap();
        std::fs::write(dir.path().join("notes.md"), "remember").unwrap();
        let brief = Brief {
            goal: "Summarise.".into(),
            caller: "main".into(),
            context_summary: Some("- user: hi".into()),
            hints: vec!["look at a.rs".into()],
            schema: None,
            resources: vec!["src/".into(), "@file:notes.md".into(), "my file".into()],
        };
        let out = first_message(&brief, dir.path());
        assert!(
            out.text.starts_with("# Task\n\nSummarise.\n"),
            "{}",
            out.text
        );
        assert!(
            out.text
                .contains("## Context: recent turns of main\n\n- user: hi")
        );
        assert!(out.text.contains("## Hints\n\n- look at a.rs"));
        assert!(out.text.contains("@file:src/** @file:notes.md"));
        assert!(
            out.text
                .contains("<File path=\"src/a.rs\"><![CDATA[fn a() {}]]>")
        );
        assert!(
            out.text
                .contains("<File path=\"notes.md\"><![CDATA[remember]]>")
        );
        assert!(
            out.text
                .contains("my file: paths with spaces cannot be attached")
        );
        assert_eq!(out.files.len(), 2);
    }

    #[test]
    fn shorten_flattens_and_cuts() {
        assert_eq!(shorten_to("a\n  b c", 10), "a b c");
        assert_eq!(shorten_to("abcdef", 3), "abc…");
    }
}
