//! Claude Code subagent files (`.claude/agents/**/*.md`).
//!
//! Mapped onto the native spec: `tools`/`disallowedTools` through [`claude_tool_name`],
//! `mcpServers` into server names or inline servers, `permissionMode`, `effort`, `memory` into
//! the memory folder's scope ([`MemorySpec::scope`]); `skills`, `hooks`,
//! `initialPrompt`, `isolation`, `background` are kept in `extra` under their own names and
//! honoured from there by the session. Every field Claude Code defines for subagents is acted
//! on.

use crate::error::Result;
use crate::foreign::{deserialize_lenient, extras, map_tools, tool_list};
use crate::source::{Mapped, Source};
use agentctl_core::{
    AgentSpec, Effort, InstructionsMode, McpRefs, McpServerConfig, MemoryScope, MemorySpec,
    PermissionMode, ToolPolicy, claude_tool_name,
};
use serde::Deserialize;
use serde::de::{self, Deserializer, value::MapAccessDeserializer};
use std::collections::BTreeMap;
use std::fmt;

/// Fields mapped onto the native spec.
const MAPPED: &[&str] = &[
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "color",
    "maxTurns",
    "mcpServers",
    "instructions",
    "permissionMode",
    "memory",
    "effort",
];

/// Fields Claude Code defines that are kept in `extra` and honoured from there by the session
/// (its skills, hooks, background tasks, worktrees and initial prompts).
const KNOWN: &[&str] = &[
    "skills",
    "hooks",
    "background",
    "isolation",
    "initialPrompt",
];

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaudeFrontMatter {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default, deserialize_with = "tool_list")]
    tools: Option<Vec<String>>,
    #[serde(default, deserialize_with = "tool_list")]
    disallowed_tools: Option<Vec<String>>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    max_turns: Option<u32>,
    #[serde(default, deserialize_with = "mcp_servers")]
    mcp_servers: McpRefs,
    #[serde(default)]
    permission_mode: Option<PermissionMode>,
    /// `user`, `project` or `local`: the agent's memory folder.
    #[serde(default)]
    memory: Option<MemoryScope>,
    /// Claude Code's levels are `low`, `medium`, `high`, `xhigh` and `max`; agentctl's
    /// `minimal` is taken too.
    #[serde(default)]
    effort: Option<Effort>,
    /// agentctl's own field: whether the project instructions follow the prompt.
    #[serde(default)]
    instructions: Option<InstructionsMode>,
}

pub(crate) fn read(source: &mut Source<'_>) -> Result<Mapped> {
    let (front, mut warnings) = deserialize_lenient::<ClaudeFrontMatter>(source, "Claude Code")?;
    let name = match front.name.filter(|name| !name.trim().is_empty()) {
        Some(name) => name,
        None => {
            let stem = source.stem();
            warnings.push(source.warning(
                "name",
                format!("Claude Code requires `name`; using the file name `{stem}`"),
            ));
            stem
        }
    };
    let (extra, extra_warnings) = extras(source, MAPPED, KNOWN, "Claude Code");
    warnings.extend(extra_warnings);
    let spec = AgentSpec {
        name,
        description: front.description,
        model: front.model,
        color: front.color,
        max_turns: front.max_turns,
        tools: ToolPolicy {
            allow: front.tools.map(|tools| map_tools(&tools, claude_tool_name)),
            deny: front
                .disallowed_tools
                .map(|tools| map_tools(&tools, claude_tool_name))
                .unwrap_or_default(),
        },
        mcp: front.mcp_servers,
        instructions: front.instructions,
        permission_mode: front.permission_mode,
        memory: front.memory.map(|scope| MemorySpec {
            scope: Some(scope),
            ..MemorySpec::default()
        }),
        effort: front.effort,
        ..AgentSpec::default()
    };
    warnings.extend(bypass_warning(source, &spec));
    Ok(Mapped {
        spec,
        extra,
        warnings,
        allow_empty_body: false,
    })
}

/// The warning a `permissionMode: bypassPermissions` gets, in either format: agentctl runs
/// such an agent in `default` unless the user's own settings grant the bypass.
pub(crate) fn bypass_warning(
    source: &Source<'_>,
    spec: &AgentSpec,
) -> Option<crate::error::Diagnostic> {
    (spec.permission_mode == Some(PermissionMode::BypassPermissions)).then(|| {
        source.warning(
            "permissionMode",
            "`bypassPermissions` runs as `default` unless your own settings allow it \
             (`approvals.allowBypassPermissions: true` in the global settings file; a project's \
             settings cannot, or it could grant itself every call)",
        )
    })
}

