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
