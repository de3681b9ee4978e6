//! What the format readers share: a file being parsed (its split text, field index and parsed
//! front matter) and what a reader produces from it.

use crate::error::{
    DefinitionError, Diagnostic, ErrorKind, Result, Severity, from_tree, from_yaml,
};
use crate::frontmatter::Split;
use crate::value;
use crate::yaml_index::YamlIndex;
use crate::yaml_tree::{self, Body};
use agentctl_config::MAX_AGENT_ALIAS_VALUES;
use agentctl_core::AgentSpec;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A file being parsed: its split text, field index and front matter, handed to the format
/// readers.
pub(crate) struct Source<'a> {
    pub path: &'a Path,
    pub split: Split<'a>,
    pub index: YamlIndex,
    /// The front matter, parsed once (or, outside what the tree covers, its text).
    pub body: Body<'a>,
    /// Whether front matters are read into trees (off: serde_norway reads every one, the
    /// behaviour the tests compare the tree with).
    pub tree: bool,
}

impl<'a> Source<'a> {
    /// Parses the front matter of `split` once. Aliases that would add more values than an
    /// agent file may have are refused before anything is expanded.
    pub fn parse(path: &'a Path, split: Split<'a>, tree: bool) -> Result<Self> {
        match yaml_tree::parse(split.yaml, MAX_AGENT_ALIAS_VALUES, tree) {
            Ok(front) => Ok(Source {
                path,
                split,
                index: front.index,
                body: front.body,
                tree,
            }),
            Err(error) => Err(DefinitionError::new(
                path,
                ErrorKind::AliasExpansion,
                split.yaml_line + error.line - 1,
                error.column,
                error.to_string(),
            )),
        }
    }
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
            hint: None,
        }
    }

    /// Deserialises the front matter into `T`, with located errors.
    pub fn deserialize<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        self.deserialize_body(&self.body, &self.index)
    }

    /// Deserialises `body` (the front matter or a repaired version of it, indexed by
    /// `index`) into `T`, with located errors.
    pub fn deserialize_body<T: serde::de::DeserializeOwned>(
        &self,
        body: &Body<'_>,
        index: &YamlIndex,
    ) -> Result<T> {
        let first_line = self.split.yaml_line;
        let result = match body {
            Body::Tree(tree) => tree
                .deserialize()
                .map_err(|error| from_tree(&error, self.path, first_line)),
            Body::Text(text) => serde_norway::from_str(text)
                .map_err(|error| from_yaml(&error, self.path, first_line)),
        };
        result.map_err(|mut error| {
            if let Some(key) = error
                .message
                .strip_prefix("duplicate field `")
                .and_then(|r| r.split('`').next())
            {
                // serde points at the mapping; point at the repeated key instead.
                let mut seen = std::collections::HashSet::new();
                let repeated = index
                    .keys
                    .iter()
                    .find(|entry| entry.key() == key && !seen.insert(&*entry.path));
                if let Some(entry) = repeated {
                    (error.line, error.col) = (first_line + entry.pos.0 - 1, entry.pos.1);
                    error.field = Some(entry.path.to_string());
                }
            }
            if error.message.contains("expected struct") {
                error.message =
                    "the front matter must be a mapping of fields (`name: …`)".to_owned();
            }
            error
        })
    }

    /// The top-level fields of the front matter as JSON, keyed by their key string (empty
    /// when the front matter is not a mapping YAML can read as one value).
    pub fn top_level(&self) -> Vec<(String, Value)> {
        value::top_level(&self.body)
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
