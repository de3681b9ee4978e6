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

#[tokio::test]
async fn ignore_files_nest_and_take_precedence_like_ripgrep() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", "*.log\ngen/\n");
    write(root, "logs/.gitignore", "!keep.log\n");
    write(root, "logs/keep.log", "");
    write(root, "logs/drop.log", "");
    write(root, "gen/out.rs", "");
    // `.ignore` wins over `.gitignore`, even from a shallower folder.
    write(root, ".ignore", "!notes.log\n");
    write(root, "notes.log", "");
    write(root, ".git/info/exclude", "local.txt\n");
    write(root, "local.txt", "");
    write(root, "sub/local.txt", "");
    write(root, ".hidden/x.rs", "");
    write(root, "src/a.rs", "");
    std::os::unix::fs::symlink(root.join("src/a.rs"), root.join("link.rs")).unwrap();
    let all = call(root, "glob", json!({"pattern": "**/*"}))
        .await
        .unwrap();
    assert_eq!(all, "logs/keep.log\nnotes.log\nsrc/a.rs");
    // Below the root, the rules of the folders above still apply.
    let under = call(root, "glob", json!({"pattern": "*", "path": "logs"}))
        .await
        .unwrap();
    assert_eq!(under, "logs/keep.log");
    // A file named explicitly is searched even if ignored, as with ripgrep.
    write(root, "gen/out.rs", "needle\n");
    let named = call(
        root,
        "grep",
        json!({"pattern": "needle", "path": "gen/out.rs"}),
    )
    .await
    .unwrap();
    assert_eq!(named, "gen/out.rs:1: needle\n");
}

#[tokio::test]
async fn a_huge_ignore_file_is_read_only_in_part() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.rs", "");
    let gitignore = root.join(".gitignore");
    std::fs::write(&gitignore, "b.rs\n").unwrap();
    // 4 GiB of NUL bytes after the first rule: a walk reading it whole would run out of memory.
    std::fs::File::options()
        .write(true)
        .open(&gitignore)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    write(root, "b.rs", "");
    let all = call(root, "glob", json!({"pattern": "*.rs"}))
        .await
        .unwrap();
    assert_eq!(all, "a.rs");
}
