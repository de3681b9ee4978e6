//! Helpers shared by the end-to-end tests.

use std::path::Path;

/// Copies a directory tree (files and folders only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Copies examples/review-fix to `to`, without any session database a local run left there,
/// and marks the copy as a project root.
pub fn copy_example(to: &Path) {
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/review-fix"),
        to,
    );
    for leftover in ["sessions.db", "sessions.db-wal", "sessions.db-shm"] {
        let _ = std::fs::remove_file(to.join(".agentctl").join(leftover));
    }
    std::fs::create_dir_all(to.join(".git")).unwrap();
}
