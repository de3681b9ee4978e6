//! File tools against what a model can plant in the project: FIFOs, sockets, hard links to
//! outside files, the session database, and files whose permissions must survive a rewrite.

use super::support::{call, write};
use agentctl_core::ToolError;
use agentctl_test_support::mkfifo;
use rustix::fs::OFlags;
use serde_json::{Value, json};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::Path;
use std::time::Duration;

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_fifo())
}

/// Calls a tool, but fails the test instead of hanging the suite when the tool blocks on the
/// FIFO: both ends are opened without blocking to release it before panicking.
async fn bounded(root: &Path, fifo: &Path, tool: &str, args: Value) -> Result<String, ToolError> {
    let guard = Duration::from_secs(30);
    if let Ok(result) = tokio::time::timeout(guard, call(root, tool, args.clone())).await {
        return result;
    }
    let nonblock = OFlags::NONBLOCK.bits() as i32;
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nonblock)
        .open(fifo);
    let _writer = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(nonblock)
        .open(fifo);
    panic!("{tool} {args} blocked on the FIFO");
}

#[tokio::test]
async fn fifos_are_refused_by_file_tools_and_skipped_by_walks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/lib.rs", "pub fn pipe() {}\n");
    let fifo = root.join("src/pipe");
    mkfifo(&fifo);
    // A FIFO as an ignore file must not hang the walk either.
    mkfifo(&root.join(".gitignore"));
    let refusal = "src/pipe is a FIFO, not a regular file; file tools only read and write \
                   regular files";
    for (tool, args) in [
        ("read_file", json!({"path": "src/pipe"})),
        ("write_file", json!({"path": "src/pipe", "content": "x"})),
        (
            "edit_file",
            json!({"path": "src/pipe", "old_string": "a", "new_string": "b"}),
        ),
        ("delete_file", json!({"path": "src/pipe"})),
        ("grep", json!({"pattern": "pipe", "path": "src/pipe"})),
    ] {
        let error = bounded(root, &fifo, tool, args).await.unwrap_err();
        assert_eq!(error.to_string(), refusal, "{tool}");
        assert!(is_fifo(&fifo), "{tool} replaced or removed the FIFO");
    }
    let grep = bounded(root, &fifo, "grep", json!({"pattern": "pipe"}))
        .await
        .unwrap();
    assert_eq!(grep, "src/lib.rs:1: pub fn pipe() {}\n");
    let glob = bounded(root, &fifo, "glob", json!({"pattern": "**/*"}))
        .await
        .unwrap();
    assert_eq!(glob, "src/lib.rs");
    let many = bounded(
        root,
        &fifo,
        "read_many_files",
        json!({"patterns": ["src/*"]}),
    )
    .await
    .unwrap();
    assert_eq!(many, "==> src/lib.rs <==\npub fn pipe() {}\n\n");
}

#[tokio::test]
async fn sockets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let _listener = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    let error = call(root, "read_file", json!({"path": "sock"}))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "sock is a socket, not a regular file; file tools only read and write regular files"
    );
    let error = call(root, "write_file", json!({"path": "sock", "content": "x"}))
        .await
        .unwrap_err();
    assert!(error.to_string().starts_with("sock is a socket"), "{error}");
}

#[tokio::test]
async fn hard_links_to_outside_files_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "password=hunter2\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::hard_link(&secret, root.join("hl")).unwrap();
    write(root, "ok.txt", "fine\n");
    let read = call(root, "read_file", json!({"path": "hl"}))
        .await
        .unwrap_err();
    assert_eq!(
        read.to_string(),
        "hl has 2 hard links: one may be outside the project; refusing to read it"
    );
    let change = "hl has 2 hard links: one may be outside the project; refusing to change it";
    for (tool, args) in [
        ("write_file", json!({"path": "hl", "content": "pwned"})),
        (
            "edit_file",
            json!({"path": "hl", "old_string": "hunter2", "new_string": "pwned"}),
        ),
        ("delete_file", json!({"path": "hl"})),
    ] {
        let error = call(root, tool, args).await.unwrap_err();
        assert_eq!(error.to_string(), change, "{tool}");
    }
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "password=hunter2\n"
    );
    assert!(root.join("hl").exists());
    let grep = call(root, "grep", json!({"pattern": "hunter2|fine"}))
        .await
        .unwrap();
    assert_eq!(
        grep,
        "ok.txt:1: fine\n[skipped: hl has 2 hard links: one may be outside the project; \
         refusing to read it]"
    );
    let many = call(root, "read_many_files", json!({"patterns": ["*"]}))
        .await
        .unwrap();
    assert!(!many.contains("hunter2"), "{many}");
    assert!(many.contains("[skipped: hl has 2 hard links"), "{many}");
}