/// `mcpServers`: a list of server names and `{name: config}` objects, or a map of configs.
fn mcp_servers<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<McpRefs, D::Error> {
    struct Visitor;

    impl<'de> de::Visitor<'de> for Visitor {
        type Value = McpRefs;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(
                "a list of MCP server names or `{name: config}` objects, or a map of configs",
            )
        }

        fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<McpRefs, E> {
            Ok(McpRefs {
                servers: vec![v.to_owned()],
                inline: BTreeMap::new(),
            })
        }

        fn visit_seq<A: de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<McpRefs, A::Error> {
            let mut refs = McpRefs::default();
            while let Some(item) = seq.next_element::<ServerItem>()? {
                match item {
                    ServerItem::Name(name) => refs.servers.push(name),
                    ServerItem::Inline(servers) => refs.inline.extend(servers),
                }
            }
            Ok(refs)
        }

        fn visit_map<A: de::MapAccess<'de>>(
            self,
            map: A,
        ) -> std::result::Result<McpRefs, A::Error> {
            let inline =
                BTreeMap::<String, McpServerConfig>::deserialize(MapAccessDeserializer::new(map))?;
            Ok(McpRefs {
                servers: Vec::new(),
                inline,
            })
        }

        fn visit_unit<E: de::Error>(self) -> std::result::Result<McpRefs, E> {
            Ok(McpRefs::default())
        }
    }

    deserializer.deserialize_any(Visitor)
}

enum ServerItem {
    Name(String),
    Inline(BTreeMap<String, McpServerConfig>),
}

impl<'de> Deserialize<'de> for ServerItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;

        impl<'de> de::Visitor<'de> for Visitor {
            type Value = ServerItem;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an MCP server name or a `{name: config}` object")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<ServerItem, E> {
                Ok(ServerItem::Name(v.to_owned()))
            }

            fn visit_map<A: de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<ServerItem, A::Error> {
                BTreeMap::deserialize(MapAccessDeserializer::new(map)).map(ServerItem::Inline)
            }
        }

        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use crate::parse_str;
    use agentctl_core::{PermissionMode, Scope, SourceFormat};
    use std::path::Path;

    fn claude(text: &str) -> crate::LoadedAgent {
        parse_str(
            text,
            Path::new(".claude/agents/x.md"),
            SourceFormat::Claude,
            Scope::Project,
        )
        .unwrap()
    }

    #[test]
    fn maps_claude_fields() {
        let agent = claude(
            "---\nname: code-reviewer\ndescription: Expert code review specialist.\\nUse PROACTIVELY.\n\
             tools: Read, Write, Edit, MultiEdit, Bash, Glob, Grep, mcp__github__create_issue\n\
             disallowedTools: [WebSearch]\nmodel: sonnet\ncolor: blue\nmaxTurns: 5\npermissionMode: acceptEdits\n\
             memory: project\nmcpServers:\n  - github\n  - local:\n      command: npx\n---\nYou review code.\n",
        );
        let spec = &agent.definition.spec;
        assert_eq!(spec.name, "code-reviewer");
        assert_eq!(
            spec.tools.allow.as_deref().unwrap(),
            [
                "read_file",
                "write_file",
                "edit_file",
                "bash",
                "glob",
                "grep",
                "mcp.github.create_issue"
            ]
        );
        assert_eq!(spec.tools.deny, ["web_search"]);
        assert_eq!(spec.model.as_deref(), Some("sonnet"));
        assert_eq!(spec.color.as_deref(), Some("blue"));
        assert_eq!(spec.max_turns, Some(5));
        assert_eq!(spec.mcp.servers, ["github"]);
        assert_eq!(spec.mcp.inline["local"].command.as_deref(), Some("npx"));
        assert_eq!(spec.permission_mode, Some(PermissionMode::AcceptEdits));
        assert_eq!(
            spec.memory.as_ref().unwrap().scope,
            Some(agentctl_core::MemoryScope::Project)
        );
        assert!(!agent.definition.extra.contains_key("memory"));
        assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
        assert_eq!(agent.locate("tools.deny[0]"), (5, 19));
        assert_eq!(agent.locate("tools.allow[3]"), (4, 1));
    }

    #[test]
    fn a_memory_scope_claude_code_does_not_know_is_a_located_error() {
        let error = parse_str(
            "---\nname: x\ndescription: d\nmemory: ../../etc\n---\nPrompt\n",
            Path::new(".claude/agents/x.md"),
            SourceFormat::Claude,
            Scope::Project,
        )
        .unwrap_err();
        assert_eq!((error.line, error.field.as_deref()), (4, Some("memory")));
        assert!(
            error.message.contains("`user`, `project`, `local`"),
            "{error}"
        );
    }

    #[test]
    fn lenient_about_name_and_unquoted_colons() {
        let agent = claude(
            "---\ndescription: Use this agent when reviewing. Examples: <example>Context: x</example>\n\
             tools: Read\nfoo: bar\n---\nPrompt\n",
        );
        assert_eq!(agent.name(), "x");
        assert!(
            agent
                .definition
                .spec
                .description
                .as_deref()
                .unwrap()
                .contains("Context: x")
        );
        let warnings: Vec<String> = agent.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].starts_with(
            ".claude/agents/x.md:2:1: field `description`: the value is not valid YAML"
        ));
        assert!(warnings[1].contains("field `name`: Claude Code requires `name`"));
        assert!(warnings[2].contains(":4:1: field `foo`: unknown Claude Code field"));
        assert_eq!(agent.definition.extra["foo"], "bar");
    }

    #[test]
    fn map_form_of_mcp_servers() {
        let agent = claude("---\nname: a\nmcpServers:\n  srv:\n    url: https://x\n---\nP\n");
        assert_eq!(
            agent.definition.spec.mcp.inline["srv"].url.as_deref(),
            Some("https://x")
        );
    }
}
