//! The read tools read paths the same way as the writing tools: no spelling through `/proc`,
//! `/dev` or an in-project link reads a file outside the project.

use super::support::{call, write};
use serde_json::{Value, json};
use std::os::unix::fs::symlink;

const SECRET: &str = "TOPSECRET-4f2a";

#[tokio::test]
async fn no_spelling_reads_outside_the_project() {
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    write(&outside, "OUT/secret", SECRET);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(&root, "src/main.rs", "fn main() {}\n");
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    for (link, target) in [
        ("a/b/up", "../..".to_owned()),
        ("proc", "/proc/self/root".to_owned()),
        ("fd", "/dev/fd".to_owned()),
        ("env", "/proc/self/environ".to_owned()),
        ("out", outside.display().to_string()),
    ] {
        symlink(target, root.join(link)).unwrap();
    }
    let secret = outside.join("OUT/secret").display().to_string();
    let read = |path: &str| ("read_file", json!({ "path": path }));
    let cases: Vec<(&str, Value)> = vec![
        read("/proc/self/cwd/../../etc/passwd"),
        read("/proc/self/environ"),
        read("/proc/self/root/etc/passwd"),
        read(&format!("/proc/self/root{secret}")),
        read("/proc/thread-self/environ"),
        read("/dev/fd/../environ"),
        read("/dev/stdin"),
        read(&secret),
        read("proc/etc/passwd"),
        read(&format!("proc{secret}")),
        read("env"),
        read("fd/0"),
        read("out/OUT/secret"),
        // `..` is taken as written: this is `a/b/OUT/secret`, which does not exist.
        read("a/b/up/../OUT/secret"),
        read("a/b/up/../../OUT/secret"),
        ("grep", json!({"pattern": "S", "path": "/proc/self"})),
        ("grep", json!({"pattern": "S", "path": "proc/proc/self"})),
        ("grep", json!({"pattern": "SECRET", "path": "out"})),
        ("grep", json!({"pattern": "SECRET"})),
        ("glob", json!({"pattern": "*", "path": "/proc/self/cwd"})),
        ("glob", json!({"pattern": "**/*", "path": "fd"})),
        ("glob", json!({"pattern": "**/*"})),
        (
            "read_many_files",
            json!({"patterns": ["/proc/self/environ"]}),
        ),
        (
            "read_many_files",
            json!({"patterns": ["**/*", "out/**", "proc/**"]}),
        ),
    ];
    for (tool, arguments) in cases {
        match call(&root, tool, arguments.clone()).await {
            Ok(out) => assert!(
                !out.contains(SECRET) && !out.contains("root:x:0:0") && !out.contains("PATH="),
                "{tool} {arguments}: {out}"
            ),
            Err(error) => {
                let error = error.to_string();
                assert!(!error.contains(SECRET), "{tool} {arguments}: {error}");
            }
        }
    }
    // The refusals say why.
    for (path, because) in [
        ("/proc/self/environ", "is under /proc"),
        ("/dev/fd/../environ", "is under /dev"),
        (
            "proc/etc/passwd",
            "leads through a symbolic link into /proc",
        ),
        ("env", "leads through a symbolic link into /proc"),
        ("fd/0", "leads through a symbolic link into /dev"),
        ("out/OUT/secret", "path escapes the project root"),
        (" src/main.rs", "path starts with a blank (U+0020)"),
        ("src/main.rs\u{3000}", "path ends with a blank (U+3000)"),
    ] {
        let error = call(&root, "read_file", json!({ "path": path }))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains(because), "{path:?}: {error}");
    }
    let plain = call(&root, "read_file", json!({"path": "./src/../src/main.rs"}))
        .await
        .unwrap();
    assert_eq!(plain, "fn main() {}\n");
}

#[tokio::test]
async fn a_project_under_dev_shm_takes_its_own_absolute_paths() {
    let shm = std::path::Path::new("/dev/shm");
    let usable = agentctl_test_support::requirement(
        tempfile::tempdir_in(shm)
            .map(drop)
            .map_err(|error| format!("/dev/shm is needed: {error}")),
    );
    if !usable {
        return;
    }
    let dir = tempfile::tempdir_in(shm).unwrap();
    let root = dir.path().canonicalize().unwrap();
    write(&root, "notes.md", "hello\n");
    let absolute = root.join("notes.md").display().to_string();
    let read = call(&root, "read_file", json!({ "path": absolute }))
        .await
        .unwrap();
    assert_eq!(read, "hello\n");
    let written = call(
        &root,
        "write_file",
        json!({"path": root.join("new.md").display().to_string(), "content": "x"}),
    )
    .await
    .unwrap();
    assert_eq!(written, "created new.md (1 bytes)");
    for path in [
        "/dev/fd/../cwd/notes.md",
        "/dev/stdin",
        "/proc/self/cwd/notes.md",
    ] {
        let error = call(&root, "read_file", json!({ "path": path }))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("the system's process and device files")
                || error.contains("escapes the project root"),
            "{path}: {error}"
        );
    }
}
