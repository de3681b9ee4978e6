//! Splitting an agent file into its YAML front matter and its Markdown body.
//!
//! Sizes are capped before any YAML is parsed, so a huge or hostile file fails fast.

use crate::error::{DefinitionError, ErrorKind, Result};
use std::path::Path;

/// Largest front matter handed to the YAML parser.
pub(crate) const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// An agent file cut in two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The YAML between the `---` lines.
    pub yaml: &'a str,
    /// File line (1-based) of the first YAML line.
    pub yaml_line: usize,
    /// Everything after the closing `---` line, untrimmed.
    pub body: &'a str,
    /// File line (1-based) of the first body line.
    pub body_line: usize,
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Cuts `text` into front matter and body.
pub(crate) fn split<'a>(text: &'a str, path: &Path) -> Result<Split<'a>> {
    let bytes = text.as_bytes();
    let mut pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut line_no = 1;
    // Leading blank lines are tolerated; anything else before `---` is not front matter.
    let open_line = loop {
        let (line, next) = next_line(text, pos, usize::MAX);
        if line.trim().is_empty() && next < bytes.len() {
            pos = next;
            line_no += 1;
            continue;
        }
        if is_delimiter(line) {
            pos = next;
            break line_no;
        }
        return Err(DefinitionError::new(
            path,
            ErrorKind::MissingFrontMatter,
            line_no,
            1,
            "no front matter: an agent file starts with a `---` line, then YAML fields \
             (at least `name`), then a closing `---` line and the system prompt"
                .to_owned(),
        ));
    };
    let yaml_start = pos;
    let yaml_line = open_line + 1;
    line_no = yaml_line;
    while pos < bytes.len() {
        if pos - yaml_start > MAX_FRONT_MATTER_BYTES {
            return Err(too_large(path, open_line));
        }
        let limit = yaml_start + MAX_FRONT_MATTER_BYTES + 8;
        let (line, next) = next_line(text, pos, limit);
        if is_delimiter(line) {
            return Ok(Split {
                yaml: &text[yaml_start..pos],
                yaml_line,
                body: &text[next..],
                body_line: line_no + 1,
            });
        }
        pos = next;
        line_no += 1;
    }
    Err(DefinitionError::new(
        path,
        ErrorKind::UnterminatedFrontMatter,
        open_line,
        1,
        "the front matter opened here is never closed: add a `---` line after the YAML fields"
            .to_owned(),
    ))
}

fn too_large(path: &Path, open_line: usize) -> DefinitionError {
    DefinitionError::new(
        path,
        ErrorKind::FrontMatterTooLarge,
        open_line,
        1,
        format!(
            "the front matter is larger than {} KiB (or never closed): keep long text in the \
             Markdown body",
            MAX_FRONT_MATTER_BYTES / 1024
        ),
    )
}

/// The line starting at byte `pos` (without its line break) and the start of the next one. The
/// search for the line break stops at byte `limit`, so one giant line costs no more than that.
fn next_line(text: &str, pos: usize, limit: usize) -> (&str, usize) {
    let bytes = text.as_bytes();
    let end = limit.min(bytes.len());
    match bytes[pos..end].iter().position(|&b| b == b'\n') {
        Some(i) => (text[pos..pos + i].trim_end_matches('\r'), pos + i + 1),
        // `end` may fall inside a character; the line is then only used to compare with `---`.
        None => (text.get(pos..end).unwrap_or(""), end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Split<'_> {
        split(text, Path::new("a.md")).unwrap()
    }

    fn err(text: &str) -> DefinitionError {
        split(text, Path::new("a.md")).unwrap_err()
    }

    #[test]
    fn splits_front_matter_and_body_with_lines() {
        let split = ok("---\nname: a\nmodel: b\n---\n\nPrompt\n");
        assert_eq!(split.yaml, "name: a\nmodel: b\n");
        assert_eq!(split.yaml_line, 2);
        assert_eq!(split.body, "\nPrompt\n");
        assert_eq!(split.body_line, 5);
    }

    #[test]
    fn handles_crlf_bom_and_leading_blank_lines() {
        let split = ok("\u{feff}\r\n---\r\nname: a\r\n---\r\nBody");
        assert_eq!(split.yaml, "name: a\r\n");
        assert_eq!(split.yaml_line, 3);
        assert_eq!(split.body, "Body");
    }

    #[test]
    fn empty_front_matter_and_no_body() {
        let split = ok("---\n---");
        assert_eq!(split.yaml, "");
        assert_eq!(split.body, "");
    }

    #[test]
    fn missing_and_unterminated_front_matter_are_located() {
        let e = err("# Title\n");
        assert_eq!((e.kind, e.line), (ErrorKind::MissingFrontMatter, 1));
        let e = err("\n\n---\nname: a\n");
        assert_eq!((e.kind, e.line), (ErrorKind::UnterminatedFrontMatter, 3));
        assert_eq!(err("").kind, ErrorKind::MissingFrontMatter);
    }

    #[test]
    fn huge_front_matter_fails_fast() {
        let mut text = String::from("---\ndescription: ");
        text.push_str(&"x".repeat(10 * 1024 * 1024));
        text.push_str("\n---\nbody");
        assert_eq!(err(&text).kind, ErrorKind::FrontMatterTooLarge);
        let many_lines = format!("---\n{}---\nbody", "a: b\n".repeat(100_000));
        assert_eq!(err(&many_lines).kind, ErrorKind::FrontMatterTooLarge);
    }
}
