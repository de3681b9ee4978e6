//! What the format readers share: a file being parsed (its split text and YAML index) and what
//! a reader produces from it.

use crate::error::{Diagnostic, Result, Severity, from_yaml};
use crate::frontmatter::Split;
use crate::yaml_index::YamlIndex;
use agentctl_core::AgentSpec;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A file being parsed: its split text and YAML index, handed to the format readers.
pub(crate) struct Source<'a> {
    pub path: &'a Path,
    pub split: Split<'a>,
    pub index: YamlIndex,
}

impl Source<'_> {
    /// File position of a field path as written in the file.
    pub fn position(&self, field: &str) -> (usize, usize) {
        match self.index.positions.get(field) {
            Some(&(line, col)) => (self.split.yaml_line + line - 1, col),
            None => (self.split.yaml_line, 1),
        }
    }

    /// A warning about a field, at its position in the file.
    pub fn warning(&self, field: &str, message: impl Into<String>) -> Diagnostic {
        let (line, col) = self.position(field);
        Diagnostic {
            severity: Severity::Warning,
            path: self.path.to_path_buf(),
            line,
            col,
            field: Some(field.to_owned()),
            message: message.into(),
        }
    }

    /// Deserialises the front matter into `T`, with located errors.
    pub fn deserialize<T: serde::de::DeserializeOwned>(&self, yaml: &str) -> Result<T> {
        serde_norway::from_str(yaml).map_err(|error| {
            let mut error = from_yaml(&error, self.path, self.split.yaml_line);
            if let Some(key) = error
                .message
                .strip_prefix("duplicate field `")
                .and_then(|r| r.split('`').next())
            {
                // serde points at the mapping; point at the repeated key instead.
                let mut seen = std::collections::HashSet::new();
                let repeated = self.index.keys.iter().find(|entry| {
                    entry.segments.last() == Some(&crate::yaml_index::Segment::Key(key.to_owned()))
                        && !seen.insert(entry.path.as_str())
                });
                if let Some(entry) = repeated {
                    (error.line, error.col) = (self.split.yaml_line + entry.pos.0 - 1, entry.pos.1);
                    error.field = Some(entry.path.clone());
                }
            }
            if error.message.contains("expected struct") {
                error.message =
                    "the front matter must be a mapping of fields (`name: …`)".to_owned();
            }
            error
        })
    }

    /// The file stem, used as the name of foreign agents that have none.
    pub fn stem(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// What a format reader produces.
pub(crate) struct Mapped {
    pub spec: AgentSpec,
    pub extra: BTreeMap<String, Value>,
    pub warnings: Vec<Diagnostic>,
    /// Whether an empty body is acceptable (remote agents have no prompt).
    pub allow_empty_body: bool,
}
