//! The built-in validators: `regex`, `not-regex`, `max-length`, `json` and
//! `contains-secret`.
//!
//! Their errors never quote the text they checked: a `not-regex` that forbids internal host
//! names or a `contains-secret` that found a key would otherwise copy what it guards against
//! into events, the session database and the next request to the model.

mod secret;

use crate::json::extract_json;
use regex::{Regex, RegexBuilder};

/// Most bytes a compiled `pattern` may take: a pattern from an agent file must not cost the
/// process unbounded memory.
const MAX_REGEX_SIZE: usize = 1 << 20;
/// Characters of a pattern quoted in an error.
const MAX_QUOTED_PATTERN: usize = 100;
/// Line numbers listed in a `not-regex` error.
const MAX_LINES_LISTED: usize = 10;

/// A built-in validator, ready to check texts.
#[derive(Debug, Clone)]
pub(crate) enum Builtin {
    /// The pattern must match somewhere.
    Regex(Regex),
    /// The pattern must not match anywhere.
    NotRegex(Regex),
    /// At most this many characters.
    MaxLength(usize),
    /// The text must be (or hold exactly one fenced block of) valid JSON.
    Json,
    /// No API-key shapes.
    ContainsSecret,
}

impl Builtin {
    /// Checks `text`.
    pub(crate) fn check(&self, text: &str) -> Result<(), Vec<String>> {
        match self {
            Self::Regex(regex) if regex.is_match(text) => Ok(()),
            Self::Regex(regex) => Err(vec![format!(
                "the text does not match the required pattern `{}`",
                quoted(regex.as_str())
            )]),
            Self::NotRegex(regex) => forbidden_lines(regex, text),
            Self::MaxLength(limit) => {
                let length = text.chars().count();
                if length <= *limit {
                    Ok(())
                } else {
                    Err(vec![format!(
                        "the text is {length} characters long; at most {limit} are allowed"
                    )])
                }
            }
            Self::Json => extract_json(text).map(|_| ()).map_err(|error| vec![error]),
            Self::ContainsSecret => secret::check(text),
        }
    }
}

/// Compiles a `pattern` of an agent file, bounded in size; the error is one line.
pub(crate) fn compile_pattern(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern)
        .size_limit(MAX_REGEX_SIZE)
        .dfa_size_limit(MAX_REGEX_SIZE)
        .build()
        .map_err(|error| match error {
            regex::Error::CompiledTooBig(limit) => format!(
                "the regular expression is too big (it compiles to more than {limit} bytes); simplify it"
            ),
            regex::Error::Syntax(message) => {
                format!("not a valid regular expression: {}", syntax_error(&message))
            }
            other => format!("not a valid regular expression: {other}"),
        })
}

/// The one-line gist of the regex crate's multi-line syntax error: what is wrong and where.
fn syntax_error(message: &str) -> String {
    let what = message
        .lines()
        .find_map(|line| line.trim().strip_prefix("error: "))
        .unwrap_or("syntax error");
    // A one-line pattern is shown indented by four spaces with a caret line under it (header,
    // pattern, carets, error); longer patterns get numbered lines, and no column here.
    let column = message
        .lines()
        .find(|line| line.trim_start().starts_with('^'))
        .and_then(|line| line.find('^'))
        .and_then(|caret| caret.checked_sub(4));
    match column {
        Some(column) if message.lines().count() == 4 => {
            format!("{what} (at character {})", column + 1)
        }
        _ => what.to_owned(),
    }
}

/// `pattern` cut for quoting in an error.
fn quoted(pattern: &str) -> String {
    if pattern.chars().count() <= MAX_QUOTED_PATTERN {
        return pattern.to_owned();
    }
    let mut short: String = pattern.chars().take(MAX_QUOTED_PATTERN).collect();
    short.push('…');
    short
}

/// The error of a `not-regex` that matched: which lines, never what matched.
fn forbidden_lines(regex: &Regex, text: &str) -> Result<(), Vec<String>> {
    let mut lines = LineCounter::new(text);
    let mut listed: Vec<usize> = Vec::new();
    let mut more = 0usize;
    let mut last = 0usize;
    for found in regex.find_iter(text) {
        let line = lines.line_of(found.start());
        if line == last {
            continue;
        }
        last = line;
        if listed.len() < MAX_LINES_LISTED {
            listed.push(line);
        } else {
            more += 1;
        }
    }
    if listed.is_empty() {
        return Ok(());
    }
    let mut where_ = match listed.as_slice() {
        [line] => format!("line {line}"),
        [init @ .., last] if more == 0 => format!(
            "lines {} and {last}",
            init.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        all => format!(
            "lines {}",
            all.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    if more > 0 {
        where_.push_str(&format!(" and {more} more"));
    }
    Err(vec![format!(
        "the text matches the forbidden pattern `{}` on {where_}",
        quoted(regex.as_str())
    )])
}

/// Line numbers of increasing byte offsets of one text, found in one pass.
pub(crate) struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text,
            offset: 0,
            line: 1,
        }
    }

    /// The 1-based line of `offset`; offsets must not decrease between calls (a smaller one
    /// starts over).
    pub(crate) fn line_of(&mut self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if offset < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        let skipped = self.text.as_bytes()[self.offset..offset]
            .iter()
            .filter(|byte| **byte == b'\n')
            .count();
        self.line += skipped;
        self.offset = offset;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_errors_are_one_line() {
        assert_eq!(
            compile_pattern("(abc").unwrap_err(),
            "not a valid regular expression: unclosed group (at character 1)"
        );
        assert_eq!(
            compile_pattern("a{2,1}").unwrap_err(),
            "not a valid regular expression: invalid repetition count range, the start must be <= the end (at character 2)"
        );
        assert_eq!(
            compile_pattern("a\n(b").unwrap_err(),
            "not a valid regular expression: unclosed group"
        );
        let huge = compile_pattern(r"\w{1000}\w{1000}").unwrap_err();
        assert!(
            huge.starts_with("the regular expression is too big"),
            "{huge}"
        );
    }

    #[test]
    fn not_regex_lists_lines_without_the_match() {
        let regex = compile_pattern("(?i)internal\\.corp").unwrap();
        let text = "a\nsee internal.corp\nb\nINTERNAL.CORP and internal.corp\n";
        let error = forbidden_lines(&regex, text).unwrap_err();
        assert_eq!(
            error,
            ["the text matches the forbidden pattern `(?i)internal\\.corp` on lines 2 and 4"]
        );
        let many = "x\n".repeat(30);
        let error = forbidden_lines(&compile_pattern("x").unwrap(), &many).unwrap_err();
        assert_eq!(
            error,
            [
                "the text matches the forbidden pattern `x` on lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 20 more"
            ]
        );
        assert!(forbidden_lines(&regex, "nothing").is_ok());
    }
}
