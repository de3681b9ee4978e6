//! Claude Code's files as settings layers: `settings.json` (`~/.claude/settings.json`,
//! `<project>/.claude/settings.json`, `<project>/.claude/settings.local.json`) and the
//! project's `.mcp.json`.
//!
//! Of a Claude Code `settings.json`, agentctl reads `permissions.allow/ask/deny` (its own
//! `permissions.*`; rules it cannot map are reported, not dropped silently), `env` (into
//! `env.set`, the environment of `bash` commands) and `model` (`agents.defaultModel`). Its
//! `hooks` go to agentctl's `hooks` (they add up across layers; a project's wait for trust).
//! Its other keys are Claude Code's
//! own and said so. Of `.mcp.json`, agentctl reads `mcpServers`, as in its own settings
//! (`${VAR}` and `${VAR:-default}` are expanded when a server starts).

use super::{Object, ParsedLayer, RawPermissions, parse_as, to_map, unknown_keys};
use crate::{ConfigError, ConfigWarning};
use agentctl_core::McpServerConfig;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// What agentctl reads of a Claude Code `settings.json`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawClaudeSettings {
    #[serde(default, rename = "$schema")]
    _schema: Option<Value>,
    /// The rule lists; Claude Code's own keys of it (`defaultMode`,
    /// `additionalDirectories`, …) are not read.
    #[serde(default)]
    permissions: Option<Object<RawPermissions>>,
    #[serde(default)]
    env: Option<BTreeMap<String, Value>>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    hooks: Option<Value>,
}

/// What agentctl reads of `.mcp.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMcpJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mcp_servers: Option<BTreeMap<String, McpServerConfig>>,
}

/// Checks the text of the Claude Code settings file at `path` and returns the keys agentctl
/// reads from it, in agentctl's shape, with its `hooks` as written.
pub(in crate::settings) fn parse_claude_layer(
    path: &Path,
    text: &str,
) -> Result<ParsedLayer, ConfigError> {
    let (raw, ignored) = parse_as::<Object<RawClaudeSettings>>(path, text)?;
    let mut raw = raw.0;
    let mut warnings = not_read(path, ignored);
    let mut value = Map::new();
    if let Some(mut permissions) = raw.permissions.take().map(|object| object.0) {
        warnings.extend(permissions.take_unmapped(path));
        let permissions = to_map(&permissions);
        if !permissions.is_empty() {
            value.insert("permissions".into(), Value::Object(permissions));
        }
    }
    if let Some(env) = raw.env.take() {
        let mut set = Map::new();
        for (name, entry) in env {
            match entry {
                Value::String(text) => set.insert(name, Value::String(text)),
                Value::Number(number) => set.insert(name, Value::String(number.to_string())),
                Value::Bool(flag) => set.insert(name, Value::String(flag.to_string())),
                other => {
                    warnings.push(ConfigWarning::UnknownValue {
                        path: path.to_path_buf(),
                        key: format!("env.{name}"),
                        value: other.to_string(),
                        expected: "a string".to_owned(),
                    });
                    continue;
                }
            };
        }
        if !set.is_empty() {
            value.insert("env".into(), json!({ "set": set }));
        }
    }
    if let Some(model) = raw.model.take() {
        value.insert("agents".into(), json!({ "defaultModel": model }));
    }
    // Read by the hook loader, which reports what it cannot use; project hooks wait for
    // trust like agentctl's own.
    if let Some(hooks) = raw.hooks.take().filter(|hooks| !hooks.is_null()) {
        value.insert("hooks".into(), hooks);
    }
    Ok(ParsedLayer { value, warnings })
}

/// Checks the text of the project's `.mcp.json` at `path` and returns its `mcpServers`.
pub(in crate::settings) fn parse_mcp_json(
    path: &Path,
    text: &str,
) -> Result<ParsedLayer, ConfigError> {
    let (raw, ignored) = parse_as::<Object<RawMcpJson>>(path, text)?;
    Ok(ParsedLayer {
        value: to_map(&raw),
        warnings: not_read(path, ignored),
    })
}

/// The keys of a Claude Code file agentctl leaves to Claude Code: top-level ones and those
/// of `permissions` in one [`ConfigWarning::NotRead`], deeper ones as unknown keys.
fn not_read(path: &Path, ignored: Vec<String>) -> Vec<ConfigWarning> {
    let (mut own, nested): (Vec<String>, Vec<String>) = ignored.into_iter().partition(|key| {
        !key.contains('.') || (key.starts_with("permissions.") && key.matches('.').count() == 1)
    });
    own.sort();
    let mut warnings = unknown_keys(path, nested);
    if !own.is_empty() {
        warnings.push(ConfigWarning::NotRead {
            path: path.to_path_buf(),
            owner: "Claude Code",
            keys: own,
        });
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROJECT: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm test:*)", "Read(~/.zshrc)"],
    "deny": ["Bash(rm:*)", "Read(./.env)", "NotebookEdit(x.ipynb)"],
    "defaultMode": "acceptEdits"
  },
  "env": {"NODE_ENV": "test", "RETRIES": 3},
  "model": "claude-sonnet-4-5",
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo"}]}]},
  "includeCoAuthoredBy": false
}"#;

    #[test]
    fn claude_code_settings_are_read_in_agentctl_shape() {
        let path = Path::new("/p/.claude/settings.json");
        let layer = parse_claude_layer(path, PROJECT).unwrap();
        assert_eq!(
            Value::Object(layer.value),
            json!({
                "permissions": {
                    "allow": ["Bash(npm test:*)", "Read(~/.zshrc)"],
                    "deny": ["Bash(rm:*)", "Read(./.env)"]
                },
                "env": {"set": {"NODE_ENV": "test", "RETRIES": "3"}},
                "agents": {"defaultModel": "claude-sonnet-4-5"},
                "hooks": {"PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo"}]}
                ]}
            })
        );
        let warnings: Vec<String> = layer.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "/p/.claude/settings.json: not read (Claude Code's own settings): \
                 `includeCoAuthoredBy`, `permissions.defaultMode`",
                "/p/.claude/settings.json: `permissions.deny`: rule `NotebookEdit(x.ipynb)` not \
                 applied: agentctl cannot match this tool's arguments; write the tool name alone"
            ]
        );
    }

    #[test]
    fn mcp_json_servers_are_read_and_errors_located() {
        let path = Path::new("/p/.mcp.json");
        let layer = parse_mcp_json(
            path,
            r#"{"mcpServers": {"files": {"command": "npx", "args": ["${DIR:-.}"]}}}"#,
        )
        .unwrap();
        assert_eq!(
            layer.value["mcpServers"]["files"]["args"],
            json!(["${DIR:-.}"])
        );
        let error = parse_mcp_json(path, "{\"mcpServers\": {\"x\": {\"args\": 1}}}").unwrap_err();
        assert!(error.to_string().starts_with("/p/.mcp.json:1:"), "{error}");
        assert!(error.to_string().contains("mcpServers.x.args"), "{error}");
    }
}
