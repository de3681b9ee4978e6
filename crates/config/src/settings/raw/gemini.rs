//! Gemini CLI's `settings.json` (`~/.gemini/settings.json`, `<project>/.gemini/settings.json`)
//! as a settings layer: seed 002 configures agentctl there (`agents.*` with `tracing`,
//! `mcpServers`). Those keys are read as in agentctl's own file; Gemini CLI's other settings
//! (`ui`, `model`, `tools`, `general`, …) are its own, not read, and said so.

use super::{Object, ParsedLayer, RawAgents, parse_as, to_map, unknown_keys, unknown_values};
use crate::{ConfigError, ConfigWarning};
use agentctl_core::McpServerConfig;
use serde::{Deserialize, Serialize};
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
    Ok(ParsedLayer {
        value: to_map(&raw),
        warnings,
        hooks: None,
    })
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
}
