//! Risk classification of tool calls.
//!
//! A [`RiskClassifier`] rates a call from, in order: the `tools.risk.<name>` override in the
//! settings, the built-in defaults (reads safe, writes low, `bash` by its command line, deletes
//! high…), the tool's own [`Tool::risk`], and `medium` for anything unknown. MCP tools are
//! rated from their annotations with [`from_annotations`].

use crate::shell::{RiskAssessment, classify_command};
use agentctl_core::Settings;
use agentctl_runtime::{RiskLevel, Tool};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Risk of tools agentctl knows by name, before settings overrides.
pub const DEFAULT_RISKS: &[(&str, RiskLevel)] = &[
    ("read_file", RiskLevel::Safe),
    ("read_many_files", RiskLevel::Safe),
    ("grep", RiskLevel::Safe),
    ("glob", RiskLevel::Safe),
    ("write_file", RiskLevel::Low),
    ("edit_file", RiskLevel::Low),
    ("bash", RiskLevel::Medium),
    ("git_commit", RiskLevel::Medium),
    ("delete_file", RiskLevel::High),
    ("sudo", RiskLevel::High),
    ("system_shutdown", RiskLevel::Critical),
];

/// A risk level in the settings or on the command line that is not one of the five.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid risk level `{value}` in {key}; expected one of safe, low, medium, high, critical")]
pub struct RiskLevelError {
    /// Where it was written (`tools.risk.bash`, `approvals.autoApprove[1]`, `--approve`).
    pub key: String,
    /// The value as written.
    pub value: String,
}

/// Parses `safe`, `low`, `medium`, `high` or `critical` (any case, surrounding space ignored).
pub fn parse_risk_level(text: &str) -> Option<RiskLevel> {
    match text.trim().to_ascii_lowercase().as_str() {
        "safe" => Some(RiskLevel::Safe),
        "low" => Some(RiskLevel::Low),
        "medium" => Some(RiskLevel::Medium),
        "high" => Some(RiskLevel::High),
        "critical" => Some(RiskLevel::Critical),
        _ => None,
    }
}

/// Rates tool calls; built once per run from the settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RiskClassifier {
    overrides: BTreeMap<String, RiskLevel>,
    /// The project root `bash` commands run in, to tell paths inside it from paths outside.
    project_root: Option<PathBuf>,
}

impl RiskClassifier {
    /// A classifier with the built-in defaults only.
    pub fn new() -> Self {
        Self::default()
    }

    /// A classifier with the `tools.risk` overrides of the settings.
    ///
    /// ```
    /// use agentctl_core::Settings;
    /// use agentctl_tools::RiskClassifier;
    ///
    /// let mut settings = Settings::default();
    /// settings.tools.risk.insert("bash".into(), "extreme".into());
    /// let error = RiskClassifier::from_settings(&settings).unwrap_err();
    /// assert!(error.to_string().starts_with("invalid risk level `extreme` in tools.risk.bash"));
    /// ```
    pub fn from_settings(settings: &Settings) -> Result<Self, RiskLevelError> {
        let mut overrides = BTreeMap::new();
        for (name, value) in &settings.tools.risk {
            let level = parse_risk_level(value).ok_or_else(|| RiskLevelError {
                key: format!("tools.risk.{name}"),
                value: value.clone(),
            })?;
            overrides.insert(name.clone(), level);
        }
        Ok(Self {
            overrides,
            project_root: None,
        })
    }

