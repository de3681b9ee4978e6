//! grep and glob honour .gitignore.

use super::support::{call, write};
use serde_json::json;

#[tokio::test]
async fn grep_respects_gitignore_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n*.log\n");
    write(
        root,
        "src/main.rs",
        "fn main() {\n    println!(\"Hello\");\n}\n",
    );
    write(root, "target/debug/out.rs", "println!(\"hello\")\n");
    write(root, "run.log", "hello\n");
    write(root, "notes.md", "HELLO world\n");
    let out = call(
        root,
        "grep",
        json!({"pattern": "hello", "case_insensitive": true}),
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        "notes.md:1: HELLO world\nsrc/main.rs:2:     println!(\"Hello\");\n"
    );
    let only_rs = call(
        root,
        "grep",
        json!({"pattern": "(?i)hello", "glob": "*.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(only_rs.lines().count(), 1);
    let none = call(root, "grep", json!({"pattern": "hello"}))
        .await
        .unwrap();
    assert_eq!(none, "no matches");
    let capped = call(root, "grep", json!({"pattern": ".", "max_results": 1}))
        .await
        .unwrap();
    assert!(
        capped.ends_with("[stopped after 1 matches; narrow the search]"),
        "{capped}"
    );
    let bad = call(root, "grep", json!({"pattern": "("}))
        .await
        .unwrap_err();
    assert!(bad.to_string().starts_with("invalid regex"));
}

#[tokio::test]
async fn glob_is_sorted_and_ignores() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "target/\n");
    write(root, "b/x.rs", "");
    write(root, "a/y.rs", "");
    write(root, "top.rs", "");
    write(root, "target/z.rs", "");
    let all = call(root, "glob", json!({"pattern": "**/*.rs"}))
        .await
        .unwrap();
    assert_eq!(all, "a/y.rs\nb/x.rs\ntop.rs");
    let top = call(root, "glob", json!({"pattern": "*.rs"}))
        .await
        .unwrap();
    assert_eq!(top, "top.rs");
    let under = call(root, "glob", json!({"pattern": "*.rs", "path": "b"}))
        .await
        .unwrap();
    assert_eq!(under, "b/x.rs");
}
