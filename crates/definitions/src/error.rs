//! Located errors and diagnostics.
//!
//! Every problem in an agent file is reported with the file, a 1-based line and column, and the
//! front-matter field it concerns, so that editors and terminals can jump to it.

use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// A `Result` whose error is a [`DefinitionError`].
pub type Result<T> = std::result::Result<T, DefinitionError>;

/// What kind of problem stopped an agent file from loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read.
    Io,
    /// The file is larger than the size limit.
    FileTooLarge,
    /// The path is a FIFO, device, socket or directory, not a regular file; it is never read.
    NotRegularFile,
    /// The file is not valid UTF-8.
    NotUtf8,
    /// The file does not start with a `---` line.
    MissingFrontMatter,
    /// The opening `---` has no closing `---`.
    UnterminatedFrontMatter,
    /// The front matter is larger than its size limit.
    FrontMatterTooLarge,
    /// YAML aliases in the front matter expand to more values than allowed.
    AliasExpansion,
    /// The front matter is not valid YAML or a field has the wrong type.
    Yaml,
    /// The Markdown body (the system prompt) is empty.
    EmptyPrompt,
}

/// Why an agent file could not be loaded.
///
/// Displays as `path:line:col: field `name`: message`; the location is left out for errors that
/// have none (I/O errors).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line; 0 when the error has no position.
    pub line: usize,
    /// 1-based column (in characters); 0 when the error has no position.
    pub col: usize,
    /// The front-matter field concerned, as a path such as `tools.allow[0]`.
    pub field: Option<String>,
    /// What kind of problem it is.
    pub kind: ErrorKind,
    /// What is wrong.
    pub message: String,
}

impl DefinitionError {
    pub(crate) fn new(
        path: &Path,
        kind: ErrorKind,
        line: usize,
        col: usize,
        message: String,
    ) -> Self {
        Self {
            path: path.to_path_buf(),
            line,
            col,
            field: None,
            kind,
            message,
        }
    }

    pub(crate) fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// The error as an error-severity [`Diagnostic`].
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            path: self.path.clone(),
            line: self.line,
            col: self.col,
            field: self.field.clone(),
            message: self.message.clone(),
            hint: None,
        }
    }
}

impl fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_located(
            f,
            &self.path,
            self.line,
            self.col,
            self.field.as_deref(),
            &self.message,
        )
    }
}

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The agent still loads and runs; something is probably not what the author meant.
    Warning,
    /// The agent is invalid.
    Error,
}

impl Severity {
    /// The lowercase name used in output.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A located finding about an agent file: an unknown field, an unknown tool, a bad regex …
///
/// Displays as `path:line:col: field `name`: message` (the severity is left to the caller).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Warning or error.
    pub severity: Severity,
    /// The file.
    pub path: PathBuf,
    /// 1-based line; 0 when unknown.
    pub line: usize,
    /// 1-based column; 0 when unknown.
    pub col: usize,
    /// The front-matter field concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// What a front end can offer beyond the message, in its own words.
    #[serde(skip)]
    pub hint: Option<agentctl_core::Hint>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_located(
            f,
            &self.path,
            self.line,
            self.col,
            self.field.as_deref(),
            &self.message,
        )
    }
}

fn write_located(
    f: &mut fmt::Formatter<'_>,
    path: &Path,
    line: usize,
    col: usize,
    field: Option<&str>,
    message: &str,
) -> fmt::Result {
    write!(f, "{}", path.display())?;
    if line > 0 {
        write!(f, ":{line}:{col}")?;
    }
    f.write_str(": ")?;
    if let Some(field) = field {
        write!(f, "field `{field}`: ")?;
    }
    f.write_str(message)
}

/// 1-based line and column (in characters) of a byte offset in `text`.
pub(crate) fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

static MARK: LazyLock<regex::Regex> = LazyLock::new(|| {
    #[expect(
        clippy::expect_used,
        reason = "the pattern is a constant and covered by tests"
    )]
    regex::Regex::new(r" at (line \d+ column \d+|position \d+)").expect("valid regex")
});

/// Turns a serde_norway error into a located error. `first_line` is the file line on which the
/// front matter starts, so that positions are relative to the file rather than the YAML text.
pub(crate) fn from_yaml(
    error: &serde_norway::Error,
    path: &Path,
    first_line: usize,
) -> DefinitionError {
    let location = error
        .location()
        .map(|location| (location.line(), location.column()));
    located(&error.to_string(), location, path, first_line)
}

/// Turns an error of the tree deserialiser into a located error, as [`from_yaml`] does for
/// serde_norway's (the two word and place their errors alike).
pub(crate) fn from_tree(
    error: &crate::yaml_tree::de::Error,
    path: &Path,
    first_line: usize,
) -> DefinitionError {
    located(&error.to_string(), error.location(), path, first_line)
}

/// `text` is `path: message`, `location` 1-based in the YAML text.
fn located(
    text: &str,
    location: Option<(usize, usize)>,
    path: &Path,
    first_line: usize,
) -> DefinitionError {
    let (line, col) = match location {
        Some((line, col)) => (first_line + line.saturating_sub(1), col.max(1)),
        None => (first_line, 1),
    };
    let text = MARK.replace_all(text, "");
    let (field, message) = split_field(&text);
    let field = field.or_else(|| missing_field(message));
    let mut error = DefinitionError::new(path, ErrorKind::Yaml, line, col, message.to_owned());
    error.field = field;
    error
}

/// serde_norway prefixes messages with the path of the value (`tools.allow[0]: invalid type …`).
fn split_field(text: &str) -> (Option<String>, &str) {
    if let Some((head, rest)) = text.split_once(": ") {
        let path_like = !head.is_empty()
            && head
                .chars()
                .all(|c| c.is_alphanumeric() || "_-.[]?".contains(c));
        if path_like {
            return (Some(head.to_owned()), rest);
        }
    }
    (None, text)
}

fn missing_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split_once('`').map(|(name, _)| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars_after_the_last_newline() {
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\néx".as_bytes(), 5), (2, 2));
        assert_eq!(line_col(b"", 10), (1, 1));
    }

    #[test]
    fn yaml_errors_keep_field_and_file_position() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct T {
            #[serde(rename = "maxTurns")]
            max_turns: u32,
        }
        let error = serde_norway::from_str::<T>("maxTurns: ten\n").unwrap_err();
        let error = from_yaml(&error, Path::new("a.md"), 2);
        assert_eq!(error.line, 2);
        assert_eq!(error.col, 11);
        assert_eq!(error.field.as_deref(), Some("maxTurns"));
        assert_eq!(
            error.to_string(),
            "a.md:2:11: field `maxTurns`: invalid type: string \"ten\", expected u32"
        );
    }
}