    /// Rates `bash` commands as run in `root`: paths under it are inside the project.
    /// Without a root every absolute path counts as outside.
    pub fn with_project_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.project_root = Some(root.into());
        self
    }

    /// The project root set with [`with_project_root`](Self::with_project_root).
    pub fn project_root(&self) -> Option<&Path> {
        self.project_root.as_deref()
    }

    /// Sets the level of a tool, as `tools.risk.<name>` does.
    pub fn with_override(mut self, tool: impl Into<String>, level: RiskLevel) -> Self {
        self.overrides.insert(tool.into(), level);
        self
    }

    /// The level of a tool by name alone (no arguments): override, built-in default, or
    /// `fallback` (pass the tool's own [`Tool::risk`], or `medium` for an unknown tool).
    pub fn tool_risk(&self, name: &str, fallback: RiskLevel) -> RiskAssessment {
        if let Some(level) = self.overrides.get(name) {
            return RiskAssessment::new(*level, format!("tools.risk.{name} is {level}"));
        }
        if let Some((_, level)) = DEFAULT_RISKS.iter().find(|(known, _)| *known == name) {
            return RiskAssessment::new(*level, default_reason(name));
        }
        RiskAssessment::new(fallback, format!("{name} is rated {fallback}"))
    }

    /// Rates one call of `tool` with its arguments. For `bash` the command line is classified;
    /// an override of `bash` replaces the rating of ordinary commands but never lowers a
    /// command rated high or critical.
    pub fn classify(&self, tool: &dyn Tool, args: &Value) -> RiskAssessment {
        self.classify_name(tool.name(), tool.risk(), args)
    }

    /// [`classify`](Self::classify) by name, for callers that have no [`Tool`] at hand;
    /// `fallback` is the level of a tool neither overridden nor known by name.
    pub fn classify_name(&self, name: &str, fallback: RiskLevel, args: &Value) -> RiskAssessment {
        let command = args.get("command").and_then(Value::as_str);
        match (name, command) {
            ("bash", Some(command)) => {
                let shell = classify_command(command, self.project_root.as_deref());
                match self.overrides.get(name) {
                    Some(level) if shell.level < RiskLevel::High => RiskAssessment::new(
                        *level,
                        format!("{}; tools.risk.bash is {level}", shell.reason),
                    ),
                    Some(level) if *level > shell.level => {
                        RiskAssessment::new(*level, format!("tools.risk.bash is {level}"))
                    }
                    _ => shell,
                }
            }
            _ => self.tool_risk(name, fallback),
        }
    }
}

fn default_reason(name: &str) -> String {
    match name {
        "read_file" | "read_many_files" | "grep" | "glob" => format!("{name} only reads"),
        "write_file" | "edit_file" => format!("{name} changes a project file"),
        "bash" => "bash runs shell commands".to_owned(),
        "delete_file" => "delete_file deletes a file".to_owned(),
        "git_commit" => "git_commit records a commit".to_owned(),
        "sudo" => "sudo runs commands as root".to_owned(),
        "system_shutdown" => "system_shutdown stops the machine".to_owned(),
        other => format!("{other} has a built-in rating"),
    }
}

/// The risk of an MCP tool from its annotations: `readOnlyHint` → safe, `destructiveHint` →
/// high, otherwise medium; a trusted server lowers the level by one (never below safe).
///
/// ```
/// use agentctl_runtime::RiskLevel;
/// use agentctl_tools::from_annotations;
///
/// assert_eq!(from_annotations(Some(true), None, false), RiskLevel::Safe);
/// assert_eq!(from_annotations(None, Some(true), false), RiskLevel::High);
/// assert_eq!(from_annotations(None, Some(true), true), RiskLevel::Medium);
/// assert_eq!(from_annotations(None, None, false), RiskLevel::Medium);
/// ```
pub fn from_annotations(
    read_only_hint: Option<bool>,
    destructive_hint: Option<bool>,
    trusted_server: bool,
) -> RiskLevel {
    // Per the MCP spec, destructiveHint only means something when the tool is not read-only.
    let level = if read_only_hint == Some(true) {
        RiskLevel::Safe
    } else if destructive_hint == Some(true) {
        RiskLevel::High
    } else {
        RiskLevel::Medium
    };
    if trusted_server { lower(level) } else { level }
}

fn lower(level: RiskLevel) -> RiskLevel {
    match level {
        RiskLevel::Safe | RiskLevel::Low => RiskLevel::Safe,
        RiskLevel::Medium => RiskLevel::Low,
        RiskLevel::High => RiskLevel::Medium,
        RiskLevel::Critical => RiskLevel::High,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn overrides_and_defaults() {
        let classifier = RiskClassifier::new().with_override("write_file", RiskLevel::Safe);
        assert_eq!(
            classifier.tool_risk("write_file", RiskLevel::Medium).level,
            RiskLevel::Safe
        );
        assert_eq!(
            classifier.tool_risk("delete_file", RiskLevel::Safe).level,
            RiskLevel::High
        );
        assert_eq!(
            classifier.tool_risk("mcp.x.y", RiskLevel::Medium).level,
            RiskLevel::Medium
        );
    }

    #[test]
    fn bash_override_never_hides_dangerous_commands() {
        let classifier = RiskClassifier::new().with_override("bash", RiskLevel::Low);
        let ls = classifier.classify_name("bash", RiskLevel::Medium, &json!({"command": "make"}));
        assert_eq!(ls.level, RiskLevel::Low);
        let rm =
            classifier.classify_name("bash", RiskLevel::Medium, &json!({"command": "rm -rf x"}));
        assert_eq!(rm.level, RiskLevel::High);
        let plain = RiskClassifier::new();
        let st = plain.classify_name("bash", RiskLevel::Medium, &json!({"command": "git status"}));
        assert_eq!(st.level, RiskLevel::Safe);
    }
}
