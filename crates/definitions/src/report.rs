//! The report of `agents validate`: named checks, each with located diagnostics.

use crate::error::{DefinitionError, Diagnostic, ErrorKind, Severity};
use agentctl_core::{Scope, SourceFormat};
use serde::Serialize;
use std::path::PathBuf;

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// What was checked, e.g. `model resolvable`.
    pub name: &'static str,
    /// False when any diagnostic is an error.
    pub passed: bool,
    /// A short explanation of a pass (`anthropic:claude-sonnet-4-5`, `no model: uses the default`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// What was found, errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Check {
    /// A check of `name` with what it found: passed when no diagnostic is an error.
    pub fn new(name: &'static str, diagnostics: Vec<Diagnostic>, note: Option<String>) -> Self {
        let passed = diagnostics.iter().all(|d| d.severity != Severity::Error);
        Self {
            name,
            passed,
            note,
            diagnostics,
        }
    }

    /// True when the check passed but left warnings.
    pub fn has_warnings(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning)
    }
}

/// Every check run on one agent file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationReport {
    /// The agent's name (the file stem when the file did not load).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The file's format, if it loaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<SourceFormat>,
    /// For a file in a Claude Code or Gemini CLI agents folder, why it was read in its format:
    /// the folder's, or agentctl's for the agentctl-only fields it writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format_reason: Option<String>,
    /// The scope it was found in, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Whether every check passed.
    pub valid: bool,
    /// The checks, in order.
    pub checks: Vec<Check>,
}

impl ValidationReport {
    /// The report for a file that did not load: one failed check with the error.
    pub fn load_failed(error: &DefinitionError) -> Self {
        let name = error
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let check_name = if error.kind == ErrorKind::EmptyPrompt {
            "prompt not empty"
        } else {
            "front matter parses"
        };
        Self {
            name,
            path: error.path.clone(),
            format: None,
            format_reason: None,
            scope: None,
            valid: false,
            checks: vec![Check::new(check_name, vec![error.to_diagnostic()], None)],
        }
    }

    /// How many checks passed.
    pub fn passed(&self) -> usize {
        self.checks.iter().filter(|c| c.passed).count()
    }

    /// Every diagnostic of every check.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.checks.iter().flat_map(|c| &c.diagnostics)
    }
}
