//! Finding the one JSON document in a model's text: [`extract_json`].

use serde_json::Value;

/// Where the JSON document of a text was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonForm {
    /// The whole text (surrounding whitespace aside) is the document.
    Bare,
    /// The document is the content of the text's one ` ```json ` (or unlabelled) fenced block;
    /// prose may surround it.
    Fenced,
}

/// What every "no JSON here" error starts with, so the model learns which forms pass.
const ACCEPTED: &str = "expected a bare JSON document or exactly one ```json fenced block";

/// The JSON document of `text`: the whole text when it parses, else the content of its one
/// ` ```json ` block (or of its one unlabelled fence whose content is JSON).
///
/// The error is one line saying which forms are accepted and what was found: prose, several
/// fenced blocks, or invalid JSON with its line and column (counted in the whole text).
///
/// ```
/// use agentctl_guardrails::{JsonForm, extract_json};
/// use serde_json::json;
///
/// assert_eq!(extract_json(r#" {"a": 1} "#).unwrap(), (json!({"a": 1}), JsonForm::Bare));
/// let fenced = "Here you go:\n```json\n[1, 2]\n```\nAnything else?";
/// assert_eq!(extract_json(fenced).unwrap(), (json!([1, 2]), JsonForm::Fenced));
/// let error = extract_json("{\"a\": 1,\n}").unwrap_err();
/// assert_eq!(error, "invalid JSON at line 2, column 1: trailing comma");
/// ```
pub fn extract_json(text: &str) -> Result<(Value, JsonForm), String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(format!("{ACCEPTED}, found an empty text"));
    }
    // Parsed untrimmed: serde_json skips the whitespace itself and the line numbers of its
    // errors stay those of the text.
    let bare = match serde_json::from_str::<Value>(text) {
        Ok(value) => return Ok((value, JsonForm::Bare)),
        Err(error) => error,
    };
    let blocks = fenced_blocks(text);
    let candidates: Vec<&Block<'_>> = blocks.iter().filter(|block| block.is_json()).collect();
    match candidates.as_slice() {
        [block] => serde_json::from_str(block.body)
            .map(|value| (value, JsonForm::Fenced))
            .map_err(|error| {
                format!(
                    "the fenced JSON block is not valid JSON: {}",
                    describe_at(&error, block.first_line - 1)
                )
            }),
        [] if trimmed.starts_with(['{', '[']) => {
            Err(format!("invalid JSON at {}", describe_at(&bare, 0)))
        }
        [] if blocks.is_empty() => Err(format!("{ACCEPTED}, found prose without JSON")),
        [] => Err(format!(
            "{ACCEPTED}, found prose and {} fenced block{} that {} not JSON",
            blocks.len(),
            plural(blocks.len()),
            if blocks.len() == 1 { "is" } else { "are" }
        )),
        several => Err(format!(
            "{ACCEPTED}, found {} fenced JSON blocks: keep only one",
            several.len()
        )),
    }
}

/// `line 2, column 1: trailing comma`: serde_json's message with its position moved to the
/// front, `line_offset` lines further down.
fn describe_at(error: &serde_json::Error, line_offset: usize) -> String {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&suffix).unwrap_or(&message);
    format!(
        "line {}, column {}: {message}",
        error.line() + line_offset,
        error.column()
    )
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// A fenced code block of a Markdown text.
#[derive(Debug)]
struct Block<'a> {
    /// The first word of the info string (`json`, `python`, or empty).
    label: &'a str,
    /// The lines between the fences.
    body: &'a str,
    /// The 1-based line number of the body's first line in the whole text.
    first_line: usize,
}

impl Block<'_> {
    /// A ` ```json ` block, or an unlabelled one whose content is (or tries to be) JSON.
    fn is_json(&self) -> bool {
        if self.label.eq_ignore_ascii_case("json") {
            return true;
        }
        if !self.label.is_empty() {
            return false;
        }
        let body = self.body.trim();
        body.starts_with(['{', '[']) || serde_json::from_str::<Value>(body).is_ok()
    }
}

/// The fenced blocks of `text`: a line of three or more backticks (indentation allowed, an
/// info string without backticks after them) opens one, a line of at least as many backticks
/// closes it; an unclosed block runs to the end of the text.
fn fenced_blocks(text: &str) -> Vec<Block<'_>> {
    let mut blocks = Vec::new();
    // (fence length, label, body start offset, body first line)
    let mut open: Option<(usize, &str, usize, usize)> = None;
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += line.len();
        let content = line.trim();
        let ticks = content.bytes().take_while(|byte| *byte == b'`').count();
        match open {
            None if ticks >= 3 => {
                let info = &content[ticks..];
                if !info.contains('`') {
                    let label = info.split_whitespace().next().unwrap_or("");
                    open = Some((ticks, label, offset, index + 2));
                }
            }
            Some((fence, label, body_start, first_line))
                if ticks >= fence && ticks == content.len() =>
            {
                blocks.push(Block {
                    label,
                    body: &text[body_start..line_start],
                    first_line,
                });
                open = None;
            }
            _ => {}
        }
    }
    if let Some((_, label, body_start, first_line)) = open {
        blocks.push(Block {
            label,
            body: &text[body_start.min(text.len())..],
            first_line,
        });
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bare_and_fenced_documents_are_found() {
        assert_eq!(
            extract_json("\n  [1]\n").unwrap(),
            (json!([1]), JsonForm::Bare)
        );
        assert_eq!(extract_json("42").unwrap(), (json!(42), JsonForm::Bare));
        for text in [
            "```json\n{\"a\": 1}\n```",
            "Sure:\n\n```JSON\n{\"a\": 1}\n```\n\nDone.",
            "Sure:\n```\n{\"a\": 1}\n```",
            "  ````json\n{\"a\": 1}\n  ````\n",
            "intro\n```json\n{\"a\": 1}\n",
            "```python\nprint(1)\n```\nand\n```json\n{\"a\": 1}\n```",
        ] {
            assert_eq!(
                extract_json(text).unwrap(),
                (json!({"a": 1}), JsonForm::Fenced),
                "{text}"
            );
        }
    }

    #[test]
    fn what_was_found_instead_is_said() {
        assert_eq!(
            extract_json("  ").unwrap_err(),
            "expected a bare JSON document or exactly one ```json fenced block, found an empty text"
        );
        assert_eq!(
            extract_json("The answer is 42, with {\"a\": 1}.").unwrap_err(),
            "expected a bare JSON document or exactly one ```json fenced block, found prose without JSON"
        );
        assert_eq!(
            extract_json("Run:\n```sh\nls\n```").unwrap_err(),
            "expected a bare JSON document or exactly one ```json fenced block, found prose and 1 fenced block that is not JSON"
        );
        assert_eq!(
            extract_json("```json\n{}\n```\n```json\n[]\n```").unwrap_err(),
            "expected a bare JSON document or exactly one ```json fenced block, found 2 fenced JSON blocks: keep only one"
        );
        assert_eq!(
            extract_json("{\"a\": 1} and more").unwrap_err(),
            "invalid JSON at line 1, column 10: trailing characters"
        );
        assert_eq!(
            extract_json("Here:\n\n```json\n{\n  \"a\": 1,\n}\n```").unwrap_err(),
            "the fenced JSON block is not valid JSON: line 6, column 1: trailing comma"
        );
        assert_eq!(
            extract_json("```\n{\"a\": \n```").unwrap_err(),
            "the fenced JSON block is not valid JSON: line 3, column 0: EOF while parsing a value"
        );
    }
}
