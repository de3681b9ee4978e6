//! Gemini CLI agent files (`.gemini/agents/*.md`).
//!
//! `display_name` becomes the title, `tools` go through [`gemini_tool_name`] (wildcards stay
//! patterns), `mcp_servers` become inline servers; `kind`, `timeout_mins` and the remote-agent
//! fields are kept in `extra`. Remote (A2A) agents may have no body; they load with a warning
//! since agentctl cannot run them.

use crate::error::Result;
use crate::foreign::{deserialize_lenient, extras, map_tools, tool_list};
use crate::source::{Mapped, Source};
use agentctl_core::{AgentSpec, McpRefs, McpServerConfig, ToolPolicy, gemini_tool_name};
use serde::Deserialize;
use std::collections::BTreeMap;

const MAPPED: &[&str] = &[
    "name",
    "description",
    "display_name",
    "tools",
    "mcp_servers",
    "model",
    "temperature",
    "max_turns",
];

const KNOWN: &[&str] = &[
    "kind",
    "timeout_mins",
    "agent_card_url",
    "agent_card_json",
    "auth",
];

#[derive(Debug, Default, Deserialize)]
struct GeminiFrontMatter {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default, deserialize_with = "tool_list")]
    tools: Option<Vec<String>>,
    #[serde(default)]
    mcp_servers: BTreeMap<String, McpServerConfig>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    temperature: Option<f32>,
    #[serde(default)]
    max_turns: Option<u32>,
}

/// Gemini CLI writes MCP tools as `server__tool`; agentctl as `mcp.server.tool`.
fn tool_name(name: &str) -> String {
    match name.trim().split_once("__") {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
            format!("mcp.{server}.{tool}")
        }
        _ => gemini_tool_name(name),
    }
}

pub(crate) fn read(source: &mut Source<'_>) -> Result<Mapped> {
    let (front, mut warnings) = deserialize_lenient::<GeminiFrontMatter>(source, "Gemini CLI")?;
    let name = match front.name.filter(|name| !name.trim().is_empty()) {
        Some(name) => name,
        None => {
            let stem = source.stem();
            warnings.push(source.warning(
                "name",
                format!("Gemini CLI requires `name`; using the file name `{stem}`"),
            ));
            stem
        }
    };
    let remote = match front.kind.as_deref() {
        None | Some("local") => false,
        Some("remote") => {
            warnings.push(source.warning(
                "kind",
                "remote (A2A) agents are listed but cannot be run by agentctl",
            ));
            true
        }
        Some(other) => {
            warnings.push(source.warning(
                "kind",
                format!("unknown kind `{other}`: expected `local` or `remote`"),
            ));
            false
        }
    };
    let (extra, extra_warnings) = extras(source, MAPPED, KNOWN, "Gemini CLI");
    warnings.extend(extra_warnings);
    let spec = AgentSpec {
        name,
        title: front.display_name,
        description: front.description,
        model: front.model,
        temperature: front.temperature,
        max_turns: front.max_turns,
        tools: ToolPolicy {
            allow: front.tools.map(|tools| map_tools(&tools, tool_name)),
            deny: Vec::new(),
        },
        mcp: McpRefs {
            servers: Vec::new(),
            inline: front.mcp_servers,
        },
        ..AgentSpec::default()
    };
    Ok(Mapped {
        spec,
        extra,
        warnings,
        allow_empty_body: remote,
    })
}

#[cfg(test)]
mod tests {
    use crate::parse_str;
    use agentctl_core::{Scope, SourceFormat};
    use std::path::Path;

    fn gemini(text: &str) -> crate::Result<crate::LoadedAgent> {
        parse_str(
            text,
            Path::new(".gemini/agents/x.md"),
            SourceFormat::Gemini,
            Scope::Global,
        )
    }

    #[test]
    fn maps_gemini_fields() {
        let agent = gemini(
            "---\nkind: local\nname: security-auditor\ndisplay_name: Security Auditor\ndescription: Finds vulnerabilities\n\
             tools:\n  - read_file\n  - search_file_content\n  - run_shell_command\n  - 'read_*'\n  - github__get_issue\n\
             mcp_servers:\n  github:\n    httpUrl: https://api.example/mcp\nmodel: gemini-2.5-pro\ntemperature: 0.2\n\
             max_turns: 10\ntimeout_mins: 5\n---\nYou audit code.\n",
        )
        .unwrap();
        let spec = &agent.definition.spec;
        assert_eq!(spec.title.as_deref(), Some("Security Auditor"));
        assert_eq!(
            spec.tools.allow.as_deref().unwrap(),
            [
                "read_file",
                "grep",
                "bash",
                "read_*",
                "mcp.github.get_issue"
            ]
        );
        assert_eq!(
            spec.mcp.inline["github"].http_url.as_deref(),
            Some("https://api.example/mcp")
        );
        assert_eq!(spec.temperature, Some(0.2));
        assert_eq!(spec.max_turns, Some(10));
        assert_eq!(agent.definition.extra["timeout_mins"], 5);
        assert_eq!(agent.definition.extra["kind"], "local");
        assert!(agent.warnings.is_empty(), "{:?}", agent.warnings);
        assert!(!agent.is_remote());
        assert_eq!(agent.locate("title"), (4, 1));
    }

    #[test]
    fn remote_agents_may_have_no_body() {
        let agent =
            gemini("---\nkind: remote\nname: helper\nagent_card_url: https://x/.well-known/agent.json\n---\n").unwrap();
        assert!(agent.is_remote());
        assert_eq!(agent.warnings.len(), 1);
        let error = gemini("---\nkind: local\nname: helper\n---\n\n").unwrap_err();
        assert_eq!(error.kind, crate::ErrorKind::EmptyPrompt);
    }
}
