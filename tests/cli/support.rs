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

/// A copy of examples/review-fix in a temporary directory with an empty home, for tests that
/// start `agentctl` processes on it and read its session store afterwards.
pub struct ExampleProject {
    pub root: std::path::PathBuf,
    pub home: std::path::PathBuf,
    _tmp: tempfile::TempDir,
}

impl ExampleProject {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("project");
        copy_example(&root);
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        Self {
            root: root.canonicalize().unwrap(),
            home: home.canonicalize().unwrap(),
            _tmp: tmp,
        }
    }

    /// Writes a file of the project (an agent, a cassette), creating its folder.
    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }

    /// `agentctl --project-dir ROOT ARGS` with the empty home and no stdin.
    pub fn command(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agentctl"));
        command
            .arg("--project-dir")
            .arg(&self.root)
            .args(args)
            .env("HOME", &self.home)
            .env("AGENTCTL_HOME", self.home.join(".agentctl"))
            .current_dir(&self.root)
            .stdin(std::process::Stdio::null());
        command
    }

    /// Runs agentctl and returns its output, failing the test unless it succeeded.
    pub fn agentctl(&self, args: &[&str]) -> std::process::Output {
        let output = self.command(args).output().unwrap();
        assert!(
            output.status.success(),
            "agentctl {args:?}: {}\nstdout:\n{}\nstderr:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// The project's session store, opened the way agentctl opens it.
    pub fn store(&self) -> agentctl_context::SqliteStore {
        agentctl_context::SqliteStore::open(&self.root.join(".agentctl/sessions.db")).unwrap()
    }
}
