//! Broken files: each gives a located error, never a panic.

use agentctl_core::{Scope, SourceFormat};
use agentctl_definitions::{ErrorKind, load_file, parse_bytes, parse_str};
use std::path::Path;

fn error(text: &str) -> String {
    parse_str(
        text,
        Path::new("agents/x.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn each_broken_file_has_a_located_error() {
    let cases = [
        (
            "---\nname: x\ndescription: [a\n---\nP\n",
            "agents/x.md:3:14: field `description`: invalid type: sequence, expected a string",
        ),
        (
            "---\nname: x\ndescription: \"unclosed\n---\nP\n",
            "agents/x.md:4:1: found unexpected end of stream, while scanning a quoted scalar",
        ),
        (
            "---\nname: x\n  - bad: [\n---\nP\n",
            "agents/x.md:3:8: mapping values are not allowed in this context",
        ),
        (
            "---\nname: x\nmaxTurns: ten\n---\nP\n",
            "agents/x.md:3:11: field `maxTurns`: invalid type: string \"ten\", expected u32",
        ),
        (
            "---\ndescription: d\n---\nP\n",
            "agents/x.md:2:1: field `name`: missing field `name`",
        ),
        (
            "---\nname: x\n---\n\n  \n",
            "agents/x.md:3:1: the system prompt is empty",
        ),
        (
            "---\nname: x\n",
            "agents/x.md:1:1: the front matter opened here is never closed",
        ),
        ("Just markdown\n", "agents/x.md:1:1: no front matter"),
        (
            "---\n---\nP\n",
            "agents/x.md:1:1: field `name`: the front matter is empty",
        ),
        (
            "---\n- a\n- b\n---\nP\n",
            "agents/x.md:2:1: the front matter must be a mapping",
        ),
        (
            "---\nname: x\ntools:\n  allow: [1, {a: b}]\n---\nP\n",
            "agents/x.md:4:14: field `tools.allow[1]`: invalid type: map, expected a string",
        ),
        (
            "---\nname: x\ncontextMode: sometimes\n---\nP\n",
            "agents/x.md:3:14: field `contextMode`: unknown variant `sometimes`, expected one of `isolated`, `shared`, `run`",
        ),
        (
            "---\nname: x\nname: y\n---\nP\n",
            "agents/x.md:3:1: field `name`: duplicate field `name`",
        ),
    ];
    for (text, expected) in cases {
        let message = error(text);
        assert!(
            message.starts_with(expected),
            "{message}\n  expected to start with\n{expected}"
        );
    }
}

#[test]
fn non_utf8_is_located() {
    let error = parse_bytes(
        b"---\nname: x\ndescription: caf\xe9\n---\nP\n",
        Path::new("x.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap_err();
    assert_eq!(error.kind, ErrorKind::NotUtf8);
    assert_eq!((error.line, error.col), (3, 17));
    assert!(
        error
            .to_string()
            .starts_with("x.md:3:17: the file is not valid UTF-8")
    );
}

#[test]
fn huge_inputs_fail_fast() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big.md");
    let mut text = String::from("---\nname: x\ndescription: ");
    text.push_str(&"y".repeat(10 * 1024 * 1024));
    text.push_str("\n---\nP\n");
    std::fs::write(&big, &text).unwrap();
    assert_eq!(
        load_file(&big, SourceFormat::Native, Scope::Project)
            .unwrap_err()
            .kind,
        ErrorKind::FileTooLarge
    );
    let error = parse_str(&text, &big, SourceFormat::Native, Scope::Project).unwrap_err();
    assert_eq!(error.kind, ErrorKind::FrontMatterTooLarge);
}

#[test]
fn yaml_bombs_are_refused() {
    let mut yaml = String::from("---\nname: x\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = i - 1;
        yaml.push_str(&format!("a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
    }
    yaml.push_str("---\nP\n");
    // Each parse ends (an alias bomb is refused by counting expansions, not by a clock).
    let _ = parse_str(
        &yaml,
        Path::new("bomb.md"),
        SourceFormat::Native,
        Scope::Project,
    );
    let _ = parse_str(
        &yaml,
        Path::new("bomb.md"),
        SourceFormat::Claude,
        Scope::Project,
    );
    let deep = format!(
        "---\nname: x\ndescription: {}{}\n---\nP\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    assert!(
        parse_str(
            &deep,
            Path::new("deep.md"),
            SourceFormat::Native,
            Scope::Project
        )
        .is_err()
    );
}

#[test]
fn a_wide_alias_bomb_is_refused_before_it_expands() {
    // One anchored list of 4,000 values referred to 4,000 times: 16 million values from 20 KB.
    // serde_norway's own limit counts alias jumps, not values, and let this through (30 s and
    // gigabytes in a debug build); the alias budget refuses it at the alias that goes over.
    let items = vec!["x"; 4000].join(",");
    let refs = vec!["*a"; 4000].join(",");
    for (field, yaml) in [
        ("extra", format!("a: &a [{items}]\nb: [{refs}]\n")),
        (
            "schema",
            format!("a: &a [{items}]\nguardrails:\n  - name: g\n    schema: [{refs}]\n"),
        ),
    ] {
        let text = format!("---\nname: bomb\ndescription: d\n{yaml}---\nP\n");
        for format in [
            SourceFormat::Native,
            SourceFormat::Claude,
            SourceFormat::Gemini,
        ] {
            let error = parse_str(&text, Path::new("bomb.md"), format, Scope::Project).unwrap_err();
            assert_eq!(error.kind, ErrorKind::AliasExpansion, "{field} {format:?}");
            assert!(
                error.to_string().starts_with("bomb.md:5:")
                    || error.to_string().starts_with("bomb.md:7:"),
                "{error}"
            );
            assert!(error.message.contains("more than 100000 values"), "{error}");
        }
    }
}

#[test]
fn a_null_name_is_an_error_in_every_format() {
    for value in ["null", "~", "", "Null"] {
        for format in [
            SourceFormat::Native,
            SourceFormat::Claude,
            SourceFormat::Gemini,
        ] {
            let text = format!("---\ndescription: d\nname: {value}\n---\nP\n");
            let error = parse_str(&text, Path::new("x.md"), format, Scope::Project).unwrap_err();
            assert_eq!(
                error.to_string(),
                "x.md:3:1: field `name`: `name` is null: give the agent a kebab-case name, e.g. `name: code-reviewer`",
                "{value:?} {format:?}"
            );
        }
    }
    // Quoted, `null` is a string like any other.
    let quoted = "---\nname: 'null'\ndescription: d\n---\nP\n";
    let agent = parse_str(
        quoted,
        Path::new("x.md"),
        SourceFormat::Native,
        Scope::Project,
    )
    .unwrap();
    assert_eq!(agent.name(), "null");
}
