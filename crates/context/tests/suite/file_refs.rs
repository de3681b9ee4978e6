//! `@file:` references: exact paths, globs, .gitignore, escapes, truncation, no match.

use agentctl_context::*;
use std::path::{Path, PathBuf};

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("src/main.rs", "fn main() {}\n");
    write("src/config.rs", "pub struct Config;\n");
    write("docs/config.md", "# Config\n");
    write("target/debug/config.rs", "generated\n");
    write(".gitignore", "target/\n*.log\n");
    write("app.log", "secret log\n");
    write(".hidden/config.toml", "x\n");
    std::fs::write(dir.path().join("outside.txt"), "top secret").unwrap();
    (dir, root)
}

fn paths(expansion: &Expansion) -> Vec<String> {
    expansion
        .files
        .iter()
        .map(|p| p.display().to_string())
        .collect()
}

#[test]
fn exact_path_then_globs_sorted_and_deduplicated() {
    let (_dir, root) = project();
    let out = expand_file_references(&root, "look at @file:src/main.rs and @file:main.rs");
    assert_eq!(paths(&out), ["src/main.rs"]);
    assert_eq!(out.text.matches("<File ").count(), 1);
    // `**/config` matches nothing, so `**/*config*`: ignored and hidden files are skipped.
    let out = expand_file_references(&root, "@file:config");
    assert_eq!(paths(&out), ["docs/config.md", "src/config.rs"]);
    assert!(out.warnings.is_empty());
    // `**/config.rs` wins over the wider pattern.
    let out = expand_file_references(&root, "@file:config.rs");
    assert_eq!(paths(&out), ["src/config.rs"]);
    assert!(out.text.ends_with(
        "<Context><File path=\"src/config.rs\"><![CDATA[pub struct Config;\n]]></File></Context>"
    ));
}

#[test]
fn gitignored_files_are_not_found_by_glob() {
    let (_dir, root) = project();
    let out = expand_file_references(&root, "@file:app.log");
    // Named exactly: taken (the user asked for it by path).
    assert_eq!(paths(&out), ["app.log"]);
    let out = expand_file_references(&root, "@file:*.log");
    assert!(out.files.is_empty());
    assert!(
        out.text
            .contains("<Warning>@file:*.log matched no file under the project root</Warning>")
    );
}

#[test]
fn escapes_are_refused() {
    let (dir, root) = project();
    for reference in ["@file:../outside.txt", "@file:src/../../outside.txt"] {
        let out = expand_file_references(&root, reference);
        assert!(out.files.is_empty(), "{reference}");
        assert!(
            out.warnings[0].contains("only files under the project root"),
            "{reference}"
        );
        assert!(!out.text.contains("top secret"));
    }
    let absolute = format!("@file:{}", dir.path().join("outside.txt").display());
    let out = expand_file_references(&root, &absolute);
    assert!(out.files.is_empty());
    assert!(!out.text.contains("top secret"));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path().join("outside.txt"), root.join("link.txt")).unwrap();
        let out = expand_file_references(&root, "@file:link.txt");
        assert!(out.files.is_empty());
        assert!(
            out.warnings[0].contains("outside the project root"),
            "{:?}",
            out.warnings
        );
        assert!(!out.text.contains("top secret"));
        let out = expand_file_references(&root, "@file:link");
        assert!(!out.text.contains("top secret"));
    }
}

#[test]
fn truncation_notes() {
    let (_dir, root) = project();
    let long: String = (0..1_500).map(|i| format!("line {i}\n")).collect();
    std::fs::write(root.join("long.txt"), &long).unwrap();
    let out = expand_file_references(&root, "@file:long.txt");
    assert!(out.text.contains("line 999\n"));
    assert!(!out.text.contains("line 1000\n"));
    assert!(
        out.text
            .contains("[truncated by agentctl: only the first 1000 lines are shown]")
    );
    let wide = "x".repeat(300 * 1024);
    std::fs::write(root.join("wide.txt"), &wide).unwrap();
    let out = expand_file_references(&root, "@file:wide.txt");
    assert!(
        out.text
            .contains("only the first 200 KB of 300 KB are shown")
    );
    assert!(out.text.len() < 201 * 1024);
}

#[test]
fn no_match_cdata_and_parsing() {
    let (_dir, root) = project();
    std::fs::write(root.join("tricky.xml"), "a ]]> b").unwrap();
    let out = expand_file_references(&root, "(@file:tricky.xml) and @file:nothing-like-this.");
    assert!(out.text.contains("<![CDATA[a ]]]]><![CDATA[> b]]>"));
    assert!(out.text.contains(
        "<Warning>@file:nothing-like-this matched no file under the project root</Warning>"
    ));
    // Not a reference: no word boundary before it.
    assert!(file_references("mail me@file:x").is_empty());
    let plain = expand_file_references(&root, "no references here");
    assert_eq!(plain.text, "no references here");
    assert!(Path::new(&root).exists());
}

#[test]
fn many_matches_are_capped_with_a_warning() {
    let (_dir, root) = project();
    for i in 0..30 {
        std::fs::write(root.join(format!("note{i:02}.md")), "n").unwrap();
    }
    let out = expand_file_references(&root, "@file:note");
    assert_eq!(out.files.len(), 20);
    assert_eq!(paths(&out)[0], "note00.md");
    assert!(out.warnings[0].contains("matched 30 files; only the first 20"));
}
