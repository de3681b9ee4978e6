//! Which format a file is written in: the folder gives the default, the content decides.
//!
//! Seed 002 puts agentctl's own format in `.gemini/agents/` (and a project may keep native
//! files next to Claude Code ones), so a folder alone cannot say how to read a file. A file in
//! a Claude Code or Gemini CLI folder that writes fields only the native format has — `kind:
//! agent`, `tools: {allow, deny}`, `contextMode`, `handoffs`, … — is read as native; every other
//! file is read as the folder's format, so Claude Code and Gemini CLI files load as published.

use crate::source::Source;
use agentctl_core::SourceFormat;

/// Native-only top-level fields: neither Claude Code nor Gemini CLI writes them.
const NATIVE_FIELDS: &[&str] = &[
    "contextMode",
    "contextFilter",
    "handoffs",
    "guardrails",
    "triggers",
    "title",
    "tracing",
    "graph",
];

/// The format a file is read in, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Detected {
    pub format: SourceFormat,
    pub reason: String,
}

/// Decides the format of a file found in a folder of `folder` format.
pub(crate) fn detect(folder: SourceFormat, source: &Source<'_>) -> Detected {
    let folder_name = match folder {
        SourceFormat::Native => {
            return Detected {
                format: folder,
                reason: "in an agentctl agents folder".to_owned(),
            };
        }
        SourceFormat::Claude => "Claude Code",
        SourceFormat::Gemini => "Gemini CLI",
    };
    let markers = native_markers(source);
    if markers.is_empty() {
        return Detected {
            format: folder,
            reason: format!("in a {folder_name} agents folder, with no agentctl-only fields"),
        };
    }
    Detected {
        format: SourceFormat::Native,
        reason: format!(
            "agentctl fields in a {folder_name} agents folder: {}",
            markers.join(", ")
        ),
    }
}

/// The native-only fields a file writes, as they would be quoted to a person.
fn native_markers(source: &Source<'_>) -> Vec<String> {
    let index = &source.index;
    let mut markers = Vec::new();
    if index.positions.contains_key("kind") && kind_value(source).as_deref() == Some("agent") {
        markers.push("`kind: agent`".to_owned());
    }
    for field in ["tools.allow", "tools.deny", "mcp.servers", "mcp.inline"] {
        if index.positions.contains_key(field) {
            markers.push(format!("`{field}`"));
        }
    }
    for field in NATIVE_FIELDS {
        if index.positions.contains_key(*field) {
            markers.push(format!("`{field}`"));
        }
    }
    markers
}

fn kind_value(source: &Source<'_>) -> Option<String> {
    source
        .top_level()
        .into_iter()
        .find(|(key, _)| key == "kind")
        .and_then(|(_, value)| value.as_str().map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_yaml(folder: SourceFormat, yaml: &str) -> Detected {
        let split = crate::frontmatter::Split {
            yaml,
            yaml_line: 2,
            body: "",
            body_line: 3,
        };
        let source = Source::parse(std::path::Path::new("a.md"), split, true).unwrap();
        detect(folder, &source)
    }

    #[test]
    fn gemini_files_stay_gemini() {
        let detected = detect_yaml(
            SourceFormat::Gemini,
            "kind: local\nname: a\ntools: [read_file]\nmax_turns: 3\n",
        );
        assert_eq!(detected.format, SourceFormat::Gemini);
        assert_eq!(
            detected.reason,
            "in a Gemini CLI agents folder, with no agentctl-only fields"
        );
    }

    #[test]
    fn seed_files_in_gemini_folders_are_native() {
        let detected = detect_yaml(
            SourceFormat::Gemini,
            "kind: agent\nname: a\ncontextMode: shared\ntools:\n  allow: [read_file]\n",
        );
        assert_eq!(detected.format, SourceFormat::Native);
        assert_eq!(
            detected.reason,
            "agentctl fields in a Gemini CLI agents folder: `kind: agent`, `tools.allow`, `contextMode`"
        );
    }

    #[test]
    fn one_native_field_is_enough_and_claude_folders_detect_too() {
        let detected = detect_yaml(SourceFormat::Claude, "name: a\nhandoffs:\n  - to: b\n");
        assert_eq!(detected.format, SourceFormat::Native);
        let plain = detect_yaml(SourceFormat::Claude, "name: a\ntools: Read, Grep\n");
        assert_eq!(plain.format, SourceFormat::Claude);
    }

    #[test]
    fn a_kind_other_than_agent_is_not_a_marker() {
        let detected = detect_yaml(SourceFormat::Gemini, "kind: remote\nname: a\n");
        assert_eq!(detected.format, SourceFormat::Gemini);
    }
}
