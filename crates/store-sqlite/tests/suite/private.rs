//! The session database holds every prompt and tool output: it, its WAL and its shared-memory
//! file are `0600` in a `0700` folder whatever the umask, and an older, readable one is made
//! private with a notice.

use agentctl_core::Message;
use agentctl_store::{ContextScope, MessageLog, NewMessage, SessionLog};
use agentctl_store_sqlite::SqliteStore;
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
#[ignore = "a child process: its parent test runs it with --ignored"]
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
            "--ignored",
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

/// The POSIX locks this process holds on the file with inode `inode`, as `/proc/locks` lists
/// them.
#[cfg(target_os = "linux")]
fn locks_held_on(inode: u64) -> usize {
    let pid = std::process::id().to_string();
    let suffix = format!(":{inode}");
    std::fs::read_to_string("/proc/locks")
        .unwrap()
        .lines()
        .filter(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.get(1) == Some(&"POSIX")
                && fields.get(4) == Some(&pid.as_str())
                && fields.get(5).is_some_and(|file| file.ends_with(&suffix))
        })
        .count()
}

/// Closing any descriptor of a file drops every POSIX lock the process holds on it: making a
/// database private must not open it (or its WAL or shared-memory file) behind SQLite's back,
/// or a second opening in the same process silently unlocks the first connection — and
/// another process then rebuilds the shared memory under it.
#[cfg(target_os = "linux")]
#[test]
fn opening_the_database_again_keeps_the_first_connections_locks() {
    use std::os::unix::fs::MetadataExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let first = SqliteStore::open(&path).unwrap();
    write_some(&first);
    let shm = dir.path().join("sessions.db-shm");
    let inode = std::fs::metadata(&shm).unwrap().ino();
    let held = locks_held_on(inode);
    assert!(held > 0, "SQLite holds its shared-memory lock");
    // Readable files make the second opening change them.
    for file in ["sessions.db", "sessions.db-wal", "sessions.db-shm"] {
        chmod(&dir.path().join(file), 0o644);
    }
    let second = SqliteStore::open(&path).unwrap();
    assert_eq!(second.tightened().len(), 3);
    drop(second);
    assert_eq!(locks_held_on(inode), held);
    write_some(&first);
    assert_eq!(first.list_sessions().unwrap().len(), 2);
}
