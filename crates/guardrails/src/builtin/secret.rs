//! `contains-secret`: API keys and private keys by their shape.
//!
//! The shapes are the providers' documented prefixes followed by enough key characters that
//! ordinary prose does not match (`sk-` alone, or `task-list`, is not a key). Findings are
//! reported by kind and line only.

use super::LineCounter;
use regex::Regex;
use std::sync::LazyLock;

/// Findings listed, at most.
const MAX_FINDINGS: usize = 20;

/// A key shape: what it is called in errors, its pattern, and whether a match must contain a
/// digit (random key bodies do; hyphenated words that happen to fit the shape do not).
struct Shape {
    kind: &'static str,
    regex: Regex,
    needs_digit: bool,
}

static SHAPES: LazyLock<Vec<Shape>> = LazyLock::new(|| {
    [
        // Anthropic keys (`sk-ant-…`) share OpenAI's `sk-` prefix; see `kind_of`.
        ("an OpenAI API key", r"\bsk-[A-Za-z0-9_-]{20,}", true),
        (
            "an AWS access key ID",
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
            false,
        ),
        (
            "a GitHub token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
            false,
        ),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}", false),
        ("a Slack token", r"\bxox[baprs]-[0-9A-Za-z-]{10,}", true),
        (
            "a Stripe secret key",
            r"\b[rs]k_live_[0-9A-Za-z]{16,}",
            false,
        ),
        (
            "a private key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----",
            false,
        ),
    ]
    .into_iter()
    .map(|(kind, pattern, needs_digit)| Shape {
        kind,
        regex: compile(pattern),
        needs_digit,
    })
    .collect()
});

#[expect(
    clippy::expect_used,
    reason = "constant patterns, each exercised by the tests"
)]
fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the secret patterns compile")
}

/// The kind of a match of `shape`: `sk-ant-` keys are Anthropic's.
fn kind_of(shape: &Shape, found: &str) -> &'static str {
    if found.starts_with("sk-ant-") {
        "an Anthropic API key"
    } else {
        shape.kind
    }
}

/// `Err` with one line per (kind, line) found, never the secret itself.
pub(super) fn check(text: &str) -> Result<(), Vec<String>> {
    let mut findings: Vec<(usize, &'static str)> = Vec::new();
    for shape in SHAPES.iter() {
        let mut lines = LineCounter::new(text);
        for found in shape.regex.find_iter(text) {
            if shape.needs_digit && !found.as_str().bytes().any(|byte| byte.is_ascii_digit()) {
                continue;
            }
            findings.push((lines.line_of(found.start()), kind_of(shape, found.as_str())));
            if findings.len() > MAX_FINDINGS * SHAPES.len() {
                break;
            }
        }
    }
    if findings.is_empty() {
        return Ok(());
    }
    findings.sort_unstable();
    findings.dedup();
    let total = findings.len();
    let mut errors: Vec<String> = findings
        .into_iter()
        .take(MAX_FINDINGS)
        .map(|(line, kind)| {
            format!("line {line} holds what looks like {kind} (not repeated here); remove it")
        })
        .collect();
    if total > MAX_FINDINGS {
        errors.push(format!("… and {} more", total - MAX_FINDINGS));
    }
    Err(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Built at run time so that this file holds no string a secret scanner would flag.
    fn key(prefix: &str, body: &str, times: usize) -> String {
        format!("{prefix}{}", body.repeat(times))
    }

    #[test]
    fn each_key_shape_is_found_by_kind_and_line() {
        let cases = [
            (key("sk-", "a1B2c3D4", 6), "an OpenAI API key"),
            (key("sk-proj-", "a1B2_c3D4-", 8), "an OpenAI API key"),
            (key("sk-ant-api03-", "a1B2c3D4", 10), "an Anthropic API key"),
            (key("AKIA", "ABCD2345", 2), "an AWS access key ID"),
            (key("ghp_", "a1B2c3", 6), "a GitHub token"),
            (key("ghs_", "a1B2c3", 6), "a GitHub token"),
            (key("github_pat_", "11ABCDEFG", 4), "a GitHub token"),
            (
                key("AIza", "Sy0123456789abcdefghijklmnopqrstuvw", 1),
                "a Google API key",
            ),
            (key("xoxb-", "1234-abcd-", 3), "a Slack token"),
            (key("sk_live_", "a1B2c3D4", 3), "a Stripe secret key"),
            (key("rk_live_", "a1B2c3D4", 3), "a Stripe secret key"),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----".to_owned(),
                "a private key",
            ),
            ("-----BEGIN PRIVATE KEY-----".to_owned(), "a private key"),
        ];
        for (secret, kind) in cases {
            let text = format!("Config:\n\nexport VALUE=\"{secret}\"\n");
            let errors = check(&text).unwrap_err();
            assert_eq!(
                errors,
                [format!(
                    "line 3 holds what looks like {kind} (not repeated here); remove it"
                )],
                "{secret}"
            );
            assert!(!errors[0].contains(&secret[4..]), "{errors:?}");
        }
    }

    #[test]
    fn ordinary_prose_is_not_a_secret() {
        let readme = "# task-runner-for-everyone-and-everything\n\
            Ask the disk-usage-analyzer-of-the-year or run `sk-learn` models. \
            Use risk-assessment-framework-version-two for AKIAS and AIza mentions.\n\
            Slack bots use xoxb- tokens; Stripe uses sk_live_ keys; GitHub ghp_ tokens.\n\
            -----BEGIN PUBLIC KEY----- is fine, so is -----BEGIN CERTIFICATE-----.\n\
            The Ask-Me-Anything-session-with-the-whole-team is on Friday.\n";
        assert!(check(readme).is_ok(), "{:?}", check(readme));
    }

    #[test]
    fn findings_are_capped() {
        let text = (0..50)
            .map(|n| format!("{}\n", key("AKIA", &format!("{n:08}"), 2)))
            .collect::<String>();
        let errors = check(&text).unwrap_err();
        assert_eq!(errors.len(), MAX_FINDINGS + 1);
        assert_eq!(errors[MAX_FINDINGS], "… and 30 more");
    }
}
