//! Gemini CLI's `settings.json` (`~/.gemini/settings.json`, `<project>/.gemini/settings.json`)
//! as a settings layer: seed 002 configures agentctl there (`agents.*` with `tracing`,
//! `mcpServers`). Those keys are read as in agentctl's own file, and so are Gemini CLI's
//! `hooks` (its events are aliases of Claude Code's; its timeouts, in milliseconds, become
//! seconds; `hooks.enabled: false` or `hooksConfig.enabled: false` leaves them out). Gemini
//! CLI's other settings (`ui`, `model`, `tools`, `general`, …) are its own, not read, and said
//! so.

use super::{Object, ParsedLayer, RawAgents, parse_as, to_map, unknown_keys, unknown_values};
use crate::{ConfigError, ConfigWarning};
use agentctl_core::McpServerConfig;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// What agentctl reads of a Gemini CLI settings file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawGeminiSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agents: Option<Object<RawAgents>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mcp_servers: Option<BTreeMap<String, McpServerConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hooks: Option<Map<String, Value>>,
    #[serde(default, skip_serializing)]
    hooks_config: Option<Value>,
}

/// Checks the text of the Gemini CLI settings file at `path` and returns the keys agentctl
/// reads from it; its other top-level keys are one [`ConfigWarning::NotRead`].
pub(in crate::settings) fn parse_gemini_layer(
    path: &Path,
    text: &str,
) -> Result<ParsedLayer, ConfigError> {
    let (mut raw, ignored) = parse_as::<Object<RawGeminiSettings>>(path, text)?;
    let (mut top, nested): (Vec<String>, Vec<String>) =
        ignored.into_iter().partition(|key| !key.contains('.'));
    top.sort();
    let mut warnings = unknown_keys(path, nested);
    if !top.is_empty() {
        warnings.push(ConfigWarning::NotRead {
            path: path.to_path_buf(),
            owner: "Gemini CLI",
            keys: top,
        });
    }
    let agents = raw.0.agents.as_mut().map(|agents| &mut agents.0);
    warnings.extend(unknown_values(path, agents));
    let disabled = raw
        .0
        .hooks_config
        .as_ref()
        .and_then(|config| config.get("enabled"))
        == Some(&Value::Bool(false));
    raw.0.hooks = raw
        .0
        .hooks
        .take()
        .and_then(|hooks| claude_shaped(hooks, disabled));
    Ok(ParsedLayer {
        value: to_map(&raw),
        warnings,
    })
}

/// Gemini CLI's `hooks` in Claude Code's shape: the event lists only (not `enabled`), each
/// `timeout` from milliseconds to whole seconds (rounded up); none when they are disabled.
fn claude_shaped(mut hooks: Map<String, Value>, disabled: bool) -> Option<Map<String, Value>> {
    if disabled || hooks.get("enabled") == Some(&Value::Bool(false)) {
        return None;
    }
    hooks.retain(|_, groups| groups.is_array());
    let commands = hooks
        .values_mut()
        .filter_map(Value::as_array_mut)
        .flatten()
        .filter_map(|group| group.get_mut("hooks").and_then(Value::as_array_mut))
        .flatten();
    for hook in commands {
        if let Some(timeout) = hook.get_mut("timeout")
            && let Some(millis) = timeout.as_u64()
        {
            *timeout = Value::from(millis.div_ceil(1000).max(1));
        }
    }
    Some(hooks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Seed 002 §5.4's `~/.gemini/settings.json`, with some of Gemini CLI's own settings.
    const SEED: &str = r#"{
  "theme": "GitHub",
  "model": {"name": "gemini-2.5-pro"},
  "agents": {
    "autoRoute": true,
    "defaultScope": "project",
    "contextPersistence": true,
    "tracing": {
      "enabled": true,
      "backend": "console"
    }
  },
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_TOKEN": "${GITHUB_TOKEN}"
      }
    }
  }
}"#;

    #[test]
    fn the_seed_keys_are_read_and_gemini_clis_own_are_said() {
        let layer = parse_gemini_layer(Path::new("/h/.gemini/settings.json"), SEED).unwrap();
        assert_eq!(layer.value["agents"]["autoRoute"], json!(true));
        assert_eq!(
            layer.value["agents"]["tracing"]["backend"],
            json!(["console"])
        );
        assert_eq!(
            layer.value["mcpServers"]["github"]["env"]["GITHUB_TOKEN"],
            json!("${GITHUB_TOKEN}")
        );
        assert_eq!(layer.value.get("theme"), None);
        let [warning] = layer.warnings.as_slice() else {
            panic!("{:?}", layer.warnings);
        };
        assert_eq!(
            warning.to_string(),
            "/h/.gemini/settings.json: not read (Gemini CLI's own settings): `model`, `theme`"
        );
    }

    #[test]
    fn errors_in_what_is_read_are_located() {
        let error = parse_gemini_layer(
            Path::new("s.json"),
            "{\n  \"ui\": {\"x\": 1},\n  \"agents\": {\"autoRoute\": \"yes\"}\n}",
        )
        .unwrap_err()
        .to_string();
        assert!(error.starts_with("s.json:3:"), "{error}");
        assert!(error.contains("agents.autoRoute"), "{error}");
    }

    #[test]
    fn gemini_hooks_are_read_with_their_timeouts_in_seconds() {
        let text = r#"{"hooks": {"enabled": true, "BeforeTool": [{"matcher": "write_file",
            "hooks": [{"name": "v", "type": "command", "command": "./v.sh", "timeout": 5000},
                      {"type": "command", "command": "./w.sh", "timeout": 1}]}]}}"#;
        let layer = parse_gemini_layer(Path::new("/p/.gemini/settings.json"), text).unwrap();
        assert!(layer.warnings.is_empty(), "{:?}", layer.warnings);
        let hooks = &layer.value["hooks"];
        assert!(hooks.get("enabled").is_none());
        assert_eq!(hooks["BeforeTool"][0]["hooks"][0]["timeout"], json!(5));
        assert_eq!(hooks["BeforeTool"][0]["hooks"][1]["timeout"], json!(1));
        let off = r#"{"hooksConfig": {"enabled": false}, "hooks": {"BeforeTool": []}}"#;
        let layer = parse_gemini_layer(Path::new("/p/.gemini/settings.json"), off).unwrap();
        assert!(layer.value.get("hooks").is_none());
    }
}
