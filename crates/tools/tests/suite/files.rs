//! File tools: confinement and editing.

use super::support::{call, write};
use serde_json::json;

#[tokio::test]
async fn every_kind_of_escape_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", "secret");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("new.txt"), root.join("dangling")).unwrap();
    let secret = outside.path().join("secret.txt");
    let cases = [
        (
            "read_file",
            json!({"path": "../etc/passwd"}),
            "path escapes the project root: ../etc/passwd",
        ),
        (
            "read_file",
            json!({"path": secret.to_str().unwrap()}),
            "path escapes the project root",
        ),
        (
            "read_file",
            json!({"path": "out/secret.txt"}),
            "path escapes the project root: out/secret.txt",
        ),
        (
            "write_file",
            json!({"path": "out/new.txt", "content": "x"}),
            "path escapes the project root",
        ),
        (
            "write_file",
            json!({"path": "out/deeper/new.txt", "content": "x"}),
            "path escapes the project root",
        ),
        (
            "write_file",
            json!({"path": "dangling", "content": "x"}),
            "path escapes the project root",
        ),
        (
            "edit_file",
            json!({"path": "a/../../x", "old_string": "a", "new_string": "b"}),
            "path escapes",
        ),
        (
            "delete_file",
            json!({"path": "out/secret.txt"}),
            "path escapes the project root",
        ),
        (
            "read_file",
            json!({"path": "bad\u{202E}txt.rs"}),
            "bidirectional text control",
        ),
        (
            "write_file",
            json!({"path": "nul\u{0}x", "content": "x"}),
            "a NUL byte",
        ),
        (
            "write_file",
            json!({"path": "zw\u{200B}.rs", "content": "x"}),
            "invisible character",
        ),
        (
            "grep",
            json!({"pattern": "secret", "path": "out"}),
            "path escapes the project root",
        ),
        (
            "glob",
            json!({"pattern": "*", "path": ".."}),
            "path escapes the project root",
        ),
    ];
    for (tool, args, expected) in cases {
        let error = call(root, tool, args.clone())
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{tool} {args}: {error}");
    }
    assert!(!outside.path().join("new.txt").exists());
    assert!(secret.exists());
    // Deleting the link removes the link, not its target.
    call(root, "delete_file", json!({"path": "out"}))
        .await
        .unwrap();
    assert!(secret.exists() && !root.join("out").exists());
}

#[tokio::test]
async fn write_creates_folders_and_read_pages() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let text: String = (1..=3000).map(|n| format!("line {n}\n")).collect();
    let out = call(
        root,
        "write_file",
        json!({"path": "a/b/c.txt", "content": &text}),
    )
    .await
    .unwrap();
    assert!(out.starts_with("created a/b/c.txt"), "{out}");
    let read = call(root, "read_file", json!({"path": "a/b/c.txt"}))
        .await
        .unwrap();
    assert!(read.starts_with("line 1\n"));
    let trailer = format!(
        "\n[truncated: showing lines 1-2000 of a {}-byte file; pass offset=2001 to read more]",
        text.len()
    );
    assert!(read.ends_with(&trailer), "{read}");
    let page = call(
        root,
        "read_file",
        json!({"path": "a/b/c.txt", "offset": 2999, "limit": 5}),
    )
    .await
    .unwrap();
    assert_eq!(page, "line 2999\nline 3000\n");
    let dir_error = call(root, "read_file", json!({"path": "a"}))
        .await
        .unwrap_err();
    assert!(dir_error.to_string().contains("is a directory"));
}

#[tokio::test]
async fn edit_file_counts_matches() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "f.rs", "let a = 1;\nlet b = 1;\n");
    let none = call(
        root,
        "edit_file",
        json!({"path": "f.rs", "old_string": "let c", "new_string": "x"}),
    )
    .await;
    assert!(
        none.unwrap_err()
            .to_string()
            .starts_with("old_string not found in f.rs")
    );
    let many = call(
        root,
        "edit_file",
        json!({"path": "f.rs", "old_string": "= 1", "new_string": "= 2"}),
    )
    .await;
    assert!(
        many.unwrap_err()
            .to_string()
            .starts_with("old_string occurs 2 times in f.rs")
    );
    let one = call(
        root,
        "edit_file",
        json!({"path": "f.rs", "old_string": "let a = 1", "new_string": "let a = 3"}),
    )
    .await;
    assert_eq!(one.unwrap(), "replaced 1 occurrence in f.rs");
    let all = call(
        root,
        "edit_file",
        json!({"path": "f.rs", "old_string": "let", "new_string": "const", "replace_all": true}),
    )
    .await;
    assert_eq!(all.unwrap(), "replaced 2 occurrences in f.rs");
    assert_eq!(
        std::fs::read_to_string(root.join("f.rs")).unwrap(),
        "const a = 3;\nconst b = 1;\n"
    );
}

#[tokio::test]
async fn delete_refuses_folders_and_read_many_has_headers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a.rs", "A");
    write(root, "src/b.rs", "B");
    write(root, "src/c.txt", "C");
    let error = call(root, "delete_file", json!({"path": "src"}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("is a directory"));
    let many = call(root, "read_many_files", json!({"patterns": ["src/*.rs"]}))
        .await
        .unwrap();
    assert_eq!(many, "==> src/a.rs <==\nA\n\n==> src/b.rs <==\nB\n\n");
    call(root, "delete_file", json!({"path": "src/a.rs"}))
        .await
        .unwrap();
    assert!(!root.join("src/a.rs").exists());
}
