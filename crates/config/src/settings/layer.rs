//! The settings layers: agentctl's own files and the other tools' files read as layers.

use super::{ConfigError, raw};
use std::fmt;
use std::path::{Path, PathBuf};

/// One source of settings, in precedence order (later wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsLayer {
    /// Built-in defaults.
    Default,
    /// `~/.gemini/settings.json`: what seed 002 configures there (`agents.*`, `mcpServers`),
    /// below agentctl's own global file.
    GeminiGlobal(PathBuf),
    /// `~/.claude/settings.json`: Claude Code's user settings (`permissions`, `env`,
    /// `model`, `hooks`), below agentctl's own global file.
    ClaudeGlobal(PathBuf),
    /// `$AGENTCTL_HOME/settings.json`.
    Global(PathBuf),
    /// `<project>/.gemini/settings.json`, below agentctl's own project file.
    GeminiProject(PathBuf),
    /// `<project>/.mcp.json`: Claude Code's project MCP servers (`mcpServers`).
    McpJson(PathBuf),
    /// `<project>/.claude/settings.json`: Claude Code's shared project settings.
    ClaudeProject(PathBuf),
    /// `<project>/.claude/settings.local.json`: Claude Code's personal project settings,
    /// above the shared ones.
    ClaudeLocal(PathBuf),
    /// `<project>/.agentctl/settings.json`.
    Project(PathBuf),
}

impl SettingsLayer {
    /// `default`, `gemini-global`, `claude-global`, `global`, `gemini-project`, `mcp-json`,
    /// `claude-project`, `claude-local` or `project`.
    pub fn name(&self) -> &'static str {
        match self {
            SettingsLayer::Default => "default",
            SettingsLayer::GeminiGlobal(_) => "gemini-global",
            SettingsLayer::ClaudeGlobal(_) => "claude-global",
            SettingsLayer::Global(_) => "global",
            SettingsLayer::GeminiProject(_) => "gemini-project",
            SettingsLayer::McpJson(_) => "mcp-json",
            SettingsLayer::ClaudeProject(_) => "claude-project",
            SettingsLayer::ClaudeLocal(_) => "claude-local",
            SettingsLayer::Project(_) => "project",
        }
    }

    /// The file of a layer that is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            SettingsLayer::Default => None,
            SettingsLayer::GeminiGlobal(path)
            | SettingsLayer::ClaudeGlobal(path)
            | SettingsLayer::Global(path)
            | SettingsLayer::GeminiProject(path)
            | SettingsLayer::McpJson(path)
            | SettingsLayer::ClaudeProject(path)
            | SettingsLayer::ClaudeLocal(path)
            | SettingsLayer::Project(path) => Some(path),
        }
    }

    /// Where it stands among the layers, lowest precedence first.
    pub fn rank(&self) -> u8 {
        match self {
            SettingsLayer::Default => 0,
            SettingsLayer::GeminiGlobal(_) => 1,
            SettingsLayer::ClaudeGlobal(_) => 2,
            SettingsLayer::Global(_) => 3,
            SettingsLayer::GeminiProject(_) => 4,
            SettingsLayer::McpJson(_) => 5,
            SettingsLayer::ClaudeProject(_) => 6,
            SettingsLayer::ClaudeLocal(_) => 7,
            SettingsLayer::Project(_) => 8,
        }
    }

    /// Whether it is a project's (its values are reviewed against the user's policy).
    pub fn is_project(&self) -> bool {
        matches!(
            self,
            SettingsLayer::GeminiProject(_)
                | SettingsLayer::McpJson(_)
                | SettingsLayer::ClaudeProject(_)
                | SettingsLayer::ClaudeLocal(_)
                | SettingsLayer::Project(_)
        )
    }

    /// Whether it is another tool's file (read only when it exists, not listed as missing).
    pub(super) fn is_other_tools(&self) -> bool {
        !matches!(
            self,
            SettingsLayer::Default | SettingsLayer::Global(_) | SettingsLayer::Project(_)
        )
    }

    /// Checks the file's text in its own format.
    pub(super) fn parse(&self, path: &Path, text: &str) -> Result<raw::ParsedLayer, ConfigError> {
        match self {
            SettingsLayer::GeminiGlobal(_) | SettingsLayer::GeminiProject(_) => {
                raw::parse_gemini_layer(path, text)
            }
            SettingsLayer::ClaudeGlobal(_)
            | SettingsLayer::ClaudeProject(_)
            | SettingsLayer::ClaudeLocal(_) => raw::parse_claude_layer(path, text),
            SettingsLayer::McpJson(_) => raw::parse_mcp_json(path, text),
            SettingsLayer::Default | SettingsLayer::Global(_) | SettingsLayer::Project(_) => {
                raw::parse_layer(path, text)
            }
        }
    }
}

impl fmt::Display for SettingsLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path() {
            Some(path) => write!(f, "{}: {}", self.name(), path.display()),
            None => f.write_str(self.name()),
        }
    }
}
