//! The session database holds every prompt and tool output: it, its WAL and its shared-memory
//! file are `0600` in a `0700` folder whatever the umask, and an older, readable one is made
//! private with a notice.

use agentctl_context::{ContextScope, MessageLog, NewMessage, SessionLog, SqliteStore};
use agentctl_core::Message;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

/// Where the child run of [`child_under_umask`] keeps its files.
const CHILD_DIR: &str = "AGENTCTL_CONTEXT_PRIVATE_TEST_DIR";

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Writes a session through `store`, so that SQLite has its WAL and shared-memory files.
fn write_some(store: &SqliteStore) {
    let session = store.create_session(Some("private")).unwrap();
    store
        .append_messages(
            &session.id,
            None,
            &[NewMessage::new(
                ContextScope::Main,
                None,
                Message::user("a prompt nobody else may read"),
            )],
        )
        .unwrap();
}

/// The child side of the next test: under the umask the parent set, open a new store, write,
/// and check every file while the store is open. Does nothing when run on its own.
#[test]
fn child_under_umask() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let dir = Path::new(&dir);
    // The umask is really 000: a plain file is created world-writable.
    std::fs::write(dir.join("plain"), "").unwrap();
    assert_eq!(mode(&dir.join("plain")), 0o666);
    let path = dir.join("project/.agentctl/sessions.db");
    let store = SqliteStore::open(&path).unwrap();
    write_some(&store);
    assert_eq!(store.tightened(), []);
    assert_eq!(mode(&dir.join("project")), 0o700);
    assert_eq!(mode(&dir.join("project/.agentctl")), 0o700);
    for file in ["sessions.db", "sessions.db-wal", "sessions.db-shm"] {
        assert_eq!(
            mode(&dir.join("project/.agentctl").join(file)),
            0o600,
            "{file}"
        );
    }
    drop(store);
    std::fs::write(dir.join("checked"), "").unwrap();
}

#[test]
fn the_database_its_wal_and_shared_memory_are_private_under_umask_000() {
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::private::child_under_umask",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        dir.path().join("checked").exists(),
        "the child ran its checks"
    );
}

#[test]
fn a_readable_database_and_wal_are_tightened_once_and_keep_their_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".agentctl/sessions.db");
    let store = SqliteStore::open(&path).unwrap();
    write_some(&store);
    // As an older agentctl under umask 022 left them, the WAL still there.
    let wal = dir.path().join(".agentctl/sessions.db-wal");
    assert!(wal.exists());
    let copy = dir.path().join("copy.db");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::copy(&wal, dir.path().join("copy.db-wal")).unwrap();
    drop(store);
    for file in [&copy, &dir.path().join("copy.db-wal")] {
        chmod(file, 0o644);
    }

    let reopened = SqliteStore::open(&copy).unwrap();
    let notices: Vec<String> = reopened
        .tightened()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        notices,
        [
            format!("tightened {} from 0644 to 0600", copy.display()),
            format!("tightened {}-wal from 0644 to 0600", copy.display()),
        ]
    );
    assert_eq!(mode(&copy), 0o600);
    assert_eq!(reopened.list_sessions().unwrap().len(), 1);
    drop(reopened);
    assert_eq!(SqliteStore::open(&copy).unwrap().tightened(), []);
}
