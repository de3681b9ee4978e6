//! Shared helpers: a store in a temporary directory.

use agentctl_context::SqliteStore;
use std::path::PathBuf;

/// A file-backed store in a fresh temporary directory.
pub struct TempStore {
    pub store: SqliteStore,
    pub path: PathBuf,
    pub _dir: tempfile::TempDir,
}

pub fn temp_store() -> TempStore {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".agentctl").join("sessions.db");
    TempStore {
        store: SqliteStore::open(&path).unwrap(),
        path,
        _dir: dir,
    }
}

/// Starts this test binary again running only the test `name` (a writer the caller kills),
/// with `env` set to the database `path`; its output is discarded.
pub fn spawn_child_test(name: &str, env: &str, path: &std::path::Path) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(env, path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}