#[tokio::test]
async fn the_session_database_is_refused_even_without_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".agentctl/sessions.db", "SQLite format 3");
    write(root, ".agentctl/sessions.db-shm", "shm");
    write(root, ".agentctl/settings.json", "{}");
    std::os::unix::fs::symlink(root.join(".agentctl/sessions.db"), root.join("db")).unwrap();
    let cases = [
        (
            "write_file",
            json!({"path": ".agentctl/sessions.db", "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": ".agentctl/sessions.db-wal", "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": "src/../.agentctl/sessions.db-journal", "content": "x"}),
        ),
        ("write_file", json!({"path": "db", "content": "x"})),
        (
            "edit_file",
            json!({"path": ".agentctl/sessions.db", "old_string": "SQLite", "new_string": "x"}),
        ),
        ("delete_file", json!({"path": ".agentctl/sessions.db-shm"})),
        ("delete_file", json!({"path": ".agentctl/sessions.db"})),
    ];
    for (tool, args) in cases {
        let error = call(root, tool, args.clone()).await.unwrap_err();
        assert!(
            error.to_string().contains(
                "belongs to agentctl's session database; no tool may change it, even with approval"
            ),
            "{tool} {args}: {error}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join(".agentctl/sessions.db")).unwrap(),
        "SQLite format 3"
    );
    assert!(root.join(".agentctl/sessions.db-shm").exists());
    assert!(!root.join(".agentctl/sessions.db-wal").exists());
    assert!(!root.join(".agentctl/sessions.db-journal").exists());
    // Other files under .agentctl are the gate's business (ask a person), not refused here.
    call(
        root,
        "write_file",
        json!({"path": ".agentctl/settings.json", "content": "{\"a\": 1}"}),
    )
    .await
    .unwrap();
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[tokio::test]
async fn rewrites_keep_permissions_and_leave_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "run.sh", "echo one\n");
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    write(root, "private.txt", "secret one\n");
    std::fs::set_permissions(
        root.join("private.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let out = call(
        root,
        "write_file",
        json!({"path": "run.sh", "content": "echo two\n"}),
    )
    .await
    .unwrap();
    assert_eq!(out, "overwrote run.sh (9 bytes)");
    assert_eq!(mode(&root.join("run.sh")), 0o750);
    call(
        root,
        "edit_file",
        json!({"path": "private.txt", "old_string": "one", "new_string": "two"}),
    )
    .await
    .unwrap();
    assert_eq!(mode(&root.join("private.txt")), 0o600);
    assert_eq!(
        std::fs::read_to_string(root.join("private.txt")).unwrap(),
        "secret two\n"
    );
    // A new file gets what std::fs::write would give it under the same umask.
    write(root, "reference.txt", "");
    call(
        root,
        "write_file",
        json!({"path": "new.txt", "content": ""}),
    )
    .await
    .unwrap();
    assert_eq!(
        mode(&root.join("new.txt")),
        mode(&root.join("reference.txt"))
    );
    let mut names: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["new.txt", "private.txt", "reference.txt", "run.sh"]);
}

#[tokio::test]
async fn writing_through_a_symlink_inside_the_project_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "real/config.toml", "a = 1\n");
    std::os::unix::fs::symlink("real/config.toml", root.join("config.toml")).unwrap();
    call(
        root,
        "write_file",
        json!({"path": "config.toml", "content": "a = 2\n"}),
    )
    .await
    .unwrap();
    assert!(
        std::fs::symlink_metadata(root.join("config.toml"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(root.join("real/config.toml")).unwrap(),
        "a = 2\n"
    );
}
