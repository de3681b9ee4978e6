//! agentctl's own format: front matter is an [`AgentSpec`]; unknown fields warn and are kept.

use crate::source::{Mapped, Source};
use crate::{error::Result, schema, suggest};
use agentctl_core::AgentSpec;
use std::collections::BTreeMap;

/// Fields of the agent-file conventions agentctl shares with Claude Code that the session
/// reads from `extra` (not part of [`AgentSpec`]): the skills an agent is offered and its
/// hooks, kept without a warning.
const READ_FROM_EXTRA: &[&str] = &["skills", "hooks"];

pub(crate) fn read(source: &Source<'_>) -> Result<Mapped> {
    let spec: AgentSpec = source.deserialize()?;
    let mut warnings = Vec::new();
    let mut extra = BTreeMap::new();
    let unknown = schema::unknown_fields(&source.index);
    let mut top_level_unknown = Vec::new();
    for (entry, known) in &unknown {
        let key = entry.path.rsplit(['.', ']']).next().unwrap_or(&entry.path);
        let hint = suggest::similar(key, known.iter().map(String::as_str))
            .first()
            .map(|best| format!(" (did you mean `{best}`?)"))
            .unwrap_or_default();
        let top_level = entry.is_top_level();
        if top_level && READ_FROM_EXTRA.contains(&&*entry.path) {
            top_level_unknown.push(&*entry.path);
            continue;
        }
        let fate = if top_level {
            "kept in `extra`"
        } else {
            "ignored"
        };
        warnings.push(source.warning(&entry.path, format!("unknown field{hint}: {fate}")));
        if top_level {
            top_level_unknown.push(&*entry.path);
        }
    }
    if !top_level_unknown.is_empty() {
        for (key, value) in source.top_level() {
            if top_level_unknown.contains(&key.as_str()) {
                extra.insert(key, value);
            }
        }
    }
    // Seed 003's graph agents are named by their graph; a title is asked of agents only.
    let untitled = spec
        .title
        .as_deref()
        .is_none_or(|title| title.trim().is_empty());
    if untitled && spec.graph.is_none() {
        warnings.push(source.warning(
            "title",
            format!(
                "no `title`: lists and prompts show the name instead; add e.g. `title: {}`",
                suggested_title(&spec.name)
            ),
        ));
    }
    warnings.extend(crate::claude::bypass_warning(source, &spec));
    // A graph agent runs its nodes' agents, each with its own prompt: it needs none.
    let allow_empty_body = spec.graph.is_some();
    Ok(Mapped {
        spec,
        extra,
        warnings,
        allow_empty_body,
    })
}

/// `debug-analyzer` → `Debug Analyzer`.
fn suggested_title(name: &str) -> String {
    name.split(['-', '_'])
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use crate::parse_str;
    use agentctl_core::{ContextMode, Scope, SourceFormat};
    use std::path::Path;

    #[test]
    fn unknown_fields_warn_and_top_level_ones_are_kept() {
        let text = "---\nname: a\nmodle: x\ntools:\n  allows: [b]\n---\nPrompt\n";
        let agent = parse_str(
            text,
            Path::new("a.md"),
            SourceFormat::Native,
            Scope::Project,
        )
        .unwrap();
        assert_eq!(agent.definition.extra["modle"], "x");
        let warnings: Vec<String> = agent.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "a.md:3:1: field `modle`: unknown field (did you mean `model`?): kept in `extra`",
                "a.md:5:3: field `tools.allows`: unknown field (did you mean `allow`?): ignored",
                "a.md:2:1: field `title`: no `title`: lists and prompts show the name instead; add e.g. `title: A`",
            ]
        );
    }

    #[test]
    fn skills_are_kept_for_the_session_without_a_warning() {
        let text = "---\nname: a\ntitle: A\nskills: [pdf, notes]\n---\nPrompt\n";
        let agent = parse_str(
            text,
            Path::new("a.md"),
            SourceFormat::Native,
            Scope::Project,
        )
        .unwrap();
        assert_eq!(
            agent.definition.extra["skills"],
            serde_json::json!(["pdf", "notes"])
        );
        assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
    }

    #[test]
    fn a_missing_title_warns_with_a_suggestion() {
        let text = "---\nname: debug-analyzer\n---\nPrompt\n";
        let agent = parse_str(
            text,
            Path::new("a.md"),
            SourceFormat::Native,
            Scope::Project,
        )
        .unwrap();
        let warnings: Vec<String> = agent.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "a.md:2:1: field `title`: no `title`: lists and prompts show the name instead; add e.g. `title: Debug Analyzer`",
            ]
        );
    }

    #[test]
    fn reads_every_native_field() {
        let text = r#"---
# yaml-language-server: $schema=../schema.json
kind: agent
name: full
title: Full Agent
description: Uses every field
model: anthropic:claude-sonnet-4-5
color: blue
scope: project
version: 1.2
contextMode: shared
tools:
  allow: [read_file, "mcp.github.*"]
  deny: bash
mcp:
  servers: [github]
  inline:
    local:
      command: npx
      args: [-y, server]
maxTurns: 12
temperature: 0.3
triggers:
  - intent: review
    keywords: [review, diff]
    regex: 'review (this|the) (pr|diff)'
    priority: 5
handoffs:
  - to: fixer
    when: issues found
    payload:
      schema: {type: object}
guardrails:
  - name: json-out
    stage: output
    schema: {type: object}
    policy: repair
    maxRepairs: 2
memory:
  session: [files]
  longTerm: true
tracing:
  enabled: true
  events: [tool]
  backend: jsonl
  sampleRate: 0.5
---
Prompt body.
"#;
        let agent = parse_str(
            text,
            Path::new("full.md"),
            SourceFormat::Native,
            Scope::Project,
        )
        .unwrap();
        assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
        let spec = &agent.definition.spec;
        assert_eq!(spec.kind.as_deref(), Some("agent"));
        assert_eq!(spec.title.as_deref(), Some("Full Agent"));
        assert_eq!(spec.version.as_deref(), Some("1.2"));
        assert_eq!(spec.context_mode, Some(ContextMode::Shared));
        assert_eq!(
            spec.tools.allow.as_deref(),
            Some(&["read_file".to_owned(), "mcp.github.*".to_owned()][..])
        );
        assert_eq!(spec.tools.deny, ["bash"]);
        assert_eq!(spec.mcp.servers, ["github"]);
        assert_eq!(spec.mcp.inline["local"].args, ["-y", "server"]);
        assert_eq!(spec.max_turns, Some(12));
        assert_eq!(spec.triggers[0].regex, ["review (this|the) (pr|diff)"]);
        assert_eq!(spec.triggers[0].priority, 5);
        assert_eq!(spec.handoffs[0].to, "fixer");
        assert_eq!(spec.guardrails[0].max_repairs, Some(2));
        assert_eq!(
            spec.memory.as_ref().unwrap().long_term,
            Some(agentctl_core::LongTermMemory::default())
        );
        assert_eq!(spec.tracing.as_ref().unwrap().sample_rate, Some(0.5));
        assert_eq!(agent.locate("tools.allow[1]"), (13, 22));
        assert_eq!(agent.locate("triggers[0].regex[0]"), (26, 5));
        assert_eq!(agent.definition.system_prompt, "Prompt body.");
    }
}
