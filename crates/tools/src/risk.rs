//! Risk rating of tool calls.
//!
//! A [`RiskClassifier`] rates a call from, in order: the `tools.risk.<name>` override in the
//! settings, for `bash` the command line itself ([`classify_command`]), and otherwise the
//! tool's own [`Tool::risk`] (a tool that does not state one is `medium`). Risk is declared
//! once, by the tool; the settings only override it.

use crate::shell::{RiskAssessment, classify_command_protecting};
use agentctl_core::{RiskLevel, Settings, Tool};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A risk level in the settings or on the command line that is not one of the five.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid risk level `{value}` in {key}; expected one of safe, low, medium, high, critical")]
pub struct RiskLevelError {
    /// Where it was written (`tools.risk.bash`, `approvals.autoApprove[1]`, `--approve`).
    pub key: String,
    /// The value as written.
    pub value: String,
}

/// Rates tool calls; built once per run from the settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RiskClassifier {
    overrides: BTreeMap<String, RiskLevel>,
    root: Option<PathBuf>,
    /// `sandbox.protectedPaths`: protected like `.git/`, relative to the root or absolute.
    protected_paths: Vec<PathBuf>,
}

impl RiskClassifier {
    /// A classifier without overrides.
    pub fn new() -> Self {
        Self::default()
    }

    /// A classifier with the `tools.risk` overrides and the `sandbox.protectedPaths` of the
    /// settings.
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
            let level = RiskLevel::from_name(value).ok_or_else(|| RiskLevelError {
                key: format!("tools.risk.{name}"),
                value: value.clone(),
            })?;
            overrides.insert(name.clone(), level);
        }
        Ok(Self {
            overrides,
            root: None,
            protected_paths: settings
                .sandbox
                .protected_paths
                .iter()
                .map(PathBuf::from)
                .collect(),
        })
    }

    /// Sets the level of a tool, as `tools.risk.<name>` does.
    pub fn with_override(mut self, tool: impl Into<String>, level: RiskLevel) -> Self {
        self.overrides.insert(tool.into(), level);
        self
    }

    /// Judges paths against the project `root` (commands reading or writing outside it rate
    /// higher).
    pub fn with_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// The project root, when set.
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// Protects `path` (relative to the root, or absolute) like `.git/`, as
    /// `sandbox.protectedPaths` does.
    pub fn with_protected_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.protected_paths.push(path.into());
        self
    }

    /// The paths `sandbox.protectedPaths` adds to the protected folders.
    pub fn protected_paths(&self) -> &[PathBuf] {
        &self.protected_paths
    }

    /// Rates a call of `tool`: with `args`, the call itself (for `bash`, its command line);
    /// without, the tool as a whole (for listings). An override of `bash` replaces the rating
    /// of ordinary commands but never lowers a command rated high or critical.
    pub fn rate(&self, tool: &dyn Tool, args: Option<&Value>) -> RiskAssessment {
        let name = tool.name();
        let command = args
            .and_then(|args| args.get("command"))
            .and_then(Value::as_str);
        if let ("bash", Some(command)) = (name, command) {
            let shell =
                classify_command_protecting(command, self.root.as_deref(), &self.protected_paths);
            return match self.overrides.get(name) {
                Some(level) if shell.level < RiskLevel::High => RiskAssessment {
                    protected: shell.protected,
                    ..RiskAssessment::new(
                        *level,
                        format!("{}; tools.risk.bash is {level}", shell.reason),
                    )
                },
                Some(level) if *level > shell.level => RiskAssessment {
                    protected: shell.protected,
                    ..RiskAssessment::new(*level, format!("tools.risk.bash is {level}"))
                },
                _ => shell,
            };
        }
        if let Some(level) = self.overrides.get(name) {
            return RiskAssessment::new(*level, format!("tools.risk.{name} is {level}"));
        }
        let level = tool.risk();
        let does = if tool.is_mutating() {
            "makes changes"
        } else {
            "only reads"
        };
        let reason = if name == "bash" {
            format!("{name} runs commands; each command is rated when called")
        } else {
            format!("{name} {does}; it is rated {level}")
        };
        RiskAssessment::new(level, reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentctl_core::{ToolContext, ToolError, ToolOutput};
    use serde_json::json;

    struct Named(&'static str, RiskLevel);

    #[async_trait::async_trait]
    impl Tool for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            "test"
        }
        fn parameters(&self) -> Value {
            json!({"type": "object"})
        }
        fn risk(&self) -> RiskLevel {
            self.1
        }
        async fn call(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(""))
        }
    }

    #[test]
    fn overrides_then_the_tools_own_risk() {
        let classifier = RiskClassifier::new().with_override("write_file", RiskLevel::Safe);
        let write = Named("write_file", RiskLevel::Low);
        assert_eq!(classifier.rate(&write, None).level, RiskLevel::Safe);
        let delete = Named("delete_file", RiskLevel::High);
        assert_eq!(classifier.rate(&delete, None).level, RiskLevel::High);
    }

    #[test]
    fn bash_override_never_hides_dangerous_commands() {
        let bash = Named("bash", RiskLevel::Medium);
        let classifier = RiskClassifier::new().with_override("bash", RiskLevel::Low);
        let make = classifier.rate(&bash, Some(&json!({"command": "make"})));
        assert_eq!(make.level, RiskLevel::Low);
        let rm = classifier.rate(&bash, Some(&json!({"command": "rm -rf x"})));
        assert_eq!(rm.level, RiskLevel::High);
        let plain = RiskClassifier::new();
        let status = plain.rate(&bash, Some(&json!({"command": "git status"})));
        assert_eq!(status.level, RiskLevel::Safe);
    }
}
